// RAPL-style energy counters under powercap: energy_uj counts up to max_energy_range_uj and wraps.
#include <algorithm>
#include <filesystem>
#include <regex>

#include "fpgacnn/error.hpp"
#include "fpgacnn/power.hpp"
#include "fpgacnn/sysfs_file.hpp"

namespace fs = std::filesystem;

namespace fpgacnn {
namespace {

class PowercapEnergySensor final : public PowerSensor {
public:
    PowercapEnergySensor(std::string name, const fs::path& zone)
        : name_(std::move(name)),
          energy_file_((zone / "energy_uj").string()),
          range_uj_(sysfs::read_integer((zone / "max_energy_range_uj").string())) {
        if (range_uj_ <= 0) throw Error((zone / "max_energy_range_uj").string() + ": not a positive range");
    }
    std::string name() const override { return name_; }
    PowerQuantity quantity() const override { return PowerQuantity::Joules; }

    // The counter unfolded: a reading below the last one means it wrapped once (the sampler reads
    // far more often than the minutes a wrap takes).
    double read() override {
        const long long raw = sysfs::read_integer(energy_file_);
        if (has_last_) total_uj_ += raw >= last_uj_ ? raw - last_uj_ : range_uj_ - last_uj_ + raw;
        last_uj_ = raw;
        has_last_ = true;
        return static_cast<double>(total_uj_) * 1e-6;
    }

private:
    std::string name_;
    std::string energy_file_;
    long long range_uj_;
    long long last_uj_ = 0;
    long long total_uj_ = 0;
    bool has_last_ = false;
};

}  // namespace

PowerSource find_powercap_energy(const std::string& root) {
    PowerSource source;
    source.name = "powercap";
    const fs::path powercap = sysfs::under_root(root, "/sys/class/powercap");
    std::error_code ec;
    if (!fs::is_directory(powercap, ec)) {
        source.unavailable = powercap.string() + " does not exist (no RAPL energy counters)";
        return source;
    }
    // Top-level zones only: sub-zones (intel-rapl:0:0 = cores) are inside their package.
    const std::regex top_level("intel-rapl:[0-9]+");
    std::vector<fs::path> zones;
    for (const fs::directory_entry& entry : fs::directory_iterator(powercap, ec)) {
        if (std::regex_match(entry.path().filename().string(), top_level)) zones.push_back(entry.path());
    }
    std::sort(zones.begin(), zones.end());
    const auto psys = std::find_if(zones.begin(), zones.end(), [](const fs::path& zone) {
        return sysfs::read_attribute((zone / "name").string()).value_or("") == "psys";
    });
    if (psys != zones.end()) zones = {*psys};
    if (zones.empty()) {
        source.unavailable = "no intel-rapl zones in " + powercap.string();
        return source;
    }
    try {
        for (const fs::path& zone : zones) {
            const std::string name = "powercap " + zone.filename().string() + " " +
                                     sysfs::read_attribute((zone / "name").string()).value_or("");
            auto sensor = std::make_unique<PowercapEnergySensor>(name, zone);
            sensor->read();  // energy_uj is root-only on current kernels: find out now
            source.sensors.push_back(std::move(sensor));
        }
    } catch (const Error& e) {
        source.sensors.clear();
        source.unavailable = e.what();
    }
    return source;
}

}  // namespace fpgacnn
