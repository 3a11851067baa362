// Synthetic weights: identical on every machine for a seed, and scaled so deep networks stay sane.
// (Their effect on activations was checked against libdarknet on yolov2*.cfg: per-layer RMS stays
// within 0.45..1.0 and the [region] inputs within |x| < 4.2; the crosscheck tests run them.)
#include <cmath>
#include <numeric>

#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

using ::testing::HasSubstr;

struct Moments {
    double mean = 0.0;
    double std = 0.0;
    float min = 0.0f;
    float max = 0.0f;
};

Moments moments_of(const std::vector<float>& values) {
    Moments m;
    m.min = *std::min_element(values.begin(), values.end());
    m.max = *std::max_element(values.begin(), values.end());
    for (const float v : values) m.mean += v;
    m.mean /= static_cast<double>(values.size());
    for (const float v : values) m.std += (v - m.mean) * (v - m.mean);
    m.std = std::sqrt(m.std / static_cast<double>(values.size()));
    return m;
}

// 64-bit FNV-1a over the saved file: pins the exact values (and hence cross-machine determinism).
std::uint64_t fnv1a(const std::vector<unsigned char>& bytes) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const unsigned char byte : bytes) hash = (hash ^ byte) * 0x100000001b3ULL;
    return hash;
}

class SyntheticWeights : public ::testing::Test {
protected:
    std::string dir = test::scratch_dir(std::string("synthetic_") +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::string small_cfg = test::write_text_file(dir, "small.cfg", test::small_cfg_text());

    std::vector<unsigned char> saved_bytes(const std::string& cfg, std::uint64_t seed) {
        Network net = load_darknet_cfg(cfg);
        fill_synthetic_weights(net, seed);
        const std::string path = dir + "/seed" + std::to_string(seed) + ".weights";
        save_darknet_weights(net, path);
        return test::read_bytes(path);
    }
};

TEST_F(SyntheticWeights, SameSeedSameBytesDifferentSeedDifferentBytes) {
    const std::vector<unsigned char> first = saved_bytes(small_cfg, 7);
    EXPECT_EQ(saved_bytes(small_cfg, 7), first);
    const std::vector<unsigned char> other = saved_bytes(small_cfg, 8);
    ASSERT_EQ(other.size(), first.size());
    EXPECT_NE(other, first);
    // Headers agree, and nearly every parameter differs.
    std::size_t same_floats = 0;
    for (std::size_t i = 20; i < first.size(); i += 4) {
        same_floats +=
            std::equal(first.begin() + static_cast<long>(i), first.begin() + static_cast<long>(i) + 4,
                       other.begin() + static_cast<long>(i));
    }
    EXPECT_LT(same_floats, (first.size() - 20) / 4 / 10);
}

TEST_F(SyntheticWeights, ValuesAreIdenticalOnEveryMachine) {
    Network net = load_darknet_cfg(small_cfg);
    fill_synthetic_weights(net, 42);
    EXPECT_TRUE(net.weights_loaded);
    EXPECT_THAT(net.weights_path, HasSubstr("synthetic seed=42"));
    // Golden values: if the scheme changes on purpose, update them (and say so in the changelog).
    const ConvParams& conv0 = net.layers[0].conv();
    EXPECT_EQ(conv0.weights[0], -0x1.7be37ep-6f);
    EXPECT_EQ(conv0.weights[1], 0x1.fd207ep-3f);
    EXPECT_EQ(conv0.bn_variance[0], 0x1.10337cp+0f);
    EXPECT_EQ(fnv1a(saved_bytes(small_cfg, 42)), 12546724703029917950ULL);
}

TEST_F(SyntheticWeights, ScalesKeepActivationsSane) {
    Network net = load_darknet_cfg(test::darknet_file("cfg/yolov2-tiny.cfg"));
    fill_synthetic_weights(net, 1);
    const int region = net.region_layer_index();
    for (const Layer& layer : net.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        SCOPED_TRACE("layer " + std::to_string(layer.index));
        const ConvParams& conv = layer.conv();
        const double fan_in = static_cast<double>(layer.input.c) * conv.size * conv.size;
        const Moments w = moments_of(conv.weights);
        EXPECT_LT(std::fabs(w.mean), 0.1 * w.std);
        if (layer.index == region - 1) {
            // The linear head before [region]: unit gain keeps tx, ty, tw, th moderate for exp().
            EXPECT_NEAR(w.std * std::sqrt(fan_in), 1.0, 0.1);
        } else {
            // He initialisation for leaky ReLU: std = sqrt(2 / ((1 + 0.1^2) * fan_in)).
            EXPECT_NEAR(w.std / std::sqrt(2.0 / fan_in), 1.0 / std::sqrt(1.01), 0.1);
        }
        const Moments b = moments_of(conv.biases);
        EXPECT_LE(std::max(std::fabs(b.min), std::fabs(b.max)), 0.1f);
        if (!conv.batch_normalize) continue;
        const Moments scales = moments_of(conv.bn_scales);
        const Moments means = moments_of(conv.bn_mean);
        const Moments variances = moments_of(conv.bn_variance);
        EXPECT_GE(scales.min, 0.9f);
        EXPECT_LE(scales.max, 1.1f);
        EXPECT_LE(std::max(std::fabs(means.min), std::fabs(means.max)), 0.1f);
        EXPECT_GE(variances.min, 0.8f);
        EXPECT_LE(variances.max, 1.2f);
        EXPECT_NEAR(variances.mean, 1.0, 0.05);
    }
}

TEST_F(SyntheticWeights, FileSizeMatchesExpectedBytes) {
    Network net = load_darknet_cfg(test::darknet_file("cfg/yolov2-tiny.cfg"));
    fill_synthetic_weights(net, 1);
    const std::string path = dir + "/tiny.weights";
    save_darknet_weights(net, path);
    EXPECT_EQ(test::read_bytes(path).size(), expected_weights_bytes(net));
    EXPECT_EQ(expected_weights_bytes(net), 20u + 4u * 11237145u);  // yolov2-tiny.cfg: 11,237,145 parameters
}

}  // namespace
}  // namespace fpgacnn
