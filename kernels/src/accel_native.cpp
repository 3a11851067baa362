// The native entry point of the kernel (emu device, tests): the same layer code as the HLS top,
// instantiated with AXI traffic counting.
#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "run_command.hpp"

namespace fpgacnn {
namespace kernel {

CommandCheck run_layer(const LayerCommand& command, const int16_t* fm_read, int16_t* fm_write,
                       const int16_t* params, TrafficCounters* counters) {
    TrafficCounters scratch = {0, 0, 0, 0, 0, 0};
    detail::CountTraffic traffic;
    traffic.counters = counters != nullptr ? counters : &scratch;
    // int8_t is a character type: the byte-wide ports may view the int16 arena.
    return detail::run_command(command, fm_read, fm_write, reinterpret_cast<const int8_t*>(fm_read),
                               reinterpret_cast<int8_t*>(fm_write), params, traffic);
}

Maxima native_build_maxima() { return compiled_maxima(); }

}  // namespace kernel
}  // namespace fpgacnn
