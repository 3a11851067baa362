// The float path (FloatEngine) against darknet's forward pass on darknet's classifier cfgs with
// synthetic weights, layer by layer: [connected] (as a 1x1 conv over the flattened input), [avgpool],
// [softmax], [dropout], and the resnet shortcuts with activations.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "crosscheck_models.hpp"
#include "darknet_reference.hpp"
#include "fpgacnn/float_engine.hpp"
#include "tensor_diff.hpp"

namespace fpgacnn::crosscheck {
namespace {

// The probabilities are in 0..1; intermediate layers reach magnitudes in the tens, where summation
// order (OpenBLAS vs darknet's gemm) matters relative to that magnitude.
constexpr double kProbabilityTolerance = 1e-4;
double intermediate_tolerance(const TensorDiff& diff) { return 1e-4 * std::max(1.0, diff.max_abs_reference); }

std::string darknet_type_of(const Layer& layer) {
    if (layer.type == LayerType::Convolutional && layer.conv().connected) return "connected";
    return layer_type_name(layer.type);
}

class ClassifierCrosscheck : public testing::TestWithParam<ModelSpec> {};

TEST_P(ClassifierCrosscheck, EveryLayerAndTheProbabilitiesMatchDarknet) {
    const ModelSpec& spec = GetParam();
    const PreparedModel model = prepare_model(spec);
    DarknetReference darknet(model.cfg_path, model.weights_path, model.width, model.height);
    const Network& network = model.network;
    ASSERT_TRUE(network.is_classifier());
    ASSERT_EQ(darknet.layer_count(), static_cast<int>(network.layers.size()));

    const Image input = letterboxed_sample("dog.jpg", network);
    ASSERT_EQ(input.data.size(), darknet.input_size());
    FloatEngine engine(network);
    engine.run(input.data.data());
    darknet.predict(input.data);

    std::ostringstream table;
    int first_failure = -1;
    for (int i = 0; i < darknet.layer_count(); ++i) {
        const Layer& layer = network.layers[i];
        const ReferenceLayerInfo info = darknet.layer_info(i);
        ASSERT_EQ(info.type, darknet_type_of(layer)) << "layer " << i;
        ASSERT_EQ(info.outputs, layer.output.size()) << "layer " << i;
        // darknet's cost layer leaves its output buffer at zero outside training.
        if (layer.type == LayerType::Cost) continue;
        const TensorDiff diff = compare_tensors(engine.layer_output(i), darknet.layer_output(i));
        table << "  layer " << i << " " << info.type << ": " << describe(diff) << "\n";
        if (first_failure < 0 && !(diff.max_abs_diff <= intermediate_tolerance(diff))) first_failure = i;
    }
    EXPECT_EQ(first_failure, -1) << "first layer beyond 1e-4 * max(1, max|x|): " << first_failure << "\n"
                                 << table.str();

    // network_predict's result: the softmax (darknet's get_network_output skips a [cost]).
    const int output = network.output_layer_indices().front();
    const std::vector<float> probabilities = darknet.layer_output(output);
    const TensorDiff diff = compare_tensors(engine.layer_output(output), probabilities);
    EXPECT_LE(diff.max_abs_diff, kProbabilityTolerance) << describe(diff);
    // The same top class (synthetic weights spread the probabilities, but not evenly).
    const auto ours = engine.layer_output(output);
    const auto top = [](const std::vector<float>& p) {
        return std::max_element(p.begin(), p.end()) - p.begin();
    };
    EXPECT_EQ(top(ours), top(probabilities));
    std::cout << "[ measured ] " << spec.name << ": probabilities max |diff| " << diff.max_abs_diff
              << ", top-1 probability " << *std::max_element(ours.begin(), ours.end()) << "\n";
}

INSTANTIATE_TEST_SUITE_P(Models, ClassifierCrosscheck,
                         testing::Values(classifier_layers_synthetic(), darknet19_synthetic(),
                                         resnet50_synthetic(), tiny_classifier_synthetic(),
                                         alexnet_synthetic()),
                         model_param_name);

}  // namespace
}  // namespace fpgacnn::crosscheck
