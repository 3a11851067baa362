// The float reference path behind the Backend interface.
#include "pipeline/float_backend.hpp"

#include <cstring>

#include "pipeline/layer_times.hpp"

namespace fpgacnn {

FloatBackend::FloatBackend(const Network& network)
    : engine_(network), output_layers_(network.output_layer_indices()) {}

const std::vector<float>& FloatBackend::run(const float* input) {
    const std::vector<float>& last = engine_.run(input);
    const int last_layer = static_cast<int>(engine_.network().layers.size()) - 1;
    if (output_layers_.size() == 1 && output_layers_.front() == last_layer) return last;
    heads_.clear();
    for (const int i : output_layers_) {
        const std::vector<float>& head = engine_.layer_output(i);
        heads_.insert(heads_.end(), head.begin(), head.end());
    }
    return heads_;
}

std::vector<float> FloatBackend::layer_output(int i) const { return engine_.layer_output(i); }

std::vector<LayerTiming> FloatBackend::layer_times() const {
    return host_layer_times(engine_.layer_milliseconds());
}

std::string FloatBackend::name() const { return "cpu (float32 reference, OpenBLAS)"; }

}  // namespace fpgacnn
