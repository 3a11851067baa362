// Power and energy while a benchmark runs: one PowerSensor interface with readers for Linux hwmon
// (INA226 & co. in microwatts; INA3221-style rails with only voltage and current), powercap / RAPL
// energy counters (with wrap-around) and an accelerator's own telemetry (XRT's electrical
// readings arrive through Device::telemetry), plus a sampler thread that turns readings into
// average / peak watts and joules. Every sysfs path is taken under a root folder so tests can
// point the readers at fake trees.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include "fpgacnn/export.hpp"

namespace fpgacnn {

class Device;

/// What a sensor's read() returns.
enum class PowerQuantity {
    Watts,   ///< instantaneous power
    Joules,  ///< a cumulative energy counter (any origin; wrap-arounds already unfolded)
};

/// One power or energy reading (a hwmon rail, a RAPL zone, a device's telemetry). Made by the
/// find_* functions below, owned by its PowerSource; read by one thread at a time (the sampler's).
class FPGACNN_API PowerSensor {
public:
    virtual ~PowerSensor() = default;
    /// e.g. "hwmon2 ina226 power1 (VCCINT)", "powercap intel-rapl:0 package-0".
    virtual std::string name() const = 0;
    /// Whether read() returns watts or a cumulative joule count (fixed for a sensor).
    virtual PowerQuantity quantity() const = 0;
    /// The current value; throws Error naming the file and the reason ("needs root", ...).
    virtual double read() = 0;
};

/// Sensors of one kind whose values add up (the rails of a board, the packages of a host), or the
/// reason there are none.
struct FPGACNN_API PowerSource {
    std::string name;                                   ///< "device", "hwmon" or "powercap"
    std::vector<std::unique_ptr<PowerSensor>> sensors;  ///< all of one quantity; owned here
    std::string unavailable;  ///< why `sensors` is empty, e.g. "needs root: ... permission denied"
};

/// Rails under `root` + sys/class/hwmon/hwmon*: power*_input (µW; power*_average when there is no
/// input), else in*_input (mV) x curr*_input (mA) of the same index (INA3221 has no power files).
FPGACNN_API PowerSource find_hwmon_power(const std::string& root = "/");
/// Top-level zones `root` + sys/class/powercap/intel-rapl:N (AMD CPUs expose the same names) read
/// as energy_uj, unfolded at max_energy_range_uj; a "psys" zone, when present, is used alone
/// because it already contains the packages.
FPGACNN_API PowerSource find_powercap_energy(const std::string& root = "/");
/// The accelerator's own power reading, Device::telemetry().power_watts (XRT: the card's
/// electrical readings). The device must outlive the sensor and allow telemetry() from any thread.
FPGACNN_API PowerSource find_device_power(const Device* device);
/// Every source in order of preference: the device's own sensor, hwmon rails, powercap energy.
FPGACNN_API std::vector<PowerSource> find_power_sources(const Device* device, const std::string& root = "/");

/// What a sampling run measured.
struct FPGACNN_API PowerReport {
    bool available = false;    ///< a source was sampled at least twice; false: see `reason`
    std::string source;        ///< the sensors measured, e.g. "hwmon: hwmon0 ina226 power1"
    std::string reason;        ///< when not available
    double seconds = 0;        ///< from the first sample to the last
    int samples = 0;           ///< readings taken (of every sensor of the source at once)
    double average_watts = 0;  ///< joules / seconds
    double peak_watts = 0;     ///< highest power over one sampling interval
    double joules = 0;         ///< energy over the run, summed over the source's sensors
    double latest_watts = 0;   ///< power over the last sampling interval (what a live gauge shows)
};

/// Reads a source every `interval` on a thread of its own from construction until stop().
/// Watts sensors are integrated (trapezoid rule); energy counters are differenced.
class FPGACNN_API PowerSampler {
public:
    /// Takes `source` over and starts the sampling thread (its first sample at once). Throws Error
    /// naming the source when it has no sensors. current() may be called from any thread.
    explicit PowerSampler(PowerSource source,
                          std::chrono::milliseconds interval = std::chrono::milliseconds(50));
    ~PowerSampler();
    PowerSampler(const PowerSampler&) = delete;
    PowerSampler& operator=(const PowerSampler&) = delete;

    /// Takes a last sample, stops the thread and returns the totals (the same on later calls).
    PowerReport stop();
    /// The totals so far while sampling goes on (a server's metrics); after stop(), stop()'s report.
    PowerReport current() const;

private:
    struct State;
    std::unique_ptr<State> state_;
    std::thread thread_;
};

/// The first source with sensors, sampled; or a report that says why none could be read
/// (one reason per source).
class FPGACNN_API PowerMonitor {
public:
    /// find_power_sources(device, root) and a PowerSampler on the first that has sensors, started now.
    /// `device` may be null (no device sensor); otherwise it must outlive the monitor.
    explicit PowerMonitor(const Device* device, const std::string& root = "/",
                          std::chrono::milliseconds interval = std::chrono::milliseconds(50));
    ~PowerMonitor();
    /// PowerSampler::stop() of the source sampled, or the report saying why there is none.
    PowerReport stop();
    /// The totals so far (PowerSampler::current), or the report saying why there is no source.
    PowerReport current() const;

private:
    std::unique_ptr<PowerSampler> sampler_;
    std::string reasons_;
};

}  // namespace fpgacnn
