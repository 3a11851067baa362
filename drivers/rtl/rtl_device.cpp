// RtlDevice: the Verilated RTL of the kernel behind the Device interface. start() checks the command
// against the buffers and the build's maxima (read from the model with the identify command), writes
// the argument registers as the uio driver does and raises ap_start; a worker thread runs the clock in
// slices until the IP's interrupt; wait() returns the cycles and the AXI traffic the simulation
// counted. Buffers are host memory mapped into the model's bus address space (shared, as a u-dma-buf),
// with an unmapped page after each so a stray burst is a bus fault, not a silent overwrite.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/command_registers.hpp"
#include "common/owned_memory.hpp"
#include "common/sync_check.hpp"
#include "fpgacnn/drivers/command_footprint.hpp"
#include "fpgacnn/drivers/rtl_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/register_map.hpp"
#include "fpgacnn/plan.hpp"
#include "rtl/rtl_library.hpp"

namespace fpgacnn {

namespace {

namespace regs = kernel::regs;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kPage = 4096;
/// Cycles simulated per slice: the worker lets allocations and unmaps (other threads) in between.
constexpr std::uint64_t kCyclesPerSlice = 200000;
/// Unread memory: the same poison byte as the emu device (0xA5A5 = -23131 as int16).
constexpr unsigned char kPoison = 0xA5;
/// Bus addresses start here (below 4 GiB, so 32-bit builds take them too).
constexpr std::uint64_t kFirstBusAddress = 0x10000000;

/// One simulation, shared by the device and every buffer mapped into it (a buffer may outlive the
/// device: it unmaps itself from the simulation, which goes with the last of them).
struct Simulation {
    std::shared_ptr<const rtl::RtlLibrary> library;
    fpgacnn_rtl_sim* sim = nullptr;
    std::mutex mutex;  // one caller at a time inside the model
    ~Simulation() {
        if (sim != nullptr) library->destroy(sim);
    }
};

struct RtlMemory final : DeviceMemory {
    std::shared_ptr<Simulation> simulation;
    void* block = nullptr;
    ~RtlMemory() override {
        {
            std::lock_guard<std::mutex> lock(simulation->mutex);
            simulation->library->unmap(simulation->sim, device_address);
        }
        std::free(block);
    }
};

class RtlDevice final : public Device {
public:
    explicit RtlDevice(const RtlOptions& options) : options_(options) {
        const std::string path = find_rtl_build(options.build);
        simulation_ = std::make_shared<Simulation>();
        simulation_->library = rtl::load_rtl_library(path);
        const fpgacnn_rtl_memory_model model{options.memory.read_latency, options.memory.write_latency,
                                             options.memory.outstanding_reads, options.memory.bytes_per_cycle,
                                             options.memory.clock_mhz};
        simulation_->sim = simulation_->library->create(&model);
        if (simulation_->sim == nullptr)
            throw Error("rtl: " + path + ": cannot create the simulation (out of memory)");
        address64_ = simulation_->library->address64;
        label_ = "rtl:" + options.build;
        // The driver waits on the interrupt line, as a real one does (uio): done raises it.
        write_register(regs::kInterruptEnable, regs::kInterruptDone);
        write_register(regs::kGlobalInterruptEnable, 1);
        worker_ = std::thread([this] { worker_loop(); });
        try {
            fingerprint_ = read_fingerprint(*this, std::chrono::milliseconds(10000));
            fingerprint_known_ = true;
            require_compatible_kernel(fingerprint_, name());
        } catch (...) {
            stop_worker();
            throw;
        }
        spdlog::info("{}: {} ({}), memory model {}", name(), fingerprint_.text(), path, options.memory.basis);
    }

    ~RtlDevice() override { stop_worker(); }

    std::string name() const override {
        std::string text = label_ + " (";
        if (fingerprint_known_) text += tile_text(fingerprint_.maxima) + ", ";
        return text + "mem=" + options_.memory.name + ")";
    }

    KernelMaxima maxima() const override { return fingerprint_.maxima; }
    KernelFingerprint fingerprint() const override { return fingerprint_; }

    DeviceBuffer allocate(std::size_t bytes, BufferRole /*every port sees one memory*/,
                          const std::string& purpose) override {
        const std::size_t rounded = align_up(std::max<std::size_t>(bytes, 1), kPage);
        void* block = nullptr;
        if (posix_memalign(&block, kPage, rounded) != 0) {
            throw Error(name() + ": cannot allocate " + std::to_string(bytes) + " bytes for '" + purpose +
                        "'");
        }
        std::memset(block, kPoison, rounded);
        auto memory = std::make_shared<RtlMemory>();
        memory->simulation = simulation_;
        memory->block = block;
        memory->host = block;
        memory->bytes = bytes;
        memory->purpose = purpose;
        memory->owner = token_;
        std::lock_guard<std::mutex> lock(simulation_->mutex);
        memory->device_address = next_address_;
        if (simulation_->library->map(simulation_->sim, next_address_, block, rounded) != 0) {
            const std::string why = simulation_->library->last_error(simulation_->sim);
            memory->simulation = nullptr;  // nothing to unmap
            std::free(block);
            memory->block = nullptr;
            throw Error(name() + ": cannot map '" + purpose + "' into the simulation: " + why);
        }
        next_address_ += rounded + kPage;  // the gap: a burst past the end faults
        return DeviceBuffer(std::move(memory));
    }

    void sync(const DeviceBuffer& buffer, SyncDirection /*shared memory*/, std::size_t offset,
              std::size_t bytes) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto memory = owned_memory<RtlMemory>(buffer, token_, name() + ": sync", name());
        RunningWrite running;
        if (job_) running = {job_->arena.get(), job_->footprint.output, job_->command.description};
        check_sync(name(), *memory, offset, bytes, running);
    }

    void start(const DeviceCommand& command, const DeviceBuffer& arena,
               const DeviceBuffer& parameters) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::string who = name() + ": " + command.description;
        if (job_) {
            throw Error(who + ": cannot start while " + job_->command.description +
                        " is still running (ap_idle is low); wait() for it first");
        }
        if (faulted_) throw DeviceError(who + ": the simulation stopped at an earlier bus fault: " + fault_);
        if (kernel::is_training_op(command.command.op)) {
            // kernels/rtl implements FP only (docs/kernel.md "Training phases"): refuse before the IP
            // sees an op its command check would drop.
            throw DeviceError(who + ": BP/WG not supported by this build (" + name() +
                              " implements the forward ops only; run the training phases on the emu device)");
        }
        if (kernel::is_upsample_shortcut_op(command.command.op) &&
            !(fingerprint_known_ && fingerprint_.maxima.upsample_shortcut)) {
            // A build too small for the ops' line buffers (fpgacnn_core.sv: fewer than two input lanes)
            // says so in its fingerprint; plans made for it keep those layers on the host.
            throw DeviceError(
                who + ": upsample/shortcut not supported by this build (" + name() +
                " has no upsample or shortcut op; plan for this device so that those layers run on "
                "the host, or use the emu device)");
        }
        Job job;
        job.command = command;
        job.arena = owned_memory<RtlMemory>(arena, token_, who, name());
        job.params = owned_memory<RtlMemory>(parameters, token_, who, name());
        const KernelMaxima maxima = fingerprint_known_ ? fingerprint_.maxima : KernelMaxima{};
        job.footprint = check_command_fits(who, command.command, maxima, arena, parameters);
        {
            std::lock_guard<std::mutex> sim_lock(simulation_->mutex);
            write_command_registers(
                command.command, arena.device_address(), parameters.device_address(), address64_,
                [this](std::uint32_t offset, std::uint32_t value) { write_register(offset, value); });
            simulation_->library->reset_counters(simulation_->sim);
            write_register(regs::kControl, regs::kApStart);
        }
        job_ = std::move(job);
        job_done_ = false;
        started_ = Clock::now();
        cv_.notify_all();
    }

    CommandStats wait(std::chrono::milliseconds timeout) override {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!job_) throw Error(name() + ": wait() without a started command");
        if (!cv_.wait_for(lock, timeout, [&] { return job_done_; })) {
            throw DeviceError(name() + ": " + job_->command.description + " did not finish within " +
                              std::to_string(timeout.count()) + " ms of simulation (" +
                              std::to_string(cycles_so_far_) +
                              " cycles so far; the interrupt never rose). A large layer may need more time "
                              "in simulation; otherwise the RTL hangs");
        }
        const Job job = *job_;
        job_.reset();
        if (faulted_) {
            throw DeviceError(name() + ": " + job.command.description + " stopped: " + fault_);
        }
        ++completed_;
        bytes_read_ += result_.fm_read_bytes + result_.param_read_bytes;
        bytes_written_ += result_.fm_write_bytes;
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
        return t;
    }

private:
    struct Job {
        DeviceCommand command;
        // Held while the command runs: dropping the handles then does not unmap what the model uses.
        std::shared_ptr<RtlMemory> arena;
        std::shared_ptr<RtlMemory> params;
        CommandFootprint footprint;
    };

    /// Callers hold simulation_->mutex (or are the constructor, before the worker starts).
    void write_register(std::uint32_t offset, std::uint32_t value) {
        if (simulation_->library->write_register(simulation_->sim, offset, value) != 0) {
            throw DeviceError(name() + ": the AXI-Lite write of register " + std::to_string(offset) +
                              " was not answered: " + simulation_->library->last_error(simulation_->sim));
        }
    }

    std::uint32_t read_register(std::uint32_t offset) {
        std::uint32_t value = 0;
        if (simulation_->library->read_register(simulation_->sim, offset, &value) != 0) {
            throw DeviceError(name() + ": the AXI-Lite read of register " + std::to_string(offset) +
                              " was not answered: " + simulation_->library->last_error(simulation_->sim));
        }
        return value;
    }

    void stop_worker() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        if (worker_.joinable()) worker_.join();
    }

    /// Runs one command to its interrupt (or a fault, or the device closing), then collects the
    /// counters, reads the control register (clearing ap_done) and acknowledges the interrupt. Lock
    /// order everywhere: mutex_ before simulation_->mutex, never the other way round.
    CommandStats simulate(const Job& job, bool& stopped) {
        CommandStats stats;
        stats.layer = job.command.layer;
        fpgacnn_rtl_counters counters{};  // as the interrupt rose: the traffic and cycles of the command
        for (;;) {
            int status = 0;
            std::string fault;
            {
                std::lock_guard<std::mutex> sim_lock(simulation_->mutex);
                status = simulation_->library->run(simulation_->sim, kCyclesPerSlice);
                simulation_->library->read_counters(simulation_->sim, &counters);
                if (status < 0) fault = simulation_->library->last_error(simulation_->sim);
            }
            std::lock_guard<std::mutex> lock(mutex_);
            cycles_so_far_ = counters.cycles;
            stopped = stop_;
            if (status < 0) {
                faulted_ = true;
                fault_ = fault;
                return stats;
            }
            if (stopped) return stats;
            if (status == 0) break;
        }
        std::uint32_t control = 0;
        {
            std::lock_guard<std::mutex> sim_lock(simulation_->mutex);
            control = read_register(regs::kControl);                       // clears ap_done
            write_register(regs::kInterruptStatus, regs::kInterruptDone);  // toggle-on-write: clears it
        }
        const auto& port = counters.port;
        stats.fm_read_bytes = port[regs::kFmRead].bytes + port[regs::kFm8Read].bytes;
        stats.fm_read_bursts = port[regs::kFmRead].bursts + port[regs::kFm8Read].bursts;
        stats.fm_write_bytes = port[regs::kFmWrite].bytes + port[regs::kFm8Write].bytes;
        stats.fm_write_bursts = port[regs::kFmWrite].bursts + port[regs::kFm8Write].bursts;
        stats.param_read_bytes = port[regs::kParams].bytes;
        stats.param_read_bursts = port[regs::kParams].bursts;
        stats.cycles = counters.cycles;
        std::lock_guard<std::mutex> lock(mutex_);
        control_ = control;
        if ((control & regs::kApDone) == 0 || (control & regs::kApIdle) == 0) {
            faulted_ = true;
            fault_ = "the interrupt rose but the control register reads " + std::to_string(control) +
                     " (ap_done and ap_idle expected): the RTL's control logic is broken";
        }
        return stats;
    }

    void worker_loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || (job_ && !job_done_); });
            if (stop_) return;
            const Job job = *job_;
            lock.unlock();
            bool stopped = false;
            CommandStats stats;
            try {
                stats = simulate(job, stopped);
            } catch (const Error& e) {
                std::lock_guard<std::mutex> relock(mutex_);
                faulted_ = true;
                fault_ = e.what();
            }
            stats.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
            lock.lock();
            if (stopped) return;
            result_ = stats;
            job_done_ = true;
            cv_.notify_all();
        }
    }

    RtlOptions options_;
    std::shared_ptr<Simulation> simulation_;
    const std::shared_ptr<const void> token_ = std::make_shared<int>(0);  // marks this device's buffers
    std::string label_;
    bool address64_ = true;
    KernelFingerprint fingerprint_;
    bool fingerprint_known_ = false;
    std::uint64_t next_address_ = kFirstBusAddress;  // under simulation_->mutex

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::optional<Job> job_;  // started and not yet waited for
    bool job_done_ = false;
    bool stop_ = false;
    bool faulted_ = false;
    std::string fault_;
    std::uint64_t cycles_so_far_ = 0;
    Clock::time_point started_;
    CommandStats result_;
    std::uint32_t control_ = regs::kApIdle;
    std::uint64_t completed_ = 0;
    std::uint64_t bytes_read_ = 0;
    std::uint64_t bytes_written_ = 0;
    std::thread worker_;
};

}  // namespace

std::unique_ptr<Device> make_rtl_device(const RtlOptions& options) {
    return std::make_unique<RtlDevice>(options);
}

}  // namespace fpgacnn
