// Slave models of the kernel's AXI4 masters, one per master, cycle by cycle: read bursts return
// their first beat read_latency cycles after AR and then one beat a cycle while the shared DDR budget
// allows; write bursts take a beat a cycle and answer B write_latency cycles after their last beat.
// The models see the master's pins as plain values (the Verilated model's fields are copied in and
// out by fpgacnn_rtl_sim.cpp), so they do not depend on a particular build.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "axi_memory.hpp"
#include "fpgacnn_rtl_sim.h"

namespace fpgacnn::rtl {

/// A read master's outputs, sampled before the clock edge, and the inputs the model drives.
struct ReadPins {
    bool arvalid = false;
    uint64_t araddr = 0;
    unsigned arlen = 0, arsize = 0, arburst = 0;
    bool rready = false;
};
struct ReadDrive {
    bool arready = false;
    bool rvalid = false;
    uint64_t rdata = 0;  // up to 64-bit masters
    bool rlast = false;
};

struct WritePins {
    bool awvalid = false;
    uint64_t awaddr = 0;
    unsigned awlen = 0, awsize = 0, awburst = 0;
    bool wvalid = false;
    uint64_t wdata = 0;
    unsigned wstrb = 0;
    bool wlast = false;
    bool bready = false;
};
struct WriteDrive {
    bool awready = false;
    bool wready = false;
    bool bvalid = false;
};

class ReadPort {
public:
    ReadPort(const char* name, unsigned element_bytes) : name_(name), bytes_(element_bytes) {}

    /// The edge: handshakes of this cycle take effect. Returns false on a bus fault (`error`).
    bool clock(const ReadPins& pins, const ReadDrive& drive, const AxiMemory& memory,
               const fpgacnn_rtl_memory_model& model, uint64_t now, fpgacnn_rtl_port_counters& counters,
               BandwidthBudget& budget, std::string& error);
    /// The inputs for the next cycle (reserves the budget for an offered beat).
    ReadDrive drive(const AxiMemory& memory, const fpgacnn_rtl_memory_model& model, uint64_t now,
                    BandwidthBudget& budget);
    bool busy() const { return !bursts_.empty(); }

private:
    struct Burst {
        uint64_t address;
        unsigned beats;
        unsigned done;
        uint64_t ready_at;
    };
    const char* name_;
    unsigned bytes_;
    std::deque<Burst> bursts_;
    bool offered_ = false;  // a beat is on the bus this cycle (its budget taken)
};

class WritePort {
public:
    WritePort(const char* name, unsigned element_bytes) : name_(name), bytes_(element_bytes) {}

    bool clock(const WritePins& pins, const WriteDrive& drive, const AxiMemory& memory,
               const fpgacnn_rtl_memory_model& model, uint64_t now, fpgacnn_rtl_port_counters& counters,
               BandwidthBudget& budget, std::string& error);
    WriteDrive drive(const fpgacnn_rtl_memory_model& model, uint64_t now, BandwidthBudget& budget);
    bool busy() const { return !bursts_.empty() || !responses_.empty(); }

private:
    struct Burst {
        uint64_t address;
        unsigned beats;
        unsigned done;
    };
    const char* name_;
    unsigned bytes_;
    std::deque<Burst> bursts_;        // AW accepted, W beats still to come
    std::deque<uint64_t> responses_;  // B due at these cycles
    bool offered_ = false;
};

}  // namespace fpgacnn::rtl
