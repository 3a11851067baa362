// hwmon rails: power*_input in microwatts (INA226, INA219, ...), or voltage x current for chips
// that report no power (INA3221: in*_input mV, curr*_input mA).
#include <algorithm>
#include <filesystem>
#include <regex>

#include "fpgacnn/error.hpp"
#include "fpgacnn/power.hpp"
#include "power/sysfs_file.hpp"

namespace fs = std::filesystem;

namespace fpgacnn {
namespace {

using power_detail::read_sysfs_integer;
using power_detail::read_sysfs_text;

std::string with_label(std::string name, const std::string& label_file) {
    const std::string label = read_sysfs_text(label_file);
    return label.empty() ? name : name + " (" + label + ")";
}

class HwmonPowerSensor final : public PowerSensor {
public:
    HwmonPowerSensor(std::string name, std::string microwatts_file)
        : name_(std::move(name)), file_(std::move(microwatts_file)) {}
    std::string name() const override { return name_; }
    PowerQuantity quantity() const override { return PowerQuantity::Watts; }
    double read() override { return static_cast<double>(read_sysfs_integer(file_)) * 1e-6; }

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
        return static_cast<double>(read_sysfs_integer(volts_)) *
               static_cast<double>(read_sysfs_integer(amps_)) * 1e-6;
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
    const std::string prefix = dir.filename().string() + " " + read_sysfs_text((dir / "name").string()) + " ";
    const std::string base = dir.string() + "/";
    for (const char* suffix : {"input", "average"}) {
        const std::vector<int> rails = channel_indexes(dir, "power", suffix);
        for (const int i : rails) {
            const std::string n = std::to_string(i);
            sensors.push_back(std::make_unique<HwmonPowerSensor>(
                with_label(prefix + "power" + n, base + "power" + n + "_label"),
                base + "power" + n + "_" + suffix));
        }
        if (!rails.empty()) return;
    }
    for (const int i : channel_indexes(dir, "curr", "input")) {
        const std::string n = std::to_string(i);
        const std::string volts = base + "in" + n + "_input";
        if (!fs::exists(volts)) continue;
        sensors.push_back(std::make_unique<HwmonVoltageCurrentSensor>(
            with_label(prefix + "in" + n + "*curr" + n, base + "in" + n + "_label"), volts,
            base + "curr" + n + "_input"));
    }
}

}  // namespace

PowerSource find_hwmon_power(const std::string& root) {
    PowerSource source;
    source.name = "hwmon";
    const fs::path hwmon = power_detail::under_root(root, "/sys/class/hwmon");
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
        chips += (chips.empty() ? "" : ", ") + read_sysfs_text((dir / "name").string());
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
