// The C interface of a Verilated build of the kernel's RTL (kernels/rtl): one shared object per set of
// maxima (libfpgacnn_rtl_<name>.so), loaded with dlopen by the rtl device (drivers/rtl), as VTA's tsim
// loads its Verilated accelerator. The object holds the cycle-accurate model of the IP, the AXI memory
// its five masters see (host memory mapped at bus addresses, with a latency and bandwidth model) and
// the clock. A simulation is used by one thread at a time; separate simulations are independent.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Version of this interface; the driver refuses an object of another version.
#define FPGACNN_RTL_SIM_ABI_VERSION 1

/// The AXI memory behind the kernel's masters (one slave model per master, one DDR shared by all).
typedef struct fpgacnn_rtl_memory_model {
    uint32_t read_latency;       // cycles from an accepted AR to its first R beat
    uint32_t write_latency;      // cycles from a burst's last W beat to its B response
    uint32_t outstanding_reads;  // read bursts a master may have in flight (AR accepted, R not done)
    uint32_t bytes_per_cycle;    // bytes all masters together move per kernel clock; 0 = no limit
    double clock_mhz;            // the kernel clock the cycles are counted at (for reports only)
} fpgacnn_rtl_memory_model;

/// Traffic of one AXI master.
typedef struct fpgacnn_rtl_port_counters {
    uint64_t bursts;  // AR (read) or AW (write) handshakes
    uint64_t bytes;   // bytes the beats carried (write strobes counted)
    uint64_t beats;
} fpgacnn_rtl_port_counters;

/// Masters in the order of the register map's pointers (kernel/register_map.hpp regs::Pointer).
#define FPGACNN_RTL_PORTS 5

/// What the simulation counted since it was created or the counters were last reset.
typedef struct fpgacnn_rtl_counters {
    uint64_t cycles;  // clock cycles ticked
    fpgacnn_rtl_port_counters port[FPGACNN_RTL_PORTS];
} fpgacnn_rtl_counters;

typedef struct fpgacnn_rtl_sim fpgacnn_rtl_sim;

/// FPGACNN_RTL_SIM_ABI_VERSION of the object.
int fpgacnn_rtl_abi_version(void);
/// The build's parameters as text, e.g. "Tm=8 Tn=4 Tr=8 Tc=8 K<=3 S<=2 pairs=1 word=16 addr=64".
const char* fpgacnn_rtl_build_text(void);
/// Whether the model's AXI-Lite map uses 64-bit base addresses (1) or 32-bit ones (0).
int fpgacnn_rtl_address64(void);

/// A new simulation held in reset for a few cycles and then released; null when out of memory.
fpgacnn_rtl_sim* fpgacnn_rtl_create(const fpgacnn_rtl_memory_model* model);
void fpgacnn_rtl_destroy(fpgacnn_rtl_sim* sim);

/// Makes bus addresses [address, address + bytes) the host memory at `host` (no copy: the kernel's
/// reads and writes go straight to it). Ranges must not overlap. Returns 0, or -1 (see last_error).
int fpgacnn_rtl_map(fpgacnn_rtl_sim* sim, uint64_t address, void* host, uint64_t bytes);
/// Removes the range mapped at `address`. Returns 0, or -1 when nothing is mapped there.
int fpgacnn_rtl_unmap(fpgacnn_rtl_sim* sim, uint64_t address);

/// One AXI-Lite write / read, the clock running until the handshake completes (at most a few
/// cycles). Returns 0, or -1 when the slave does not answer within 1000 cycles.
int fpgacnn_rtl_write_register(fpgacnn_rtl_sim* sim, uint32_t offset, uint32_t value);
int fpgacnn_rtl_read_register(fpgacnn_rtl_sim* sim, uint32_t offset, uint32_t* value);

/// Runs the clock until the IP raises its interrupt line (the driver enables it: GIE and IER's done
/// bit) or `max_cycles` more cycles have passed. Returns 0 when the interrupt is high, 1 when the
/// cycles ran out first (the IP is still busy; calling again continues), -1 on a bus fault: an address
/// nothing is mapped at, a burst longer than 256 beats or crossing a 4 KiB boundary, an address not
/// aligned to the master's data width (see last_error). After a fault the simulation is unusable.
int fpgacnn_rtl_run(fpgacnn_rtl_sim* sim, uint64_t max_cycles);

/// The counters since create or the last reset.
void fpgacnn_rtl_read_counters(const fpgacnn_rtl_sim* sim, fpgacnn_rtl_counters* counters);
void fpgacnn_rtl_reset_counters(fpgacnn_rtl_sim* sim);

/// The last error as a sentence naming the master, the address and the rule; "" when none.
const char* fpgacnn_rtl_last_error(const fpgacnn_rtl_sim* sim);

#ifdef __cplusplus
}
#endif
