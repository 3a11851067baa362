// darknet's reorg on float (the index formula lives in core/darknet_reorg.hpp).
#include "core/darknet_reorg.hpp"
#include "float/layer_checks.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

void reorg_forward(const Layer& layer, const float* input, float* output) {
    detail::require_layer_type(layer, LayerType::Reorg, "reorg_forward");
    detail::darknet_reorg(layer, input, output, detail::describe_layer(layer));
}

}  // namespace fpgacnn
