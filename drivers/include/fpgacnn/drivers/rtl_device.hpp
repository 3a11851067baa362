// The rtl device: the kernel's RTL (kernels/rtl) simulated cycle by cycle by a Verilated model, behind
// the same Device interface as the emu, xrt and uio drivers. The model is a shared object per kernel
// build (libfpgacnn_rtl_<build>.so, kernels/rtl/sim/fpgacnn_rtl_sim.h) loaded at open; the driver
// writes the IP's AXI-Lite registers as the uio driver does, runs the clock until the IP's interrupt,
// and reports the cycles and AXI traffic of every command. Host and device share the buffers (as a
// u-dma-buf does); an AXI memory model gives the masters a latency and a bandwidth.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/device.hpp"
#include "fpgacnn/export.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn {

/// The AXI memory the simulated kernel sees (fpgacnn_rtl_memory_model).
struct FPGACNN_API RtlMemoryModel {
    std::string name;                     ///< "zedboard", "alveo"
    std::uint32_t read_latency = 0;       ///< cycles from an accepted AR to the first R beat
    std::uint32_t write_latency = 0;      ///< cycles from the last W beat to B
    std::uint32_t outstanding_reads = 0;  ///< read bursts in flight per master
    std::uint32_t bytes_per_cycle = 0;    ///< DDR bandwidth shared by the masters, bytes per kernel clock
    double clock_mhz = 0;                 ///< the kernel clock cycles are counted at
    std::string basis;                    ///< where the numbers come from (docs, --list-devices)
};

/// The named memory models, the first being the default: a Zynq-7000 HP port onto the Zedboard's
/// DDR3 at the seed's 150 MHz, and an Alveo DDR4 bank at 300 MHz.
FPGACNN_API const std::vector<RtlMemoryModel>& rtl_memory_models();

/// The planner's options for a kernel build with `maxima` on `memory`: its clock, DDR bandwidth,
/// latencies and reads in flight, so the planner predicts the cycles the simulation counts.
FPGACNN_API PlanOptions rtl_plan_options(const RtlMemoryModel& memory, const KernelMaxima& maxima);

/// Which simulated kernel build the rtl device loads, and the memory it sees.
struct FPGACNN_API RtlOptions {
    /// A build name (libfpgacnn_rtl_<build>.so in the search folders: $FPGACNN_RTL_DIR, the build
    /// tree, the installed library folder) or a path to such an object.
    std::string build = "small";
    RtlMemoryModel memory = rtl_memory_models().front();  ///< the AXI memory model (default: zedboard)
};

/// Every --device value of the rtl driver.
inline constexpr const char* kRtlSpecGrammar = "rtl[:BUILD|:PATH.so][:mem=zedboard|alveo]";
/// The options an rtl spec asks for; throws Error naming the spec and the grammar when malformed.
FPGACNN_API RtlOptions parse_rtl_spec(const std::string& spec);

/// The path of a build's shared object; throws Error naming every folder searched when there is none.
FPGACNN_API std::string find_rtl_build(const std::string& build);

/// Opens the simulation: loads the build, resets the model, reads its fingerprint with the identify
/// command. Throws Error when the build cannot be found or loaded, DeviceError when it does not answer
/// as an fpgacnn kernel of this arithmetic contract.
FPGACNN_API std::unique_ptr<Device> make_rtl_device(const RtlOptions& options);
/// make_rtl_device(parse_rtl_spec(spec)).
FPGACNN_API std::unique_ptr<Device> open_rtl_device(const std::string& spec);
/// One line per build found in the search folders (usable when it loads).
FPGACNN_API std::vector<DeviceInfo> list_rtl_devices();

}  // namespace fpgacnn
