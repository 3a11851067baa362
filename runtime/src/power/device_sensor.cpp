// An accelerator's own power reading through Device::telemetry (XRT fills it from the card's
// electrical sensors; the emu device has none).
#include "fpgacnn/device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/power.hpp"

namespace fpgacnn {
namespace {

class DeviceTelemetrySensor final : public PowerSensor {
public:
    explicit DeviceTelemetrySensor(const Device& device)
        : device_(device), name_("device " + device.name()) {}
    std::string name() const override { return name_; }
    PowerQuantity quantity() const override { return PowerQuantity::Watts; }
    double read() override {
        const std::optional<double> watts = device_.telemetry().power_watts;
        if (!watts) throw Error(name_ + ": the power reading disappeared");
        return *watts;
    }

private:
    const Device& device_;
    std::string name_;
};

}  // namespace

PowerSource find_device_power(const Device* device) {
    PowerSource source;
    source.name = "device";
    if (device == nullptr) {
        source.unavailable = "no accelerator (the cpu backend has no device telemetry)";
    } else if (!device->telemetry().power_watts) {
        source.unavailable = device->name() + " reports no power sensor";
    } else {
        source.sensors.push_back(std::make_unique<DeviceTelemetrySensor>(*device));
    }
    return source;
}

std::vector<PowerSource> find_power_sources(const Device* device, const std::string& root) {
    std::vector<PowerSource> sources;
    sources.push_back(find_device_power(device));
    sources.push_back(find_hwmon_power(root));
    sources.push_back(find_powercap_energy(root));
    return sources;
}

}  // namespace fpgacnn
