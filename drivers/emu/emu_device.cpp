// EmuDevice: the IP's control protocol around kernel::run_layer. start() checks the command against
// the buffers (and, strictly, that everything it reads was synced), raises ap_start and hands the job
// to the worker thread; the worker runs the kernel on the device copies and raises ap_done | ap_idle;
// wait() observes ap_done (clear on read), marks the output valid on the device and stale on the host.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "common/owned_memory.hpp"
#include "emu/bit_flip.hpp"
#include "emu/emu_memory.hpp"
#include "fpgacnn/drivers/command_footprint.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"
#include "fpgacnn/kernel/register_map.hpp"

namespace fpgacnn {

namespace {

namespace regs = kernel::regs;
using Clock = std::chrono::steady_clock;

class EmuDevice final : public Device {
public:
    explicit EmuDevice(const EmuOptions& options)
        : options_(options), memory_(options.poison_byte), maxima_(kernel::native_build_maxima()) {
        worker_ = std::thread([this] { worker_loop(); });
    }

    ~EmuDevice() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        worker_.join();
    }

    std::string name() const override { return "emu (" + tile_text(maxima_) + ")"; }

    KernelMaxima maxima() const override { return maxima_; }
    KernelFingerprint fingerprint() const override { return native_kernel_fingerprint(); }

    DeviceBuffer allocate(std::size_t bytes, BufferRole role, const std::string& purpose) override {
        std::lock_guard<std::mutex> lock(mutex_);
        return DeviceBuffer(memory_.allocate(bytes, role, purpose, token_));
    }

    void release_host_copy(const DeviceBuffer& buffer, std::size_t offset, std::size_t bytes) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto b = owned_memory<emu::EmuBuffer>(buffer, token_, "emu: release_host_copy", name());
        emu::EmuMemory::release_host(*b, offset, bytes);
    }

    void sync(const DeviceBuffer& buffer, SyncDirection direction, std::size_t offset,
              std::size_t bytes) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto b = owned_memory<emu::EmuBuffer>(buffer, token_, "emu: sync", name());
        const ByteSpan span{offset, offset + bytes};
        if (job_ && job_->arena == b && span.overlaps(job_->footprint.output)) {
            throw Error("emu: sync of '" + b->purpose + "' bytes " + span.text() + " while " +
                        job_->command.description + " is writing " + job_->footprint.output.text() +
                        "; wait() for the command first");
        }
        memory_.sync(*b, direction, offset, bytes);
    }

    void start(const DeviceCommand& command, const DeviceBuffer& arena,
               const DeviceBuffer& parameters) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::string who = name() + ": " + command.description;
        if (job_) {
            throw Error(who + ": cannot start while " + job_->command.description +
                        " is still running (ap_idle is low); wait() for it first");
        }
        if (options_.fail_after_commands >= 0 && commands_started_ >= options_.fail_after_commands) {
            throw DeviceError(
                who + ": injected failure (fail-after=" + std::to_string(options_.fail_after_commands) +
                "): the device stopped accepting commands after " +
                std::to_string(options_.fail_after_commands) + " (EmuOptions::fail_after_commands)");
        }
        Job job;
        job.command = command;
        job.arena = owned_memory<emu::EmuBuffer>(arena, token_, who, name());
        job.params = owned_memory<emu::EmuBuffer>(parameters, token_, who, name());
        job.footprint = check_command_fits(who, command.command, maxima_, arena, parameters);
        require_synced(who, job);
        if (options_.bit_flip && command.layer == options_.bit_flip->layer)
            job.flip_element = emu::bit_flip_element(who, *options_.bit_flip, command.command);
        ++commands_started_;
        job_ = job;
        job_taken_ = false;
        job_done_ = false;
        started_ = Clock::now();
        control_ = (control_ | regs::kApStart) & ~regs::kApIdle;
        cv_.notify_all();
    }

    CommandStats wait(std::chrono::milliseconds timeout) override {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!job_) throw Error(name() + ": wait() without a started command");
        if (!cv_.wait_for(lock, timeout, [&] { return job_done_; })) {
            throw DeviceError(
                name() + ": " + job_->command.description + " did not finish within " +
                std::to_string(timeout.count()) +
                " ms (ap_done never rose; the command is still "
                "running). Check for a stalled kernel (EmuOptions::stall_layer) or allow more time.");
        }
        emu::EmuBuffer& arena = *job_->arena;
        const auto begin = static_cast<std::size_t>(job_->footprint.output.begin);
        const auto end = static_cast<std::size_t>(job_->footprint.output.end);
        arena.device_valid.insert(begin, end);
        memory_.poison_host(arena, begin, end - begin);
        control_ &= ~regs::kApDone;  // clear on read
        ++completed_;
        bytes_read_ += result_.fm_read_bytes + result_.param_read_bytes;
        bytes_written_ += result_.fm_write_bytes;
        job_.reset();
        return result_;
    }

    DeviceTelemetry telemetry() const override {
        std::lock_guard<std::mutex> lock(mutex_);
        DeviceTelemetry t;
        t.busy = job_.has_value();
        t.control_register = control_;
        t.commands_completed = completed_;
        t.bytes_read = bytes_read_;
        t.bytes_written = bytes_written_;
        return t;  // no power or temperature sensors in emulation
    }

private:
    struct Job {
        DeviceCommand command;
        // Held while the command runs: dropping the handles then does not free what the kernel uses.
        std::shared_ptr<emu::EmuBuffer> arena;
        std::shared_ptr<emu::EmuBuffer> params;
        CommandFootprint footprint;
        std::optional<std::size_t> flip_element;  // arena element whose bit EmuOptions::bit_flip flips
    };

    /// The check hardware cannot make on top of check_command_fits (strict mode): the command reads
    /// only bytes that were synced to the device or written by an earlier command.
    void require_synced(const std::string& who, const Job& job) const {
        if (!options_.strict_sync) return;
        const kernel::LayerCommand& c = job.command.command;
        if (c.op == kernel::kOpIdentify) return;  // writes the fingerprint, reads nothing
        require_synced(who, *job.arena, job.footprint.input);
        const ByteSpan error = command_error_span(c);
        if (error.end > error.begin) require_synced(who, *job.arena, error);
        if (c.op != kernel::kOpConv && c.op != kernel::kOpConvBackward) return;
        require_synced(who, *job.params, job.footprint.weights);
        if (c.op == kernel::kOpConvBackward) return;  // no bias
        require_synced(who, *job.params, job.footprint.biases);
    }

    static void require_synced(const std::string& who, const emu::EmuBuffer& b, const ByteSpan& r) {
        const std::optional<std::size_t> missing =
            b.device_valid.first_missing(static_cast<std::size_t>(r.begin), static_cast<std::size_t>(r.end));
        if (!missing) return;
        throw Error(who + ": reads bytes " + r.text() + " of '" + b.purpose + "', but byte " +
                    std::to_string(*missing) +
                    " was never synced to the device nor written by a command: "
                    "call sync(ToDevice) after the host writes it");
    }

    void worker_loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || (job_ && !job_taken_); });
            if (stop_) return;
            job_taken_ = true;
            control_ &= ~regs::kApStart;  // the IP latched its arguments
            const Job job = *job_;
            if (options_.stall_layer >= 0 && job.command.layer == options_.stall_layer) {
                cv_.wait(lock, [&] { return stop_; });
                return;
            }
            lock.unlock();
            if (options_.on_command_accepted) options_.on_command_accepted(job.command);
            kernel::TrafficCounters traffic{};
            kernel::run_layer(job.command.command, job.arena->device_words(), job.arena->device_words(),
                              job.params->device_words(), &traffic);
            if (job.flip_element) {
                int16_t& value =
                    job.arena->device_words()[std::min(*job.flip_element, job.arena->bytes / 2 - 1)];
                value = static_cast<int16_t>(static_cast<uint16_t>(value) ^ (1u << options_.bit_flip->bit));
            }
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
            lock.lock();
            result_ = CommandStats{job.command.layer,         traffic.fm_read_bytes,
                                   traffic.fm_read_bursts,    traffic.fm_write_bytes,
                                   traffic.fm_write_bursts,   traffic.param_read_bytes,
                                   traffic.param_read_bursts, ms};
            job_done_ = true;
            control_ |= regs::kApDone | regs::kApIdle | regs::kApReady;
            cv_.notify_all();
        }
    }

    EmuOptions options_;
    const std::shared_ptr<const void> token_ = std::make_shared<int>(0);  // marks this device's buffers
    emu::EmuMemory memory_;
    KernelMaxima maxima_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::optional<Job> job_;  // started and not yet waited for
    bool job_taken_ = false;
    bool job_done_ = false;
    bool stop_ = false;
    Clock::time_point started_;
    CommandStats result_;
    std::uint32_t control_ = regs::kApIdle;
    std::uint64_t completed_ = 0;
    long long commands_started_ = 0;  // commands accepted (EmuOptions::fail_after_commands)
    std::uint64_t bytes_read_ = 0;
    std::uint64_t bytes_written_ = 0;
    std::thread worker_;
};

}  // namespace

std::unique_ptr<Device> make_emu_device(const EmuOptions& options) {
    return std::make_unique<EmuDevice>(options);
}

}  // namespace fpgacnn
