// The float path (FloatEngine) against darknet's forward pass on one and the same input blob, layer
// by layer: trained YOLO-LITE models (with and without batch-norm folding) and the full YOLOv2 /
// YOLOv2-tiny cfgs (route, reorg) and YOLOv3-tiny / YOLOv3 (upsample, shortcut, yolo heads) with
// synthetic weights.
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

// The [region] output mixes logistic/softmax values in 0..1 with raw w/h terms of a few units.
constexpr double kRegionTolerance = 1e-4;
// Intermediate layers can reach magnitudes in the hundreds; summation order (OpenBLAS vs darknet's
// gemm) then matters relative to that magnitude.
double intermediate_tolerance(const TensorDiff& diff) { return 1e-4 * std::max(1.0, diff.max_abs_reference); }

class RegionOutputCrosscheck : public testing::TestWithParam<ModelSpec> {};

TEST_P(RegionOutputCrosscheck, EveryLayerMatchesDarknet) {
    const ModelSpec& spec = GetParam();
    CROSSCHECK_REQUIRE_MODEL(spec);
    const PreparedModel model = prepare_model(spec);
    DarknetReference darknet(model.cfg_path, model.weights_path, model.width, model.height);
    const Network& network = model.network;
    ASSERT_EQ(darknet.layer_count(), static_cast<int>(network.layers.size()));

    const Image input = letterboxed_sample("dog.jpg", network);
    ASSERT_EQ(input.data.size(), darknet.input_size());
    FloatEngine engine(network);
    engine.run(input.data.data());
    darknet.predict(input.data);

    std::ostringstream table;
    int first_failure = -1;
    TensorDiff first_failure_diff;
    double worst_relative = 0;
    for (int i = 0; i < darknet.layer_count(); ++i) {
        const Layer& layer = network.layers[i];
        const ReferenceLayerInfo info = darknet.layer_info(i);
        ASSERT_EQ(info.type, layer_type_name(layer.type)) << "layer " << i;
        ASSERT_EQ((TensorShape{info.out_c, info.out_h, info.out_w}), layer.output) << "layer " << i;
        const std::vector<float>& ours = engine.layer_output(i);
        const std::vector<float> reference = darknet.layer_output(i);
        ASSERT_EQ(ours.size(), reference.size()) << "layer " << i;

        const TensorDiff diff = compare_tensors(ours, reference);
        const double tolerance = intermediate_tolerance(diff);
        worst_relative = std::max(worst_relative, diff.max_abs_diff / std::max(1.0, diff.max_abs_reference));
        table << "  layer " << i << " " << info.type << ": " << describe(diff) << "\n";
        if (first_failure < 0 && !(diff.max_abs_diff <= tolerance)) {
            first_failure = i;
            first_failure_diff = diff;
        }
    }
    EXPECT_EQ(first_failure, -1) << "first layer beyond 1e-4 * max(1, max|x|): layer " << first_failure
                                 << " (" << layer_type_name(network.layers[std::max(first_failure, 0)].type)
                                 << "), " << describe(first_failure_diff) << "\nall layers:\n"
                                 << table.str();

    // The detector's output: the [region] layer, or every [yolo] head.
    double output_diff = 0;
    for (const int i : network.output_layer_indices()) {
        const TensorDiff region = compare_tensors(engine.layer_output(i), darknet.layer_output(i));
        EXPECT_LE(region.max_abs_diff, kRegionTolerance) << "output layer " << i << ": " << describe(region);
        output_diff = std::max(output_diff, region.max_abs_diff);
    }
    RecordProperty("region_max_abs_diff", std::to_string(output_diff));
    RecordProperty("worst_layer_relative_diff", std::to_string(worst_relative));
    std::cout << "[ measured ] " << spec.name << ": output layers max |diff| " << output_diff
              << ", worst layer max |diff| / max(1, max|x|) " << worst_relative << "\n";
}

INSTANTIATE_TEST_SUITE_P(Models, RegionOutputCrosscheck,
                         testing::Values(yolo_lite_voc(), yolo_lite_voc_bn(), yolo_lite_coco(),
                                         yolov2_tiny_synthetic(), yolov2_synthetic(), yolov3_tiny_synthetic(),
                                         yolov3_320_synthetic(), yolov3_416_synthetic()),
                         model_param_name);

}  // namespace
}  // namespace fpgacnn::crosscheck
