// Reading and writing .weights: both header versions, round trips, and the broken-file corpus.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

// small_cfg_text(): conv0 has 8 biases + 3*8 BN + 8*3*3*3 weights = 248 floats, conv2 has
// 30 biases + 30*8 weights = 270 floats.
constexpr std::size_t kSmallCfgFloats = 248 + 270;

class WeightsIo : public ::testing::Test {
protected:
    std::string dir = test::scratch_dir(std::string("weights_io_") +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::string cfg = test::write_text_file(dir, "small.cfg", test::small_cfg_text());

    Network synthetic_network(std::uint64_t seed = 1) {
        Network net = load_darknet_cfg(cfg);
        fill_synthetic_weights(net, seed);
        return net;
    }
    std::string saved_weights(const std::string& name = "small.weights") {
        const std::string path = dir + "/" + name;
        save_darknet_weights(synthetic_network(), path);
        return path;
    }
    std::string load_error(const std::string& weights) {
        Network net = load_darknet_cfg(cfg);
        return test::error_message([&] { load_darknet_weights(net, weights); });
    }
};

std::vector<float> all_parameters(const Network& net) {
    std::vector<float> values;
    for (const Layer& layer : net.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& c = layer.conv();
        for (const auto* array : {&c.biases, &c.bn_scales, &c.bn_mean, &c.bn_variance, &c.weights}) {
            values.insert(values.end(), array->begin(), array->end());
        }
    }
    return values;
}

// A file with darknet's layout and the given header, holding 0, 1, 2, ... as parameters.
std::vector<unsigned char> counting_file(int major, int minor, bool seen64, std::size_t floats) {
    std::vector<unsigned char> bytes;
    test::append_u32(bytes, static_cast<std::uint32_t>(major));
    test::append_u32(bytes, static_cast<std::uint32_t>(minor));
    test::append_u32(bytes, 0);
    test::append_u32(bytes, 12345);
    if (seen64) test::append_u32(bytes, 0);
    for (std::size_t i = 0; i < floats; ++i) test::append_float(bytes, static_cast<float>(i));
    return bytes;
}

TEST_F(WeightsIo, ExpectedBytesUsesThe20ByteHeader) {
    EXPECT_EQ(expected_weights_bytes(load_darknet_cfg(cfg)), 20 + 4 * kSmallCfgFloats);
}

TEST_F(WeightsIo, RoundTripIsExact) {
    const Network original = synthetic_network(5);
    const std::string path = dir + "/round.weights";
    save_darknet_weights(original, path);
    EXPECT_EQ(fs::file_size(path), expected_weights_bytes(original));
    const std::vector<unsigned char> bytes = test::read_bytes(path);
    ASSERT_GE(bytes.size(), 20u);
    EXPECT_EQ(std::vector<unsigned char>(bytes.begin(), bytes.begin() + 20),
              (std::vector<unsigned char>{0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));

    Network loaded = load_darknet_cfg(cfg);
    load_darknet_weights(loaded, path);
    EXPECT_TRUE(loaded.weights_loaded);
    EXPECT_EQ(loaded.weights_path, path);
    EXPECT_EQ(all_parameters(loaded), all_parameters(original));
    // Saving what was loaded reproduces the file byte for byte.
    save_darknet_weights(loaded, dir + "/again.weights");
    EXPECT_EQ(test::read_bytes(dir + "/again.weights"), bytes);
}

TEST_F(WeightsIo, SaveLeavesNoTemporaryFiles) {
    saved_weights();
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"small.cfg", "small.weights"}));
}

TEST_F(WeightsIo, Header01Has32BitSeen) {
    const std::string path = dir + "/v01.weights";
    test::write_bytes(path, counting_file(0, 1, false, kSmallCfgFloats));
    Network net = load_darknet_cfg(cfg);
    load_darknet_weights(net, path);
    const ConvParams& conv0 = net.layers[0].conv();
    EXPECT_EQ(conv0.biases.front(), 0.0f);
    EXPECT_EQ(conv0.bn_scales.front(), 8.0f);
    EXPECT_EQ(conv0.bn_mean.front(), 16.0f);
    EXPECT_EQ(conv0.bn_variance.front(), 24.0f);
    EXPECT_EQ(conv0.weights.front(), 32.0f);
    EXPECT_EQ(net.layers[2].conv().biases.front(), 248.0f);
    EXPECT_EQ(net.layers[2].conv().weights.back(), static_cast<float>(kSmallCfgFloats - 1));
}

TEST_F(WeightsIo, Header02Has64BitSeen) {
    const std::string path = dir + "/v02.weights";
    test::write_bytes(path, counting_file(0, 2, true, kSmallCfgFloats));
    Network net = load_darknet_cfg(cfg);
    load_darknet_weights(net, path);
    EXPECT_EQ(net.layers[0].conv().biases.front(), 0.0f);
    EXPECT_EQ(net.layers[2].conv().weights.back(), static_cast<float>(kSmallCfgFloats - 1));
    // Versions 1.0 and later also use a 64-bit seen (major*10 + minor >= 2).
    test::write_bytes(path, counting_file(1, 0, true, kSmallCfgFloats));
    load_darknet_weights(net, path);
    EXPECT_EQ(net.layers[2].conv().weights.back(), static_cast<float>(kSmallCfgFloats - 1));
}

TEST_F(WeightsIo, TruncatedFileNamesExpectedActualAndLayer) {
    const std::string path = saved_weights();
    std::vector<unsigned char> bytes = test::read_bytes(path);
    bytes.resize(bytes.size() - 100);
    test::write_bytes(path, bytes);
    const std::string expected = std::to_string(20 + 4 * kSmallCfgFloats);
    const std::string actual = std::to_string(bytes.size());
    EXPECT_THAT(load_error(path),
                AllOf(HasSubstr(path + ": truncated weights"), HasSubstr("expected " + expected + " bytes"),
                      HasSubstr("the file has " + actual + " bytes"),
                      HasSubstr("runs out in convolutional layer 2 (cfg line 19)")));
    bytes.resize(200);  // inside conv 0 (which ends at 20 + 4*248 = 1012)
    test::write_bytes(path, bytes);
    EXPECT_THAT(load_error(path), HasSubstr("runs out in convolutional layer 0 (cfg line 6)"));
    bytes.resize(18);
    test::write_bytes(path, bytes);
    EXPECT_THAT(load_error(path),
                AllOf(HasSubstr("the file has 18 bytes"), HasSubstr("ends inside the header")));
}

TEST_F(WeightsIo, ExtraBytes) {
    const std::string path = saved_weights();
    std::vector<unsigned char> bytes = test::read_bytes(path);
    bytes.resize(bytes.size() + 8, 0);
    test::write_bytes(path, bytes);
    EXPECT_THAT(load_error(path), AllOf(HasSubstr(path + ": extra bytes"),
                                        HasSubstr("expected " + std::to_string(bytes.size() - 8) + " bytes"),
                                        HasSubstr("the file has " + std::to_string(bytes.size()) + " bytes"),
                                        HasSubstr("8 bytes too many"), HasSubstr("different cfg")));
}

TEST_F(WeightsIo, WrongHeader) {
    const std::string path = dir + "/junk.weights";
    test::write_bytes(path, counting_file(1234, 2, true, kSmallCfgFloats));
    EXPECT_THAT(load_error(path),
                AllOf(HasSubstr(path + ": header version 1234.2.0 is not a darknet"), HasSubstr("0.2.0")));
    test::write_bytes(path, counting_file(-1, 0, true, kSmallCfgFloats));
    EXPECT_THAT(load_error(path), HasSubstr("header version -1.0.0"));
    test::write_text_file(dir, "junk.weights", "GIF89a this is an image, not weights......");
    EXPECT_THAT(load_error(path), HasSubstr("is not a darknet .weights header"));
}

TEST_F(WeightsIo, EmptyAndTinyFiles) {
    const std::string path = test::write_text_file(dir, "empty.weights", "");
    EXPECT_THAT(load_error(path), AllOf(HasSubstr(path + ": the file has 0 bytes"), HasSubstr("too short")));
    test::write_text_file(dir, "empty.weights", "abc");
    EXPECT_THAT(load_error(path), HasSubstr("the file has 3 bytes"));
}

TEST_F(WeightsIo, MissingFileNamesThePath) {
    const std::string path = dir + "/nowhere.weights";
    EXPECT_THAT(load_error(path), AllOf(HasSubstr(path), HasSubstr("does not exist")));
    EXPECT_THAT(load_error(dir), HasSubstr("is not a regular file"));
}

TEST_F(WeightsIo, NonFiniteValueNamesTheLayer) {
    const std::string path = dir + "/nan.weights";
    std::vector<unsigned char> bytes = counting_file(0, 2, true, kSmallCfgFloats);
    // Float 300 is in conv 2's weights (conv 2 starts at float 248, its weights at 278).
    std::vector<unsigned char> nan_bytes;
    test::append_float(nan_bytes, std::numeric_limits<float>::quiet_NaN());
    std::copy(nan_bytes.begin(), nan_bytes.end(), bytes.begin() + 20 + 4 * 300);
    test::write_bytes(path, bytes);
    Network net = load_darknet_cfg(cfg);
    const std::string message = test::error_message([&] { load_darknet_weights(net, path); });
    EXPECT_THAT(message, AllOf(HasSubstr(path + ": convolutional layer 2 (cfg line 19): weights[22] is nan"),
                               HasSubstr("corrupt")));
    EXPECT_FALSE(net.weights_loaded);
    EXPECT_TRUE(net.layers[0].conv().weights.empty()) << "a failed load must leave the network untouched";
}

TEST_F(WeightsIo, HugeAndInfiniteValuesNameTheLayerAndIndex) {
    // 3e38 is finite, but it overflows the first layer's sums to inf and the region's scores to NaN:
    // no detections and no error. Such values are refused like NaN, naming the array and index.
    const std::string path = dir + "/huge.weights";
    for (const float value : {3e38f, -2e6f, std::numeric_limits<float>::infinity()}) {
        std::vector<unsigned char> bytes = counting_file(0, 2, true, kSmallCfgFloats);
        std::vector<unsigned char> huge;
        test::append_float(huge, value);
        std::copy(huge.begin(), huge.end(), bytes.begin() + 20 + 4 * 2);  // conv 0's biases[2]
        test::write_bytes(path, bytes);
        const std::string message = load_error(path);
        EXPECT_THAT(message, AllOf(HasSubstr(path + ": convolutional layer 0 (cfg line 6): biases[2] is "),
                                   HasSubstr("corrupt")));
        if (std::isfinite(value)) {
            EXPECT_THAT(message, HasSubstr("beyond the limit of 1e6"));
        }
    }
}

TEST_F(WeightsIo, NegativeVarianceIsRejected) {
    const std::string path = dir + "/negvar.weights";
    std::vector<unsigned char> bytes = counting_file(0, 2, true, kSmallCfgFloats);
    std::vector<unsigned char> negative;
    test::append_float(negative, -1.0f);
    std::copy(negative.begin(), negative.end(), bytes.begin() + 20 + 4 * 25);  // variance[1] of conv 0
    test::write_bytes(path, bytes);
    EXPECT_THAT(load_error(path),
                HasSubstr("convolutional layer 0 (cfg line 6): batch-norm rolling variance[1] is negative"));
}

TEST_F(WeightsIo, CannotSaveAFoldedNetwork) {
    Network net = synthetic_network();
    fold_batchnorm(net);
    const std::string path = dir + "/folded.weights";
    EXPECT_THAT(test::error_message([&] { save_darknet_weights(net, path); }),
                AllOf(HasSubstr("cannot save a folded network"), HasSubstr("convolutional layer 0")));
    EXPECT_FALSE(fs::exists(path));
}

TEST_F(WeightsIo, CannotSaveWithoutWeights) {
    const Network net = load_darknet_cfg(cfg);
    EXPECT_THAT(test::error_message([&] { save_darknet_weights(net, dir + "/none.weights"); }),
                HasSubstr("load or fill the weights first"));
}

TEST_F(WeightsIo, SaveIntoMissingFolderFailsCleanly) {
    const std::string path = dir + "/no/such/folder/x.weights";
    EXPECT_THAT(test::error_message([&] { save_darknet_weights(synthetic_network(), path); }),
                AllOf(HasSubstr(path), HasSubstr("folder exists")));
}

TEST_F(WeightsIo, LoadModelFoldsBatchnorm) {
    const Network net = load_darknet_model(cfg, saved_weights());
    EXPECT_TRUE(net.weights_loaded);
    EXPECT_TRUE(net.layers[0].conv().bn_folded());
    EXPECT_TRUE(net.layers[0].conv().bn_variance.empty());
    EXPECT_EQ(net.layers[0].conv().weights.size(), 216u);
}

}  // namespace
}  // namespace fpgacnn
