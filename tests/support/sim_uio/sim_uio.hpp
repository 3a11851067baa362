// A simulated fpgacnn IP behind UIO + u-dma-buf, for running the real uio driver (drivers/uio)
// without a board. It builds, under a test folder, the files the driver looks for:
//   sys/class/uio/uioN/{name,version,maps/map0/{addr,size,offset,name}}
//   dev/uioN              the register window: a regular file both sides mmap (MAP_SHARED)
//   dev/uioN.irq|.rearm   FIFOs standing in for the UIO interrupt (a regular file carries no events)
//   sys/class/u-dma-buf/udmabuf0/{phys_addr,size,sync_*,dma_coherent}, dev/udmabuf0 (a file)
//   proc/meminfo          CmaTotal / CmaFree
// and a thread that behaves as the IP: it sees ap_start, decodes the argument registers with
// kernel/register_map.hpp, translates the fake physical addresses into the u-dma-buf file, runs
// kernel::run_layer, sets ap_done | ap_idle and raises the interrupt when enabled (IER, GIE) and
// unmasked (re-armed by the driver's write of 1, as uio_pdrv_genirq does). Faults on demand.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace fpgacnn::test {

enum class SimFault {
    None,
    NeverFinish,       // the command never completes (until release_stall())
    WrongStatus,       // completes with a control bit the IP does not have (0x100) beside done | idle
    WrongFingerprint,  // identify answers arithmetic contract v99
    SmallTiles,        // identify answers Tr = Tc = 8 (a smaller bitstream than the plan's)
    NotFpgacnn,        // identify writes nothing (another IP behind the same name)
};

/// "none", "never-finish", "wrong-status", "wrong-fingerprint", "small-tiles", "not-fpgacnn".
SimFault parse_sim_fault(const std::string& text);

struct SimUioOptions {
    std::string root;  // the tree is built under it
    std::string name = "fpgacnn_accel";
    int uio_index = 0;
    std::size_t register_bytes = 0x10000;
    bool address64 = sizeof(void*) == 8;
    bool interrupt = true;                  // false: no FIFOs, the driver has to poll
    std::size_t udmabuf_bytes = 16u << 20;  // 0: no u-dma-buf at all
    std::uint64_t phys_addr = 0x38000000;   // where the fake buffer "is" on the bus
    std::uint64_t cma_total_bytes = 128u << 20;
    std::uint64_t cma_free_bytes = 96u << 20;
    SimFault fault = SimFault::None;
    int fault_from_command = 0;  // first command (0 = the driver's identify) the fault hits
    int fault_commands = -1;     // how many commands it hits; -1: all from then on
};

class SimUio {
public:
    /// Builds the tree and starts the IP thread.
    explicit SimUio(SimUioOptions options);
    /// Stops the IP (a stalled command is abandoned) and removes nothing: the test folder goes.
    ~SimUio();
    SimUio(const SimUio&) = delete;
    SimUio& operator=(const SimUio&) = delete;

    /// The fault hits the next `count` commands (-1: all).
    void set_fault(SimFault fault, int count = -1);
    /// A command held by NeverFinish completes now (the stall clears).
    void release_stall();
    /// The device vanishes: dev/uioN, its FIFOs and sys/class/uio/uioN are removed, the interrupt
    /// writer closes, and the IP stops answering.
    void disappear();

    std::uint64_t commands_started() const { return started_.load(); }
    std::uint64_t commands_completed() const { return completed_.load(); }
    /// Commands whose buffer addresses fell outside the u-dma-buf (the IP then did nothing).
    std::uint64_t address_errors() const { return address_errors_.load(); }
    std::uint64_t interrupts_raised() const { return interrupts_.load(); }
    const SimUioOptions& options() const { return options_; }

private:
    void build_tree();
    void ip_loop();
    void process_host_writes();
    void run_command(SimFault fault);
    std::uint32_t reg(std::uint32_t offset) const;
    void set_reg(std::uint32_t offset, std::uint32_t value);
    SimFault take_fault();

    SimUioOptions options_;
    std::string dev_path_;
    std::string sys_dir_;
    std::uint32_t* registers_ = nullptr;
    std::uint8_t* dma_ = nullptr;
    int irq_fd_ = -1;
    int rearm_fd_ = -1;
    bool armed_ = false;
    std::uint32_t status_ = 0;  // the IP's ISR (the register itself is a write-to-clear mailbox)
    std::uint32_t interrupt_count_ = 0;

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    bool stop_ = false;
    bool stall_released_ = false;
    bool gone_ = false;
    SimFault fault_ = SimFault::None;
    int fault_from_ = 0;
    int fault_left_ = -1;
    std::atomic<std::uint64_t> started_{0};
    std::atomic<std::uint64_t> completed_{0};
    std::atomic<std::uint64_t> address_errors_{0};
    std::atomic<std::uint64_t> interrupts_{0};
    std::thread thread_;
};

}  // namespace fpgacnn::test
