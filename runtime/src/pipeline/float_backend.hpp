#pragma once

#include <vector>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/float_engine.hpp"

namespace fpgacnn {

class FloatBackend final : public Backend {
public:
    explicit FloatBackend(const Network& network);
    const std::vector<float>& run(const float* input) override;
    std::vector<float> layer_output(int i) const override;
    std::string name() const override;
    std::vector<LayerTiming> layer_times() const override;

private:
    FloatEngine engine_;
    std::vector<int> output_layers_;  // Network::output_layer_indices()
    std::vector<float> heads_;        // the yolo heads' outputs one after the other (multi-head nets)
};

}  // namespace fpgacnn
