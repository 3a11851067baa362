// EmuDevice: the IP's control protocol around kernel::run_layer. start() checks the command against
// the buffers (and, strictly, that everything it reads was synced), raises ap_start and hands the job
// to the worker thread; the worker runs the kernel on the device copies and raises ap_done | ap_idle;
// wait() observes ap_done (clear on read), marks the output valid on the device and stale on the host.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "emu/emu_memory.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"
#include "fpgacnn/kernel/register_map.hpp"

namespace fpgacnn {

namespace {

namespace regs = kernel::regs;
using Clock = std::chrono::steady_clock;

struct ByteRange {
    std::size_t begin = 0;
    std::size_t end = 0;
    bool overlaps(const ByteRange& o) const { return begin < o.end && o.begin < end; }
    std::string text() const { return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")"; }
};

ByteRange elements(std::uint64_t offset, std::uint64_t count) {
    return ByteRange{static_cast<std::size_t>(2 * offset), static_cast<std::size_t>(2 * (offset + count))};
}

class EmuDevice final : public Device {
public:
    explicit EmuDevice(const EmuOptions& options)
        : options_(options), memory_(options.poison_byte), maxima_(native_kernel_maxima()) {
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

    DeviceBuffer allocate(std::size_t bytes, BufferRole /*role: one memory in emulation*/,
                          const std::string& purpose) override {
        std::lock_guard<std::mutex> lock(mutex_);
        return memory_.allocate(bytes, purpose);
    }

    void free_buffer(const DeviceBuffer& buffer) override {
        std::lock_guard<std::mutex> lock(mutex_);
        emu::EmuBuffer& b = memory_.get(buffer, "emu: free_buffer");
        if (job_ && (job_->arena == &b || job_->params == &b)) {
            throw Error("emu: free_buffer: '" + buffer.purpose + "' is in use by " +
                        job_->command.description + "; wait() for it first");
        }
        memory_.free(buffer);
    }

    void sync(const DeviceBuffer& buffer, SyncDirection direction, std::size_t offset,
              std::size_t bytes) override {
        std::lock_guard<std::mutex> lock(mutex_);
        emu::EmuBuffer& b = memory_.get(buffer, "emu: sync");
        if (job_ && job_->arena == &b && ByteRange{offset, offset + bytes}.overlaps(job_->output)) {
            throw Error("emu: sync of '" + buffer.purpose + "' bytes " +
                        ByteRange{offset, offset + bytes}.text() + " while " + job_->command.description +
                        " is writing " + job_->output.text() + "; wait() for the command first");
        }
        memory_.sync(b, direction, offset, bytes);
    }

    void start(const DeviceCommand& command, const DeviceBuffer& arena,
               const DeviceBuffer& parameters) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::string who = name() + ": " + command.description;
        if (job_) {
            throw Error(who + ": cannot start while " + job_->command.description +
                        " is still running (ap_idle is low); wait() for it first");
        }
        Job job;
        job.command = command;
        job.arena = &memory_.get(arena, who);
        job.params = &memory_.get(parameters, who);
        check(who, job);
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
            throw Error(name() + ": " + job_->command.description + " did not finish within " +
                        std::to_string(timeout.count()) +
                        " ms (ap_done never rose; the command is still "
                        "running). Check for a stalled kernel (EmuOptions::stall_layer) or allow more time.");
        }
        emu::EmuBuffer& arena = *job_->arena;
        arena.device_valid.insert(job_->output.begin, job_->output.end);
        memory_.poison_host(arena, job_->output.begin, job_->output.end - job_->output.begin);
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
        emu::EmuBuffer* arena = nullptr;
        emu::EmuBuffer* params = nullptr;
        ByteRange input, output, weights, biases;
    };

    /// The checks hardware cannot make: the command fits the kernel build and the buffers, does not
    /// write what it reads, and (strict) reads only synced data.
    void check(const std::string& who, Job& job) const {
        const kernel::LayerCommand& c = job.command.command;
        const kernel::CommandCheck verdict = kernel::check_command(c);
        if (verdict != kernel::kCommandOk) {
            throw Error(who + ": the kernel rejects the command: " + kernel::command_check_text(verdict) +
                        " (plan the network for this device's maxima)");
        }
        if (c.op == kernel::kOpIdentify) {  // writes the fingerprint, reads nothing
            job.output = elements(c.output_offset, kernel::kFingerprintWords);
            in_buffer(who, *job.arena, job.output, "writes the kernel fingerprint to");
            return;
        }
        job.input = elements(c.input_offset, std::uint64_t{c.in_c} * c.in_h * c.in_w);
        job.output = elements(c.output_offset, std::uint64_t{c.out_c} * c.out_h * c.out_w);
        in_buffer(who, *job.arena, job.input, "reads its input from");
        in_buffer(who, *job.arena, job.output, "writes its output to");
        if (job.input.overlaps(job.output)) {
            throw Error(who + ": input " + job.input.text() + " and output " + job.output.text() +
                        " overlap in '" + job.arena->purpose + "'; the plan's arena layout is broken");
        }
        require_synced(who, *job.arena, job.input);
        if (c.op != kernel::kOpConv) return;
        const auto tm = static_cast<std::uint32_t>(maxima_.tm), tn = static_cast<std::uint32_t>(maxima_.tn);
        job.weights = elements(c.weight_offset,
                               kernel::reordered_weight_elements(c.out_c, c.in_c, c.kernel_size, tm, tn));
        job.biases = elements(c.bias_offset, kernel::padded_bias_elements(c.out_c, tm));
        in_buffer(who, *job.params, job.weights, "reads its weights from");
        in_buffer(who, *job.params, job.biases, "reads its biases from");
        require_synced(who, *job.params, job.weights);
        require_synced(who, *job.params, job.biases);
    }

    static void in_buffer(const std::string& who, const emu::EmuBuffer& b, const ByteRange& r,
                          const char* verb) {
        if (r.end > b.bytes) {
            throw Error(who + ": " + verb + " bytes " + r.text() + " but '" + b.purpose + "' has " +
                        std::to_string(b.bytes) + " bytes; the plan does not match the buffer");
        }
    }

    void require_synced(const std::string& who, const emu::EmuBuffer& b, const ByteRange& r) const {
        if (!options_.strict_sync) return;
        const std::optional<std::size_t> missing = b.device_valid.first_missing(r.begin, r.end);
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
            kernel::run_layer(job.command.command, job.arena->device.data(), job.arena->device.data(),
                              job.params->device.data(), &traffic);
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
    std::uint64_t bytes_read_ = 0;
    std::uint64_t bytes_written_ = 0;
    std::thread worker_;
};

}  // namespace

std::unique_ptr<Device> make_emu_device(const EmuOptions& options) {
    return std::make_unique<EmuDevice>(options);
}

}  // namespace fpgacnn
