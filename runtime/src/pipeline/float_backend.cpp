// The float reference path behind the Backend interface.
#include "pipeline/float_backend.hpp"

#include <cstring>

#include "pipeline/layer_times.hpp"

namespace fpgacnn {

FloatBackend::FloatBackend(const Network& network) : engine_(network) {}

const std::vector<float>& FloatBackend::run(const float* input) { return engine_.run(input); }

std::vector<float> FloatBackend::layer_output(int i) const { return engine_.layer_output(i); }

std::vector<LayerTiming> FloatBackend::layer_times() const {
    return host_layer_times(engine_.layer_milliseconds());
}

std::string FloatBackend::name() const { return "cpu (float32 reference, OpenBLAS)"; }

}  // namespace fpgacnn
