// fold_batchnorm must give what darknet's inference computes from the unfolded parameters:
//     y = (conv - mean) / (sqrt(var) + .000001f) * scale + bias
#include <cmath>

#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

// A fixed linear congruential generator keeps the test's inputs identical everywhere.
class TestRandom {
public:
    float uniform(float low, float high) {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return low + (high - low) * static_cast<float>(state_ >> 40) / 16777216.0f;
    }

private:
    std::uint64_t state_ = 42;
};

// Direct convolution of one output position, accumulated in double so that only the folding differs.
double conv_at(const Layer& layer, const std::vector<float>& input, int f, int y, int x) {
    const ConvParams& conv = layer.conv();
    double sum = 0.0;
    for (int c = 0; c < layer.input.c; ++c) {
        for (int ky = 0; ky < conv.size; ++ky) {
            for (int kx = 0; kx < conv.size; ++kx) {
                const int iy = y * conv.stride + ky - conv.pad;
                const int ix = x * conv.stride + kx - conv.pad;
                if (iy < 0 || ix < 0 || iy >= layer.input.h || ix >= layer.input.w) continue;
                const float w =
                    conv.weights[((static_cast<std::size_t>(f) * layer.input.c + c) * conv.size + ky) *
                                     conv.size +
                                 kx];
                sum += static_cast<double>(w) *
                       input[(static_cast<std::size_t>(c) * layer.input.h + iy) * layer.input.w + ix];
            }
        }
    }
    return sum;
}

// darknet's normalize_cpu + scale_bias + add_bias, with C's promotions: sqrt() is the double one.
float darknet_batchnorm(float x, float mean, float variance, float scale, float bias) {
    const float normalized =
        static_cast<float>((x - mean) / (std::sqrt(static_cast<double>(variance)) + .000001f));
    return normalized * scale + bias;
}

class BatchnormFold : public ::testing::Test {
protected:
    std::string dir = test::scratch_dir("batchnorm_fold");
    Network net = load_darknet_cfg(test::write_text_file(dir, "small.cfg", test::small_cfg_text()));
    TestRandom random;

    void SetUp() override {
        fill_synthetic_weights(net, 3);
        // Trained-looking batch-norm values, including the tiny variances real models have.
        ConvParams& conv = net.layers[0].conv();
        for (std::size_t f = 0; f < conv.bn_scales.size(); ++f) {
            conv.bn_scales[f] = random.uniform(0.2f, 3.0f);
            conv.bn_mean[f] = random.uniform(-2.0f, 2.0f);
            conv.bn_variance[f] = f == 0 ? 0.0091f : random.uniform(0.01f, 20.0f);
            conv.biases[f] = random.uniform(-1.0f, 1.0f);
        }
    }
};

TEST_F(BatchnormFold, MatchesDarknetFormulaOnRandomInput) {
    const Layer unfolded = net.layers[0];
    const ConvParams& bn = unfolded.conv();
    std::vector<float> input(net.input.size());
    for (float& value : input) value = random.uniform(0.0f, 1.0f);

    fold_batchnorm(net);
    const Layer& folded = net.layers[0];
    ASSERT_TRUE(folded.conv().bn_folded());
    double worst = 0.0;
    for (int f = 0; f < folded.output.c; ++f) {
        for (int y = 0; y < folded.output.h; ++y) {
            for (int x = 0; x < folded.output.w; ++x) {
                const float expected =
                    darknet_batchnorm(static_cast<float>(conv_at(unfolded, input, f, y, x)), bn.bn_mean[f],
                                      bn.bn_variance[f], bn.bn_scales[f], bn.biases[f]);
                const double actual = conv_at(folded, input, f, y, x) + folded.conv().biases[f];
                const double error =
                    std::fabs(actual - expected) / std::max(1.0, std::fabs(double{expected}));
                worst = std::max(worst, error);
            }
        }
    }
    EXPECT_LT(worst, 1e-5) << "largest relative difference from darknet's unfolded batch-norm";
}

TEST_F(BatchnormFold, ClearsBatchnormAndIsIdempotent) {
    fold_batchnorm(net);
    const ConvParams& conv = net.layers[0].conv();
    EXPECT_TRUE(conv.bn_folded());
    EXPECT_TRUE(conv.bn_scales.empty());
    EXPECT_TRUE(conv.bn_mean.empty());
    EXPECT_TRUE(conv.bn_variance.empty());
    const std::vector<float> weights = conv.weights;
    const std::vector<float> biases = conv.biases;
    fold_batchnorm(net);
    EXPECT_EQ(net.layers[0].conv().weights, weights);
    EXPECT_EQ(net.layers[0].conv().biases, biases);
}

TEST_F(BatchnormFold, LeavesLayersWithoutBatchnormAlone) {
    const ConvParams before = net.layers[2].conv();
    ASSERT_FALSE(before.batch_normalize);
    fold_batchnorm(net);
    EXPECT_EQ(net.layers[2].conv().weights, before.weights);
    EXPECT_EQ(net.layers[2].conv().biases, before.biases);
    EXPECT_FALSE(net.layers[2].conv().bn_folded());
}

TEST_F(BatchnormFold, AnOverflowToInfinityNamesTheLayerAndIndex) {
    // Parameters set through the API (the weights reader already refuses values above 1e6): a zero
    // variance multiplies weight 5 by scale / 1e-6 and overflows the float range.
    ConvParams& conv = net.layers[0].conv();
    conv.bn_variance[0] = 0.0f;
    conv.bn_scales[0] = 1e6f;
    conv.weights[5] = 3e38f;
    EXPECT_THAT(test::error_message([&] { fold_batchnorm(net); }),
                ::testing::AllOf(::testing::HasSubstr("convolutional layer 0 (cfg line 6)"),
                                 ::testing::HasSubstr("weights[5] inf"), ::testing::HasSubstr("corrupt")));
}

}  // namespace
}  // namespace fpgacnn
