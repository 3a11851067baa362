#include <algorithm>
#include <condition_variable>
#include <mutex>

#include "fpgacnn/error.hpp"
#include "fpgacnn/power.hpp"

namespace fpgacnn {

using Clock = std::chrono::steady_clock;

struct PowerSampler::State {
    PowerSource source;
    std::chrono::milliseconds interval{50};
    std::mutex mutex;
    std::condition_variable wake;
    bool stopping = false;
    bool stopped = false;

    // Totals, written by the sampler thread under `mutex` (current() reads them while it runs).
    PowerReport report;
    Clock::time_point start;
    Clock::time_point last_time;
    double last_watts = 0;            // instantaneous sensors at the last sample
    std::vector<double> last_joules;  // energy counters at the last sample
    bool failed = false;

    // One sample: instantaneous sensors add up to a power; energy counters give their average power
    // since the last sample; both feed the peak and the energy.
    void sample() {
        if (failed) return;
        const Clock::time_point now = Clock::now();
        double watts = 0;
        double counted_joules = 0;
        bool has_counters = false;
        std::vector<double> joules(source.sensors.size(), 0.0);
        try {
            for (std::size_t i = 0; i < source.sensors.size(); ++i) {
                PowerSensor& sensor = *source.sensors[i];
                if (sensor.quantity() == PowerQuantity::Watts) {
                    watts += sensor.read();
                } else {
                    joules[i] = sensor.read();
                    if (report.samples > 0) counted_joules += joules[i] - last_joules[i];
                    has_counters = true;
                }
            }
        } catch (const Error& e) {
            std::lock_guard<std::mutex> lock(mutex);
            failed = true;
            report.available = false;
            report.reason = e.what();
            return;
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (report.samples > 0) {
            const double dt = std::chrono::duration<double>(now - last_time).count();
            const double interval_joules = 0.5 * (watts + last_watts) * dt + counted_joules;
            report.joules += interval_joules;
            if (dt > 0) {
                report.latest_watts = interval_joules / dt;
                report.peak_watts = std::max(report.peak_watts, report.latest_watts);
            }
        } else {
            start = now;
            if (!has_counters) report.peak_watts = report.latest_watts = watts;
        }
        last_time = now;
        last_watts = watts;
        last_joules = std::move(joules);
        ++report.samples;
        report.seconds = std::chrono::duration<double>(now - start).count();
    }

    /// The average over the run so far, or why there is none.
    static void finish(PowerReport& report) {
        if (report.available && report.samples < 2) {
            report.available = false;
            report.reason = "fewer than two samples";
        }
        if (report.available) report.average_watts = report.seconds > 0 ? report.joules / report.seconds : 0;
    }

    void run() {
        std::unique_lock<std::mutex> lock(mutex);
        while (true) {
            lock.unlock();
            sample();
            lock.lock();
            if (stopping) break;
            wake.wait_for(lock, interval, [&] { return stopping; });
        }
    }
};

PowerSampler::PowerSampler(PowerSource source, std::chrono::milliseconds interval)
    : state_(std::make_unique<State>()) {
    if (source.sensors.empty())
        throw Error("PowerSampler: " + source.name + " has no sensors: " + source.unavailable);
    state_->interval = interval;
    state_->report.available = true;
    for (const auto& sensor : source.sensors) {
        state_->report.source +=
            (state_->report.source.empty() ? source.name + ": " : " + ") + sensor->name();
    }
    state_->source = std::move(source);
    thread_ = std::thread([this] { state_->run(); });
}

PowerSampler::~PowerSampler() { stop(); }

PowerReport PowerSampler::stop() {
    State& s = *state_;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.stopped) return s.report;
        s.stopping = true;
    }
    s.wake.notify_all();
    thread_.join();
    s.sample();  // the end of the run, so short runs still span start to stop
    std::lock_guard<std::mutex> lock(s.mutex);
    State::finish(s.report);
    s.stopped = true;
    return s.report;
}

PowerReport PowerSampler::current() const {
    std::lock_guard<std::mutex> lock(state_->mutex);
    PowerReport report = state_->report;
    if (!state_->stopped) State::finish(report);
    return report;
}

PowerMonitor::PowerMonitor(const Device* device, const std::string& root,
                           std::chrono::milliseconds interval) {
    for (PowerSource& source : find_power_sources(device, root)) {
        if (!source.sensors.empty()) {
            sampler_ = std::make_unique<PowerSampler>(std::move(source), interval);
            return;
        }
        reasons_ += (reasons_.empty() ? "" : "; ") + source.name + ": " + source.unavailable;
    }
}

PowerMonitor::~PowerMonitor() = default;

PowerReport PowerMonitor::stop() {
    if (sampler_) return sampler_->stop();
    PowerReport report;
    report.reason = reasons_;
    return report;
}

PowerReport PowerMonitor::current() const {
    if (sampler_) return sampler_->current();
    PowerReport report;
    report.reason = reasons_;
    return report;
}

}  // namespace fpgacnn
