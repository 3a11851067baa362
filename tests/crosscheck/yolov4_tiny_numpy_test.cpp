// YOLOv4-tiny (cfg/yolov4-tiny.cfg, written from AlexeyAB's published cfg) on the float path against
// tests/crosscheck/numpy_darknet_reference.py, an independent numpy forward pass: Debian's libdarknet
// (pjreddie's) has neither [route] groups nor [yolo] scale_x_y, the two features YOLOv4-tiny adds.
// Synthetic weights, darknet's dog.jpg letterboxed to 416x416, every layer compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "crosscheck_models.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/float_engine.hpp"
#include "tensor_diff.hpp"
#include "test_paths.hpp"

namespace fpgacnn::crosscheck {
namespace {

constexpr std::uint64_t kSeed = 20200425;  // any fixed seed: both sides read the same file

void write_floats(const std::string& path, const std::vector<float>& values) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(float)));
    ASSERT_TRUE(out.good()) << path;
}

std::vector<float> read_floats(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const auto bytes = static_cast<std::size_t>(in.tellg());
    std::vector<float> values(bytes / sizeof(float));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(float)));
    return values;
}

TEST(YoloV4TinyNumpy, EveryLayerMatchesTheNumpyReference) {
    const std::string cfg = test::source_dir() + "/cfg/yolov4-tiny.cfg";
    const std::filesystem::path scratch = test::scratch_dir("yolov4-tiny-numpy");
    const std::string weights = (scratch / "synthetic.weights").string();
    {
        Network generated = load_darknet_cfg(cfg);
        fill_synthetic_weights(generated, kSeed);
        save_darknet_weights(generated, weights);
    }
    const Network network = load_darknet_model(cfg, weights);
    const Image input = letterboxed_sample("dog.jpg", network);
    write_floats((scratch / "input.f32").string(), input.data);

    const std::string output = (scratch / "layers.f32").string();
    std::string out;
    std::string err;
    const int status = test::run_command(
        "/usr/bin/python3 " + test::source_dir() + "/tests/crosscheck/numpy_darknet_reference.py " + cfg +
            " " + weights + " " + (scratch / "input.f32").string() + " " + output + " 416 416",
        &out, &err);
    ASSERT_EQ(status, 0) << out << err;
    const std::vector<float> reference = read_floats(output);

    FloatEngine engine(network);
    engine.run(input.data.data());
    std::size_t offset = 0;
    double worst_relative = 0;
    double heads = 0;
    for (const Layer& layer : network.layers) {
        const std::vector<float>& ours = engine.layer_output(layer.index);
        ASSERT_LE(offset + ours.size(), reference.size()) << "layer " << layer.index;
        const std::vector<float> theirs(
            reference.begin() + static_cast<std::ptrdiff_t>(offset),
            reference.begin() + static_cast<std::ptrdiff_t>(offset + ours.size()));
        offset += ours.size();
        const TensorDiff diff = compare_tensors(ours, theirs);
        const double scale = std::max(1.0, diff.max_abs_reference);
        EXPECT_LE(diff.max_abs_diff, 1e-4 * scale)
            << "layer " << layer.index << " (" << layer_type_name(layer.type)
            << "): " << describe(diff, "numpy");
        worst_relative = std::max(worst_relative, diff.max_abs_diff / scale);
        if (layer.type == LayerType::Yolo) {
            EXPECT_LE(diff.max_abs_diff, 1e-4)
                << "yolo layer " << layer.index << ": " << describe(diff, "numpy");
            heads = std::max(heads, diff.max_abs_diff);
        }
    }
    EXPECT_EQ(offset, reference.size());
    std::cout << "[ measured ] yolov4-tiny vs numpy: yolo heads max |diff| " << heads
              << ", worst layer max |diff| / max(1, max|x|) " << worst_relative << "\n";
}

}  // namespace
}  // namespace fpgacnn::crosscheck
