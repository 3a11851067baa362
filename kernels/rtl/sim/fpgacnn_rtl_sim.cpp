// The C interface of fpgacnn_rtl_sim.h over one Verilated build of fpgacnn_accel: the clock, the
// AXI-Lite register accesses, and the slave models of the five masters (axi_ports.hpp) on the mapped
// host memory (axi_memory.hpp). The build's maxima come from CMake as FPGACNN_RTL_* definitions.
#include "fpgacnn_rtl_sim.h"

#include <verilated.h>

#include <cstdio>
#include <memory>
#include <new>
#include <string>

#include "Vfpgacnn_accel.h"
#include "axi_memory.hpp"
#include "axi_ports.hpp"
#ifdef FPGACNN_RTL_TRACE
#include <verilated_vcd_c.h>

#include <cstdlib>
#endif

#define FPGACNN_RTL_STR2(x) #x
#define FPGACNN_RTL_STR(x) FPGACNN_RTL_STR2(x)

namespace {

using fpgacnn::rtl::AxiMemory;
using fpgacnn::rtl::BandwidthBudget;
using fpgacnn::rtl::ReadDrive;
using fpgacnn::rtl::ReadPins;
using fpgacnn::rtl::ReadPort;
using fpgacnn::rtl::WriteDrive;
using fpgacnn::rtl::WritePins;
using fpgacnn::rtl::WritePort;

constexpr uint64_t kLiteTimeout = 1000;
constexpr int kResetCycles = 5;
// Bytes a beat of the word-wide masters (fm_read, fm_write, params); the byte-wide ones: half.
constexpr unsigned kWordPortBytes = FPGACNN_RTL_PORT_BITS / 8;
static_assert(FPGACNN_RTL_PORT_BITS >= 16 && FPGACNN_RTL_PORT_BITS <= 64,
              "the port models carry beats of up to 64 bits (Verilator's wider ports are arrays)");

// Copies one master's pins between the Verilated model and the port models.
#define FPGACNN_READ_PINS(top, port)                                                      \
    ReadPins {                                                                            \
        (top)->m_##port##_arvalid != 0, static_cast<uint64_t>((top)->m_##port##_araddr),  \
            (top)->m_##port##_arlen, (top)->m_##port##_arsize, (top)->m_##port##_arburst, \
            (top)->m_##port##_rready != 0                                                 \
    }
#define FPGACNN_APPLY_READ(top, port, d)         \
    do {                                         \
        (top)->m_##port##_arready = (d).arready; \
        (top)->m_##port##_rvalid = (d).rvalid;   \
        (top)->m_##port##_rdata = (d).rdata;     \
        (top)->m_##port##_rlast = (d).rlast;     \
        (top)->m_##port##_rresp = 0;             \
    } while (0)
#define FPGACNN_WRITE_PINS(top, port)                                                            \
    WritePins {                                                                                  \
        (top)->m_##port##_awvalid != 0, static_cast<uint64_t>((top)->m_##port##_awaddr),         \
            (top)->m_##port##_awlen, (top)->m_##port##_awsize, (top)->m_##port##_awburst,        \
            (top)->m_##port##_wvalid != 0, static_cast<uint64_t>((top)->m_##port##_wdata),       \
            (top)->m_##port##_wstrb, (top)->m_##port##_wlast != 0, (top)->m_##port##_bready != 0 \
    }
#define FPGACNN_APPLY_WRITE(top, port, d)        \
    do {                                         \
        (top)->m_##port##_awready = (d).awready; \
        (top)->m_##port##_wready = (d).wready;   \
        (top)->m_##port##_bvalid = (d).bvalid;   \
        (top)->m_##port##_bresp = 0;             \
    } while (0)

}  // namespace

struct fpgacnn_rtl_sim {
    std::unique_ptr<VerilatedContext> context;
    std::unique_ptr<Vfpgacnn_accel> top;
    fpgacnn_rtl_memory_model model{};
    AxiMemory memory;
    BandwidthBudget budget{0, kWordPortBytes};
    ReadPort fm_read{"fm_read", kWordPortBytes}, params{"params", kWordPortBytes},
        fm8_read{"fm8_read", kWordPortBytes / 2};
    WritePort fm_write{"fm_write", kWordPortBytes}, fm8_write{"fm8_write", kWordPortBytes / 2};
    ReadDrive fm_read_drive, params_drive, fm8_read_drive;
    WriteDrive fm_write_drive, fm8_write_drive;
    fpgacnn_rtl_counters counters{};
    uint64_t now = 0;  // cycles since create (the memory model's clock)
    std::string error;
    bool faulted = false;
#ifdef FPGACNN_RTL_TRACE
    std::unique_ptr<VerilatedVcdC> trace;
#endif

    /// One clock cycle: inputs applied, handshakes sampled, rising edge, models advanced.
    bool tick() {
        Vfpgacnn_accel* t = top.get();
        FPGACNN_APPLY_READ(t, fm_read, fm_read_drive);
        FPGACNN_APPLY_READ(t, params, params_drive);
        FPGACNN_APPLY_READ(t, fm8_read, fm8_read_drive);
        FPGACNN_APPLY_WRITE(t, fm_write, fm_write_drive);
        FPGACNN_APPLY_WRITE(t, fm8_write, fm8_write_drive);
        t->clk = 0;
        t->eval();
#ifdef FPGACNN_RTL_TRACE
        if (trace) trace->dump(2 * now);
#endif
        const ReadPins fm_read_pins = FPGACNN_READ_PINS(t, fm_read);
        const ReadPins params_pins = FPGACNN_READ_PINS(t, params);
        const ReadPins fm8_read_pins = FPGACNN_READ_PINS(t, fm8_read);
        const WritePins fm_write_pins = FPGACNN_WRITE_PINS(t, fm_write);
        const WritePins fm8_write_pins = FPGACNN_WRITE_PINS(t, fm8_write);
        t->clk = 1;
        t->eval();
#ifdef FPGACNN_RTL_TRACE
        if (trace) trace->dump(2 * now + 1);
#endif
        ++now;
        ++counters.cycles;
        bool ok =
            fm_read.clock(fm_read_pins, fm_read_drive, memory, model, now, counters.port[0], budget, error) &&
            fm_write.clock(fm_write_pins, fm_write_drive, memory, model, now, counters.port[1], budget,
                           error) &&
            params.clock(params_pins, params_drive, memory, model, now, counters.port[2], budget, error) &&
            fm8_read.clock(fm8_read_pins, fm8_read_drive, memory, model, now, counters.port[3], budget,
                           error) &&
            fm8_write.clock(fm8_write_pins, fm8_write_drive, memory, model, now, counters.port[4], budget,
                            error);
        if (!ok) {
            faulted = true;
            return false;
        }
        // The next cycle's inputs; the DDR budget goes round the ports, starting at a rotating one so
        // that no master starves another.
        budget.refill();
        const unsigned first = static_cast<unsigned>(now % FPGACNN_RTL_PORTS);
        for (unsigned i = 0; i < FPGACNN_RTL_PORTS; ++i) {
            switch ((first + i) % FPGACNN_RTL_PORTS) {
                case 0:
                    fm_read_drive = fm_read.drive(memory, model, now, budget);
                    break;
                case 1:
                    fm_write_drive = fm_write.drive(model, now, budget);
                    break;
                case 2:
                    params_drive = params.drive(memory, model, now, budget);
                    break;
                case 3:
                    fm8_read_drive = fm8_read.drive(memory, model, now, budget);
                    break;
                default:
                    fm8_write_drive = fm8_write.drive(model, now, budget);
                    break;
            }
        }
        return true;
    }
};

extern "C" {

int fpgacnn_rtl_abi_version(void) { return FPGACNN_RTL_SIM_ABI_VERSION; }

const char* fpgacnn_rtl_build_text(void) {
    return "Tm=" FPGACNN_RTL_STR(FPGACNN_RTL_TM) " Tn=" FPGACNN_RTL_STR(FPGACNN_RTL_TN) " Tr=" FPGACNN_RTL_STR(
        FPGACNN_RTL_TR) " Tc=" FPGACNN_RTL_STR(FPGACNN_RTL_TC) " K<=" FPGACNN_RTL_STR(FPGACNN_RTL_MAX_K) " S<=" FPGACNN_RTL_STR(FPGACNN_RTL_MAX_S) " pairs=" FPGACNN_RTL_STR(FPGACNN_RTL_INT8_PAIRS) " word=" FPGACNN_RTL_STR(FPGACNN_RTL_PORT_BITS) " addr=" FPGACNN_RTL_STR(FPGACNN_RTL_ADDR_BITS);
}

int fpgacnn_rtl_address64(void) { return FPGACNN_RTL_ADDR_BITS == 64 ? 1 : 0; }

fpgacnn_rtl_sim* fpgacnn_rtl_create(const fpgacnn_rtl_memory_model* model) {
    auto* sim = new (std::nothrow) fpgacnn_rtl_sim;
    if (sim == nullptr) return nullptr;
    sim->context = std::make_unique<VerilatedContext>();
    sim->context->fatalOnError(false);
    sim->top = std::make_unique<Vfpgacnn_accel>(sim->context.get());
    if (model != nullptr) sim->model = *model;
    if (sim->model.outstanding_reads == 0) sim->model.outstanding_reads = 1;
    sim->budget = BandwidthBudget(sim->model.bytes_per_cycle, kWordPortBytes);
#ifdef FPGACNN_RTL_TRACE
    if (const char* path = std::getenv("FPGACNN_RTL_VCD")) {
        sim->context->traceEverOn(true);
        sim->trace = std::make_unique<VerilatedVcdC>();
        sim->top->trace(sim->trace.get(), 99);
        sim->trace->open(path);
    }
#endif
    Vfpgacnn_accel* t = sim->top.get();
    t->rst_n = 0;
    t->s_axi_control_awvalid = 0;
    t->s_axi_control_wvalid = 0;
    t->s_axi_control_bready = 0;
    t->s_axi_control_arvalid = 0;
    t->s_axi_control_rready = 0;
    for (int i = 0; i < kResetCycles; ++i) sim->tick();
    t->rst_n = 1;
    // The IP brings rst_n into its clock domain through two flip-flops: a few more cycles.
    for (int i = 0; i < kResetCycles; ++i) sim->tick();
    fpgacnn_rtl_reset_counters(sim);
    return sim;
}

void fpgacnn_rtl_destroy(fpgacnn_rtl_sim* sim) {
    if (sim == nullptr) return;
#ifdef FPGACNN_RTL_TRACE
    if (sim->trace) sim->trace->close();
#endif
    sim->top->final();
    delete sim;
}

int fpgacnn_rtl_map(fpgacnn_rtl_sim* sim, uint64_t address, void* host, uint64_t bytes) {
    return sim->memory.map(address, host, bytes, sim->error) ? 0 : -1;
}

int fpgacnn_rtl_unmap(fpgacnn_rtl_sim* sim, uint64_t address) {
    if (sim->memory.unmap(address)) return 0;
    char text[96];
    std::snprintf(text, sizeof text, "nothing is mapped at bus address 0x%llx",
                  static_cast<unsigned long long>(address));
    sim->error = text;
    return -1;
}

int fpgacnn_rtl_write_register(fpgacnn_rtl_sim* sim, uint32_t offset, uint32_t value) {
    Vfpgacnn_accel* t = sim->top.get();
    t->s_axi_control_awvalid = 1;
    t->s_axi_control_awaddr = static_cast<uint16_t>(offset);  // REG_ADDR_BITS (9) wide
    t->s_axi_control_wvalid = 1;
    t->s_axi_control_wdata = value;
    t->s_axi_control_wstrb = 0xF;
    t->s_axi_control_bready = 1;
    bool address_taken = false, data_taken = false;
    for (uint64_t cycle = 0; cycle < kLiteTimeout; ++cycle) {
        t->clk = 0;
        t->eval();
        const bool aw = t->s_axi_control_awvalid && t->s_axi_control_awready;
        const bool w = t->s_axi_control_wvalid && t->s_axi_control_wready;
        const bool b = t->s_axi_control_bvalid && (address_taken || aw) && (data_taken || w);
        if (!sim->tick()) return -1;
        address_taken = address_taken || aw;
        data_taken = data_taken || w;
        if (address_taken) t->s_axi_control_awvalid = 0;
        if (data_taken) t->s_axi_control_wvalid = 0;
        if (b) {
            t->s_axi_control_bready = 0;
            return 0;
        }
    }
    sim->error = "AXI-Lite write: the slave did not answer within 1000 cycles";
    return -1;
}

int fpgacnn_rtl_read_register(fpgacnn_rtl_sim* sim, uint32_t offset, uint32_t* value) {
    Vfpgacnn_accel* t = sim->top.get();
    t->s_axi_control_arvalid = 1;
    t->s_axi_control_araddr = static_cast<uint16_t>(offset);
    t->s_axi_control_rready = 1;
    bool address_taken = false;
    for (uint64_t cycle = 0; cycle < kLiteTimeout; ++cycle) {
        t->clk = 0;
        t->eval();
        const bool ar = t->s_axi_control_arvalid && t->s_axi_control_arready;
        const bool r = t->s_axi_control_rvalid && address_taken;
        const uint32_t data = t->s_axi_control_rdata;
        if (!sim->tick()) return -1;
        address_taken = address_taken || ar;
        if (address_taken) t->s_axi_control_arvalid = 0;
        if (r) {
            t->s_axi_control_rready = 0;
            *value = data;
            return 0;
        }
    }
    sim->error = "AXI-Lite read: the slave did not answer within 1000 cycles";
    return -1;
}

int fpgacnn_rtl_run(fpgacnn_rtl_sim* sim, uint64_t max_cycles) {
    if (sim->faulted) return -1;
    for (uint64_t cycle = 0; cycle < max_cycles; ++cycle) {
        sim->top->clk = 0;
        sim->top->eval();
        if (sim->top->__SYM__interrupt) return 0;
        if (!sim->tick()) return -1;
    }
    sim->top->clk = 0;
    sim->top->eval();
    return sim->top->__SYM__interrupt ? 0 : 1;
}

void fpgacnn_rtl_read_counters(const fpgacnn_rtl_sim* sim, fpgacnn_rtl_counters* counters) {
    *counters = sim->counters;
}

void fpgacnn_rtl_reset_counters(fpgacnn_rtl_sim* sim) { sim->counters = fpgacnn_rtl_counters{}; }

const char* fpgacnn_rtl_last_error(const fpgacnn_rtl_sim* sim) { return sim->error.c_str(); }

}  // extern "C"
