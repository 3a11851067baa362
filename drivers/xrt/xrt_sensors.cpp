// Power and temperature out of XRT's JSON device reports. XRT 2.13 returns them as JSON strings
// (xrt::info::device::electrical / thermal) whose numbers are strings, "N/A" where the card or
// shell has no sensor; the no-op device reports every sensor with is_present "false".
#include <nlohmann/json.hpp>

#include "fpgacnn/drivers/xrt_device.hpp"

namespace fpgacnn {

namespace {

/// A JSON value that XRT writes as a number in a string ("23.5"); nullopt for "N/A" and the like.
std::optional<double> number(const nlohmann::json& value) {
    if (value.is_number()) return value.get<double>();
    if (!value.is_string()) return std::nullopt;
    const std::string text = value.get<std::string>();
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used != text.size()) return std::nullopt;
        return v;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

bool present(const nlohmann::json& sensor) {
    const auto it = sensor.find("is_present");
    return it == sensor.end() || (it->is_string() && it->get<std::string>() == "true") ||
           (it->is_boolean() && it->get<bool>());
}

}  // namespace

std::optional<double> power_from_electrical_report(const std::string& json) {
    const nlohmann::json report = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!report.is_object()) return std::nullopt;
    const auto it = report.find("power_consumption_watts");
    if (it == report.end()) return std::nullopt;
    const std::optional<double> watts = number(*it);
    if (!watts || *watts <= 0) return std::nullopt;  // 0 = sensor not read
    return watts;
}

std::optional<double> fpga_temperature_from_thermal_report(const std::string& json) {
    const nlohmann::json report = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!report.is_object()) return std::nullopt;
    const auto thermals = report.find("thermals");
    if (thermals == report.end() || !thermals->is_array()) return std::nullopt;
    for (const nlohmann::json& sensor : *thermals) {
        if (!sensor.is_object() || !present(sensor)) continue;
        const auto id = sensor.find("location_id");
        if (id == sensor.end() || !id->is_string() || id->get<std::string>() != "fpga0") continue;
        const auto temp = sensor.find("temp_C");
        if (temp == sensor.end()) return std::nullopt;
        return number(*temp);
    }
    return std::nullopt;
}

}  // namespace fpgacnn
