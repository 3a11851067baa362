// darknet's reorg on int16 (the index formula lives in core/darknet_reorg.hpp, see
// docs/darknet-semantics.md). A pure permutation, so the exponent is unchanged.
#include "core/darknet_reorg.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

void int16_reorg(const Layer& layer, const int16_t* input, int16_t* output) {
    const std::string what = int16_detail::describe_layer(layer);
    if (layer.type != LayerType::Reorg) throw Error("int16_reorg called on " + what);
    detail::darknet_reorg(layer, input, output, what);
}

}  // namespace fpgacnn
