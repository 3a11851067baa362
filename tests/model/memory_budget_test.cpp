// The memory budget: a cfg that needs more memory than the machine has is refused while parsing,
// with the numbers, instead of ending in std::bad_alloc when weights or activations are allocated.
#include <cstdlib>

#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Sets (or clears) FPGACNN_MEMORY_LIMIT for one test.
class ScopedMemoryLimit {
public:
    explicit ScopedMemoryLimit(const char* value) {
        if (value != nullptr) {
            ::setenv("FPGACNN_MEMORY_LIMIT", value, 1);
        } else {
            ::unsetenv("FPGACNN_MEMORY_LIMIT");
        }
    }
    ~ScopedMemoryLimit() { ::unsetenv("FPGACNN_MEMORY_LIMIT"); }
    ScopedMemoryLimit(const ScopedMemoryLimit&) = delete;
    ScopedMemoryLimit& operator=(const ScopedMemoryLimit&) = delete;
};

// 42 GB of activations: 20 layers of 4096x4096x32 floats (2 GiB each) at 4096x4096.
std::string huge_activation_cfg() {
    std::string text = "[net]\nwidth=4096\nheight=4096\nchannels=3\n";
    for (int i = 0; i < 20; ++i) text += "[convolutional]\nfilters=32\nsize=1\nactivation=leaky\n";
    return text;
}

class MemoryBudget : public ::testing::Test {
protected:
    std::string dir = test::scratch_dir(std::string("memory_budget_") +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
};

TEST_F(MemoryBudget, EstimateCountsWeightsActivationsAndWorkspace) {
    const Network network = load_darknet_cfg(test::write_text_file(dir, "small.cfg", test::small_cfg_text()));
    const NetworkMemory memory = estimate_network_memory(network);
    // conv 0: 8 filters x (3*3*3 weights + bias + 3 BN) ; conv 2: 30 x (8 + 1).
    EXPECT_EQ(memory.weights, 4u * (8 * (27 + 1 + 3) + 30 * (8 + 1)));
    EXPECT_EQ(memory.activations, 4u * (32 * 32 * 8 + 16 * 16 * 8 + 16 * 16 * 30 + 16 * 16 * 30));
    EXPECT_EQ(memory.workspace, 4u * 27 * 32 * 32);
}

TEST_F(MemoryBudget, ACfgNeedingMoreThanTheLimitIsRefusedWithTheNumbers) {
    const ScopedMemoryLimit limit("1G");
    const std::string path = test::write_text_file(dir, "huge.cfg", huge_activation_cfg());
    EXPECT_THAT(test::error_message([&] { load_darknet_cfg(path); }),
                AllOf(HasSubstr(path + " at 4096x4096 needs 2.0 GiB"),
                      HasSubstr("the largest layer's input and output 2.0 GiB"),
                      HasSubstr("only 1.0 GiB are available (FPGACNN_MEMORY_LIMIT=1G)"),
                      HasSubstr("smaller --input")));
    const ScopedMemoryLimit off("off");
    EXPECT_EQ(load_darknet_cfg(path).layers.size(), 20u) << "the check can be switched off";
}

// A board runs from the cfg and a quantized model: the cfg is checked against what every path needs
// (int16 parameters, one layer's input and output), the float weights only when they are read.
TEST_F(MemoryBudget, AQuantizedRunFitsWhereTheFloatWeightsWouldNot) {
    const std::string path = test::write_text_file(
        dir, "wide.cfg",
        "[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=1024\nsize=1\nactivation=leaky\n"
        "[convolutional]\nfilters=1024\nsize=3\npad=1\nactivation=leaky\n");
    Network network = load_darknet_cfg(path);
    const NetworkMemory memory = estimate_network_memory(network);
    EXPECT_EQ(memory.quantized_parameters, 2u * (1024 * (3 + 1) + 1024 * (1024 * 9 + 1)));
    EXPECT_EQ(memory.largest_layer_io, 2u * (8 * 8 * 1024 + 8 * 8 * 1024));
    EXPECT_LT(memory.minimum(), 30ull << 20);
    EXPECT_GT(memory.weights, 30ull << 20);  // 9.4 M float weights
    const std::string weights = dir + "/wide.weights";
    fill_synthetic_weights(network, 1);
    save_darknet_weights(network, weights);

    const ScopedMemoryLimit limit("30M");
    Network reloaded = load_darknet_cfg(path);  // accepted: a quantized model of it fits
    EXPECT_THAT(
        test::error_message([&] { load_darknet_weights(reloaded, weights); }),
        AllOf(HasSubstr(weights + " needs 36.0 MiB"), HasSubstr("the float weights are read into memory"),
              HasSubstr("only 30.0 MiB are available (FPGACNN_MEMORY_LIMIT=30M)"), HasSubstr("--quantized")));
}

TEST_F(MemoryBudget, TerabytesOfWeightsAreRefusedAgainstMemAvailable) {
    const ScopedMemoryLimit unset(nullptr);
    const HostMemoryBudget budget = host_memory_budget();
    ASSERT_TRUE(budget.limited) << "this test needs /proc/meminfo";
    EXPECT_EQ(budget.source, "MemAvailable in /proc/meminfo");
    // 130 layers of 32767 x 65536 weights (8 GiB each as floats, just under the per-layer limit): 1 TiB,
    // of which every path holds at least the int16 half.
    std::string text = "[net]\nwidth=1\nheight=1\nchannels=65536\n";
    for (int i = 0; i < 65; ++i) {
        text += "[convolutional]\nfilters=32767\nsize=1\nactivation=leaky\n";
        text += "[convolutional]\nfilters=65536\nsize=1\nactivation=leaky\n";
    }
    const std::string path = test::write_text_file(dir, "heavy.cfg", text);
    EXPECT_THAT(test::error_message([&] { load_darknet_cfg(path); }),
                AllOf(HasSubstr("needs 520.0 GiB"), HasSubstr("int16 parameters 520.0 GiB"),
                      HasSubstr("(MemAvailable in /proc/meminfo)"), HasSubstr("FPGACNN_MEMORY_LIMIT")));
}

TEST_F(MemoryBudget, ABadLimitIsNamed) {
    const ScopedMemoryLimit limit("lots");
    EXPECT_THAT(test::error_message([] { host_memory_budget(); }),
                AllOf(HasSubstr("FPGACNN_MEMORY_LIMIT='lots' is not a size"), HasSubstr("8G")));
    const ScopedMemoryLimit huge("99999999999999T");
    EXPECT_THAT(test::error_message([] { host_memory_budget(); }), HasSubstr("is not a size"));
}

TEST_F(MemoryBudget, LimitsAcceptBinarySuffixes) {
    const ScopedMemoryLimit limit("512M");
    EXPECT_EQ(host_memory_budget().bytes, 512ull << 20);
    EXPECT_EQ(bytes_text(512ull << 20), "512.0 MiB");
    EXPECT_EQ(bytes_text(1000), "1000 bytes");
}

}  // namespace
}  // namespace fpgacnn
