// The models every cross-check runs on, and how both sides (fpgacnn and libdarknet) get loaded from
// exactly the same files.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"
#include "fpgacnn/vision.hpp"
#include "test_paths.hpp"

namespace fpgacnn::crosscheck {

struct ModelSpec {
    std::string name;          // usable as a GoogleTest parameter name
    std::string cfg_path;      // empty when shared/ is absent (needs_shared_models)
    std::string weights_path;  // empty: synthetic weights, generated per test run
    std::string names_path;
    int input_size = 0;  // 0: the cfg's own width/height
    bool needs_shared_models = false;
};

ModelSpec yolo_lite_voc();
ModelSpec yolo_lite_voc_bn();
ModelSpec yolo_lite_coco();
/// Debian's yolov2-tiny.cfg / yolov2.cfg at 416x416 with deterministic synthetic weights.
ModelSpec yolov2_tiny_synthetic();
ModelSpec yolov2_synthetic();
/// Debian's yolov3-tiny.cfg at 416x416 and yolov3.cfg at 320x320 / 416x416, synthetic weights.
ModelSpec yolov3_tiny_synthetic();
ModelSpec yolov3_320_synthetic();
ModelSpec yolov3_416_synthetic();

/// darknet's classifier cfgs with synthetic weights, at small square inputs: darknet19.cfg at 64x64
/// (avgpool, softmax), resnet50.cfg at 64x64 (shortcuts with activations, avgpool), alexnet.cfg at
/// 131x131 (connected, dropout, relu), tiny.cfg at 64x64.
ModelSpec darknet19_synthetic();
ModelSpec resnet50_synthetic();
ModelSpec alexnet_synthetic();
ModelSpec tiny_classifier_synthetic();
/// tests/crosscheck/classifier_layers.cfg (crop, connected with batch-norm, dropout, softmax groups and
/// temperature, cost) at its own 40x40, synthetic weights.
ModelSpec classifier_layers_synthetic();

/// A model ready for both sides: our network (weights loaded, batch-norm folded) and the .weights
/// file that darknet reads — for synthetic models the file we generated, so both use the same bytes.
struct PreparedModel {
    Network network;
    std::string cfg_path;
    std::string weights_path;
    int width = 0;  // input-size override for darknet (0: the cfg's own)
    int height = 0;
    std::vector<std::string> class_names;
};

PreparedModel prepare_model(const ModelSpec& spec);

/// Our load_image + letterbox_image of a darknet sample image to the network's input size: the one
/// input blob that both sides are fed.
Image letterboxed_sample(const std::string& image_name, const Network& network);

/// GoogleTest's printer for parameter values (otherwise it dumps the struct's bytes).
void PrintTo(const ModelSpec& spec, std::ostream* out);

/// For INSTANTIATE_TEST_SUITE_P: names each instance after its model.
std::string model_param_name(const testing::TestParamInfo<ModelSpec>& info);

/// Skips (visibly) a test whose model lives in shared/ when shared/ is absent.
#define CROSSCHECK_REQUIRE_MODEL(spec)                                   \
    do {                                                                 \
        if ((spec).needs_shared_models) FPGACNN_REQUIRE_SHARED_MODELS(); \
    } while (0)

}  // namespace fpgacnn::crosscheck
