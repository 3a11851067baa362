// Per-layer wall-clock times of a CPU backend as Backend::layer_times reports them.
#pragma once

#include <vector>

#include "fpgacnn/backend.hpp"

namespace fpgacnn {

inline std::vector<LayerTiming> host_layer_times(const std::vector<double>& milliseconds) {
    std::vector<LayerTiming> times(milliseconds.size());
    for (std::size_t i = 0; i < milliseconds.size(); ++i) {
        times[i].layer = static_cast<int>(i);
        times[i].milliseconds = milliseconds[i];
    }
    return times;
}

}  // namespace fpgacnn
