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
    // The ports as beats (port_beat.hpp); natively port_io.hpp touches only a run's elements, through
    // int16_t / int8_t pointers again (int8_t is a character type: the byte-wide ports may view the
    // int16 arena).
    return detail::run_command(
        command, reinterpret_cast<const WordBeat*>(fm_read), reinterpret_cast<WordBeat*>(fm_write),
        reinterpret_cast<const ByteBeat*>(fm_read), reinterpret_cast<ByteBeat*>(fm_write),
        reinterpret_cast<const WordBeat*>(params), traffic);
}

Maxima native_build_maxima() { return compiled_maxima(); }

}  // namespace kernel
}  // namespace fpgacnn
