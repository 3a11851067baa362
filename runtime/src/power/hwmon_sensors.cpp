// hwmon rails: power*_input in microwatts (INA226, INA219, ...), or voltage x current for chips
// that report no power (INA3221: in*_input mV, curr*_input mA).
#include <algorithm>
#include <filesystem>
#include <regex>

#include "fpgacnn/error.hpp"
#include "fpgacnn/power.hpp"
#include "fpgacnn/sysfs_file.hpp"

namespace fs = std::filesystem;

namespace fpgacnn {
namespace {

// <dir>/<kind><n>_<suffix>, e.g. hwmon1/power1_input.
std::string attribute(const std::string& dir, const char* kind, int n, const char* suffix) {
    std::string path = dir;
    path.append("/").append(kind).append(std::to_string(n)).append("_").append(suffix);
    return path;
}

// "hwmon1 ina226 power1 (VCCINT)": the rail's label file adds the name the board gives it.
std::string rail_name(const std::string& prefix, const std::string& rail, const std::string& label_file) {
    std::string name = prefix;
    name.append(rail);
    const std::string label = sysfs::read_attribute(label_file).value_or("");
    if (!label.empty()) name.append(" (").append(label).append(")");
    return name;
}

class HwmonPowerSensor final : public PowerSensor {
public:
    HwmonPowerSensor(std::string name, std::string microwatts_file)
        : name_(std::move(name)), file_(std::move(microwatts_file)) {}
    std::string name() const override { return name_; }
    PowerQuantity quantity() const override { return PowerQuantity::Watts; }
    double read() override { return static_cast<double>(sysfs::read_integer(file_)) * 1e-6; }

private:
    std::string name_;
    std::string file_;
};

class HwmonVoltageCurrentSensor final : public PowerSensor {
public:
    HwmonVoltageCurrentSensor(std::string name, std::string millivolts_file, std::string milliamps_file)
        : name_(std::move(name)), volts_(std::move(millivolts_file)), amps_(std::move(milliamps_file)) {}
    std::string name() const override { return name_; }
    PowerQuantity quantity() const override { return PowerQuantity::Watts; }
    double read() override {
        // mV x mA = µW
        return static_cast<double>(sysfs::read_integer(volts_)) *
               static_cast<double>(sysfs::read_integer(amps_)) * 1e-6;
    }

private:
    std::string name_;
    std::string volts_;
    std::string amps_;
};

std::vector<int> channel_indexes(const fs::path& dir, const std::string& prefix, const std::string& suffix) {
    const std::regex pattern(prefix + "([0-9]+)_" + suffix);
    std::vector<int> indexes;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        std::smatch match;
        const std::string file = entry.path().filename().string();
        if (std::regex_match(file, match, pattern)) indexes.push_back(std::stoi(match[1].str()));
    }
    std::sort(indexes.begin(), indexes.end());
    return indexes;
}

// The rails of one hwmon device; empty when it has none (temperature-only chips).
void add_rails(const fs::path& dir, std::vector<std::unique_ptr<PowerSensor>>& sensors) {
    std::string prefix = dir.filename().string();
    prefix.append(" ").append(sysfs::read_attribute((dir / "name").string()).value_or("")).append(" ");
    const std::string base = dir.string();
    for (const char* suffix : {"input", "average"}) {
        const std::vector<int> rails = channel_indexes(dir, "power", suffix);
        for (const int i : rails) {
            sensors.push_back(std::make_unique<HwmonPowerSensor>(
                rail_name(prefix, "power" + std::to_string(i), attribute(base, "power", i, "label")),
                attribute(base, "power", i, suffix)));
        }
        if (!rails.empty()) return;
    }
    for (const int i : channel_indexes(dir, "curr", "input")) {
        const std::string volts = attribute(base, "in", i, "input");
        if (!fs::exists(volts)) continue;
        std::string rail = "in" + std::to_string(i);
        rail.append("*curr").append(std::to_string(i));
        sensors.push_back(std::make_unique<HwmonVoltageCurrentSensor>(
            rail_name(prefix, rail, attribute(base, "in", i, "label")), volts,
            attribute(base, "curr", i, "input")));
    }
}

}  // namespace

PowerSource find_hwmon_power(const std::string& root) {
    PowerSource source;
    source.name = "hwmon";
    const fs::path hwmon = sysfs::under_root(root, "/sys/class/hwmon");
    std::error_code ec;
    if (!fs::is_directory(hwmon, ec)) {
        source.unavailable = hwmon.string() + " does not exist (no hwmon devices)";
        return source;
    }
    std::vector<fs::path> devices;
    for (const fs::directory_entry& entry : fs::directory_iterator(hwmon, ec))
        devices.push_back(entry.path());
    std::sort(devices.begin(), devices.end());
    std::string chips;
    for (const fs::path& dir : devices) {
        chips += (chips.empty() ? "" : ", ") + sysfs::read_attribute((dir / "name").string()).value_or("");
        add_rails(dir, source.sensors);
    }
    if (devices.empty()) {
        source.unavailable = hwmon.string() + " is empty (no hwmon devices)";
    } else if (source.sensors.empty()) {
        source.unavailable = "no hwmon power rails (chips: " + chips + ")";
    }
    // A rail that exists but cannot be read (root-only attributes) makes the source unusable.
    for (const auto& sensor : source.sensors) {
        try {
            sensor->read();
        } catch (const Error& e) {
            source.unavailable = e.what();
            source.sensors.clear();
            break;
        }
    }
    return source;
}

}  // namespace fpgacnn
