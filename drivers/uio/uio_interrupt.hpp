// The UIO interrupt: read() returns the 32-bit interrupt count once the line fired; writing 1
// unmasks the line again (uio_pdrv_genirq masks it in the handler). On a board both go through the
// /dev/uioN character device. A simulated node (tests/support/sim_uio) is a regular file holding the
// register window, which cannot carry events, so the interrupt there is two FIFOs beside it:
// uioN.irq (the IP writes counts, the driver reads) and uioN.rearm (the driver writes 1). The
// driver code around them is the same.
#pragma once

#include <chrono>
#include <memory>
#include <string>

namespace fpgacnn::uio {

enum class InterruptWait { Fired, TimedOut, Gone };

class UioInterrupt {
public:
    /// The interrupt of the node at `dev_path`; nullptr with `why_not` set when it has none (then
    /// the driver polls the control register).
    static std::unique_ptr<UioInterrupt> open(const std::string& dev_path, std::string& why_not);
    ~UioInterrupt();
    UioInterrupt(const UioInterrupt&) = delete;
    UioInterrupt& operator=(const UioInterrupt&) = delete;

    /// Discards interrupts that fired before now (e.g. a command that finished after its deadline).
    void drain();
    /// Unmasks the line (writes 1). Throws Error when the node is gone.
    void arm();
    /// Waits up to `timeout` for the line to fire.
    InterruptWait wait(std::chrono::milliseconds timeout);
    std::string description() const { return description_; }

private:
    UioInterrupt(int read_fd, int write_fd, std::string description);
    int read_fd_;
    int write_fd_;  // == read_fd_ on a real UIO node
    std::string description_;
};

}  // namespace fpgacnn::uio
