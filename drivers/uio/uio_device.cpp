// UioDevice: the fpgacnn IP behind generic-uio, buffers in u-dma-buf. start() checks the command
// against the buffers and the kernel build read from the device, writes the argument registers of
// kernel/register_map.hpp and raises ap_start; wait() sleeps on the UIO interrupt (or polls the
// control register) until ap_done, with a deadline. A command that misses its deadline cannot be
// aborted (ap_ctrl_hs has no abort): the driver remembers it as stalled and refuses to start another
// until the IP is idle again, waiting up to UioOptions::stall_grace at the next start().
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/command_registers.hpp"
#include "common/owned_memory.hpp"
#include "common/sync_check.hpp"
#include "fpgacnn/drivers/command_footprint.hpp"
#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/register_map.hpp"
#include "fpgacnn/sysfs_file.hpp"
#include "uio/register_window.hpp"
#include "uio/udmabuf.hpp"
#include "uio/uio_interrupt.hpp"
#include "uio/uio_node.hpp"

namespace fpgacnn {

namespace {

namespace regs = kernel::regs;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::uint32_t kKnownControlBits =
    regs::kApStart | regs::kApDone | regs::kApIdle | regs::kApReady | regs::kAutoRestart;
constexpr milliseconds kPresenceCheckPeriod{100};

std::string hex(std::uint64_t value) {
    std::ostringstream text;
    text << "0x" << std::hex << value;
    return text.str();
}

/// One buffer: a range of the u-dma-buf, returned to it (which stays mapped while used) when freed.
struct UioMemory final : DeviceMemory {
    std::shared_ptr<uio::UdmaBuf> dma;
    std::size_t offset = 0;
    ~UioMemory() override { dma->release(offset); }
};

class UioDevice final : public Device {
public:
    UioDevice(const std::string& name, const UioOptions& options)
        : options_(options), root_(uio_root(options.root)), node_(uio::find_uio_node(root_, name)) {
        const std::string where = "uio:" + name + " (" + node_.node + ")";
        address64_ = options.address_bits == 0 ? sizeof(void*) == 8 : options.address_bits == 64;
        const std::uint32_t needed = regs::register_space_bytes(address64_);
        if (node_.map_size < needed) {
            throw DeviceError(
                where + ": map0 is " + std::to_string(node_.map_size) + " bytes, the IP's registers need " +
                std::to_string(needed) +
                " (is this node the fpgacnn IP? its device-tree node needs reg = <base 0x10000>)");
        }
        registers_ = std::make_unique<uio::RegisterWindow>(node_.dev_path, node_.map_size);
        control_ = registers_->read(regs::kControl);
        if (control_ == 0xFFFFFFFFu) {
            throw DeviceError(
                where +
                ": the control register reads 0xffffffff: the PL is not configured or the IP is in "
                "reset; load the bitstream first");
        }
        open_interrupt(where);
        try {
            dma_ = std::make_shared<uio::UdmaBuf>(root_, options.udmabuf);
        } catch (const Error& e) {
            throw DeviceError(where + ": " + e.what());
        }
        if (!address64_ && dma_->phys_addr() + dma_->bytes() > (std::uint64_t{1} << 32)) {
            throw DeviceError(
                where + ": " + dma_->name() + " lies at " + hex(dma_->phys_addr()) +
                ", above 4 GiB, but the IP takes 32-bit addresses (spec option addr64 for a 64-bit build)");
        }
        if ((control_ & regs::kApIdle) == 0 && !wait_for_idle(options.stall_grace)) {
            throw DeviceError(
                where + ": the IP is busy (control " + hex(control_) +
                ") and no process drives it: a previous run died mid-command; reload the bitstream");
        }
        fingerprint_ = read_fingerprint(*this, options.identify_timeout);
        fingerprint_known_ = true;
        require_compatible_kernel(fingerprint_, name_text());
        spdlog::info("{}: {}, waits by {}, buffers in {} ({} MiB at {})", name_text(), fingerprint_.text(),
                     wait_mode_, dma_->name(), dma_->bytes() >> 20, hex(dma_->phys_addr()));
    }

    ~UioDevice() override {
        // A running command keeps reading and writing the buffers: give it the grace period before
        // the u-dma-buf mapping goes (the memory itself stays allocated by the kernel module).
        if ((job_ || stalled_) && !gone_) wait_for_idle(options_.stall_grace);
        if (!gone_) registers_->write(regs::kGlobalInterruptEnable, 0);
    }

    std::string name() const override { return name_text(); }
    KernelMaxima maxima() const override { return fingerprint_.maxima; }
    KernelFingerprint fingerprint() const override { return fingerprint_; }

    DeviceBuffer allocate(std::size_t bytes, BufferRole /*one u-dma-buf serves every port*/,
                          const std::string& purpose) override {
        const std::size_t offset = dma_->allocate(bytes, name_text() + ": " + purpose);
        auto memory = std::make_shared<UioMemory>();  // from here on, it releases the range
        memory->offset = offset;
        memory->dma = dma_;
        memory->host = dma_->base() + memory->offset;
        memory->device_address = dma_->phys_addr() + memory->offset;
        memory->bytes = bytes;
        memory->purpose = purpose;
        memory->owner = token_;
        return DeviceBuffer(std::move(memory));
    }

    void sync(const DeviceBuffer& buffer, SyncDirection direction, std::size_t offset,
              std::size_t bytes) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto a = own(buffer, name_text() + ": sync");
        RunningWrite running;
        if (job_) running = {job_->arena.get(), job_->output, job_->command.description};
        check_sync(name_text(), *a, offset, bytes, running);
        dma_->sync(direction, a->offset + offset, bytes);
    }

    void start(const DeviceCommand& command, const DeviceBuffer& arena,
               const DeviceBuffer& parameters) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::string who = name_text() + ": " + command.description;
        if (job_) {
            throw Error(who + ": cannot start while " + job_->command.description +
                        " is still running; wait() for it first");
        }
        require_present(who);
        if (stalled_) settle_stall(who);
        auto arena_memory = own(arena, who);
        auto parameter_memory = own(parameters, who);
        const KernelMaxima maxima = fingerprint_known_ ? fingerprint_.maxima : kernel::native_build_maxima();
        const CommandFootprint footprint =
            check_command_fits(who, command.command, maxima, arena, parameters);
        write_command_registers(
            command.command, arena.device_address(), parameters.device_address(), address64_,
            [this](std::uint32_t offset, std::uint32_t value) { registers_->write(offset, value); });
        if (interrupt_) {
            interrupt_->drain();
            registers_->write(regs::kInterruptStatus,
                              regs::kInterruptDone | regs::kInterruptReady);  // toggle-on-write
            interrupt_->arm();
        }
        registers_->write(regs::kControl, regs::kApStart);
        job_ = Job{command, std::move(arena_memory), std::move(parameter_memory), footprint.output,
                   Clock::now()};
    }

    CommandStats wait(milliseconds timeout) override {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!job_) throw Error(name_text() + ": wait() without a started command");
        const Job job = *job_;
        lock.unlock();  // telemetry() stays available while this thread sleeps
        const std::uint32_t status = wait_for_done(job, Clock::now() + timeout, timeout);
        lock.lock();
        if (interrupt_)
            registers_->write(regs::kInterruptStatus, regs::kInterruptDone | regs::kInterruptReady);
        job_.reset();
        if ((status & regs::kApIdle) == 0 || (status & ~kKnownControlBits) != 0) {
            if ((status & regs::kApIdle) == 0) stalled_ = job;  // start nothing over it until idle
            throw DeviceError(
                name_text() + ": " + job.command.description + " ended with control status " + hex(status) +
                " (ap_done without ap_idle, or bits the IP does not have): the IP or its bitstream is "
                "broken, or another process writes its registers; the layer's output is not used");
        }
        ++completed_;
        CommandStats stats;
        stats.layer = job.command.layer;  // the IP has no traffic counters: bytes stay 0
        stats.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - job.started).count();
        return stats;
    }

    DeviceTelemetry telemetry() const override {
        // The cached control value: reading the register here would clear ap_done under wait().
        std::lock_guard<std::mutex> lock(mutex_);
        DeviceTelemetry t;
        t.busy = job_.has_value() || stalled_.has_value();
        t.control_register = control_;
        t.commands_completed = completed_;
        return t;
    }

private:
    struct Job {
        DeviceCommand command;
        // Held while the IP may use them: dropping the handles then does not free them under it.
        std::shared_ptr<UioMemory> arena;
        std::shared_ptr<UioMemory> parameters;
        ByteSpan output;
        Clock::time_point started;
    };

    std::string name_text() const {
        std::string text = "uio:" + node_.name + " (" + node_.node;
        if (fingerprint_known_) text += ", " + tile_text(fingerprint_.maxima);
        return text + ")";
    }

    void open_interrupt(const std::string& where) {
        std::string why_not = "the poll option";
        if (!options_.poll) interrupt_ = uio::UioInterrupt::open(node_.dev_path, why_not);
        if (interrupt_) {
            wait_mode_ = "interrupt (" + interrupt_->description() + ")";
            registers_->write(regs::kInterruptEnable, regs::kInterruptDone);
            registers_->write(regs::kGlobalInterruptEnable, 1);
        } else {
            wait_mode_ = "polling the control register (" + why_not + ")";
            registers_->write(regs::kGlobalInterruptEnable, 0);
            if (!options_.poll) spdlog::warn("{}: no interrupt: {}", where, why_not);
        }
    }

    std::shared_ptr<UioMemory> own(const DeviceBuffer& buffer, const std::string& who) const {
        return owned_memory<UioMemory>(buffer, token_, who, name_text());
    }

    bool present() const { return sysfs::path_exists(node_.sys_dir) && sysfs::path_exists(node_.dev_path); }

    void require_present(const std::string& who) {
        if (!gone_ && present()) return;
        gone_ = true;
        throw DeviceError(who + ": " + node_.dev_path +
                          " is gone (the UIO driver was unbound or the device-tree overlay "
                          "removed); reopen the device, or run on the CPU (--fallback cpu)");
    }

    /// Reads the control register (caching it for telemetry); true when it shows the IP idle.
    bool idle_now() {
        control_ = registers_->read(regs::kControl);
        return (control_ & regs::kApIdle) != 0 && control_ != 0xFFFFFFFFu;
    }

    bool wait_for_idle(milliseconds grace) {
        const auto deadline = Clock::now() + grace;
        while (!idle_now()) {
            if (Clock::now() >= deadline) return false;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        return true;
    }

    /// A command timed out earlier: start only once the IP is idle again.
    void settle_stall(const std::string& who) {
        if (!wait_for_idle(options_.stall_grace)) {
            throw DeviceError(
                who + ": cannot start: " + stalled_->command.description +
                " missed its deadline and the IP is still busy (control " + hex(control_) + ") " +
                std::to_string(options_.stall_grace.count()) +
                " ms later. The IP cannot be aborted from user space: retry later, or reload the "
                "bitstream (fpgautil) to reset it");
        }
        spdlog::warn("{}: {} finished after its deadline; its output was discarded", name_text(),
                     stalled_->command.description);
        stalled_.reset();
    }

    /// Sleeps until ap_done; returns the control status that ended the wait. Throws on deadline or a
    /// vanished device. Between interrupt waits (and while polling) it checks that the node exists.
    std::uint32_t wait_for_done(const Job& job, Clock::time_point deadline, milliseconds timeout) {
        auto next_presence_check = Clock::now() + kPresenceCheckPeriod;
        auto poll_sleep = std::chrono::microseconds(20);
        for (;;) {
            bool vanished = false;
            if (interrupt_) {
                const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
                const auto slice = std::clamp(left + milliseconds(1), milliseconds(0), kPresenceCheckPeriod);
                vanished = interrupt_->wait(slice) == uio::InterruptWait::Gone;
            } else {
                std::this_thread::sleep_for(poll_sleep);
                poll_sleep = std::min(poll_sleep * 2, std::chrono::microseconds(1000));
            }
            std::lock_guard<std::mutex> lock(mutex_);
            if (vanished) fail_gone(job);
            // One read per round: on the IP ap_done is clear-on-read, so the value read is acted on.
            control_ = registers_->read(regs::kControl);
            if ((control_ & regs::kApDone) != 0 || control_ == 0xFFFFFFFFu) return control_;
            if (Clock::now() >= next_presence_check) {
                if (!present()) fail_gone(job);
                next_presence_check = Clock::now() + kPresenceCheckPeriod;
            }
            if (Clock::now() >= deadline) fail_timeout(job, timeout);
        }
    }

    [[noreturn]] void fail_gone(const Job& job) {
        gone_ = true;
        stalled_job_on_exit(job);
        throw DeviceError(
            name_text() + ": " + node_.node + " disappeared while waiting for " + job.command.description +
            " (the UIO driver was unbound or the overlay removed); reopen the device or run on the CPU "
            "(--fallback cpu)");
    }

    [[noreturn]] void fail_timeout(const Job& job, milliseconds timeout) {
        stalled_job_on_exit(job);
        throw DeviceError(name_text() + ": " + job.command.description + " did not finish within " +
                          std::to_string(timeout.count()) + " ms (control " + hex(control_) +
                          ", ap_done never rose, " + wait_mode_ +
                          "). The IP cannot be aborted: the driver starts nothing else until it is idle. "
                          "Check the bitstream and its clock, or allow more time");
    }

    /// wait() is leaving without a result: the command may still be running on the IP.
    void stalled_job_on_exit(const Job& job) {
        job_.reset();
        stalled_ = job;
    }

    UioOptions options_;
    std::string root_;
    uio::UioNode node_;
    bool address64_ = false;
    std::unique_ptr<uio::RegisterWindow> registers_;
    std::unique_ptr<uio::UioInterrupt> interrupt_;
    std::string wait_mode_;
    std::shared_ptr<uio::UdmaBuf> dma_;  // shared with the buffers' memory, which may outlive the device
    KernelFingerprint fingerprint_;
    bool fingerprint_known_ = false;
    const std::shared_ptr<const void> token_ = std::make_shared<int>(0);  // marks this device's buffers
    mutable std::mutex mutex_;
    std::optional<Job> job_;      // started, not yet waited for
    std::optional<Job> stalled_;  // missed its deadline; the IP may still be running it
    bool gone_ = false;
    std::uint32_t control_ = 0;
    std::uint64_t completed_ = 0;
};

}  // namespace

std::string uio_root(const std::string& root) {
    if (!root.empty()) return root;
    const char* variable = std::getenv(kUioRootVariable);
    return variable != nullptr && *variable != '\0' ? variable : "/";
}

std::unique_ptr<Device> make_uio_device(const std::string& name, const UioOptions& options) {
    return std::make_unique<UioDevice>(name, options);
}

}  // namespace fpgacnn
