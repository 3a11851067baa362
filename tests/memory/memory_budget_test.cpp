// yolov2 at 416x416 held to the memory budget of a 512 MB board (issue 12, docs/boards.md "Memory"):
// fpgacnn-detect on the CPU int16 path, run from the cfg and the quantized model alone, may use at
// most 1.3x its packed weights + 32 MiB above the tool's start-up footprint (the peak RSS of
// `fpgacnn-detect --help`: the shared libraries). Peak RSS is the child's ru_maxrss from wait4().
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "test_paths.hpp"

extern char** environ;

namespace fpgacnn {
namespace {

#if defined(FPGACNN_SANITIZED) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

constexpr std::uint64_t kMiB = 1024 * 1024;

/// Runs argv to completion with its output discarded; returns its peak RSS in bytes (fails the test
/// when it cannot start or does not exit with 0).
std::uint64_t peak_rss_of(const std::vector<std::string>& arguments) {
    std::vector<char*> argv;
    argv.reserve(arguments.size() + 1);
    for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawned, 0) << arguments[0];
    if (spawned != 0) return 0;
    int status = 0;
    rusage usage{};
    EXPECT_EQ(wait4(pid, &status, 0, &usage), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << arguments[0] << " failed: status " << status;
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

std::uint64_t own_peak_rss() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

std::string app(const char* folder, const char* binary) { return test::app_path(folder, binary); }

/// yolov2 416's cfg, test image and quantized model (synthetic weights), made once for the suite.
class MemoryBudget : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (kSanitized || !std::filesystem::exists(cfg()) || !std::filesystem::exists(image())) return;
        const std::string dir = test::scratch_dir("memory_budget");
        const std::string weights = dir + "/yolov2-416.weights";
        model_ = dir + "/yolov2-416.fq16";
        ASSERT_GT(peak_rss_of({app("synth-weights", "fpgacnn-synth-weights"), "--cfg", cfg(), "--input",
                               "416x416", "--seed", "1", "--out", weights, "-q"}),
                  0u);
        ASSERT_GT(peak_rss_of({app("quantize", "fpgacnn-quantize"), "--cfg", cfg(), "--input", "416x416",
                               "--weights", weights, "--images", image(), "--out", model_, "-q"}),
                  0u);
        std::filesystem::remove(weights);  // the board has the cfg and the quantized model only
    }
    void SetUp() override {
        if (kSanitized)
            GTEST_SKIP() << "sanitizer build: its shadow memory inflates RSS, the budget means nothing";
        if (!std::filesystem::exists(cfg()) || !std::filesystem::exists(image()))
            GTEST_SKIP() << "Debian's darknet package (yolov2.cfg, dog.jpg) is not installed";
        ASSERT_FALSE(model_.empty()) << "the quantized model was not made";
    }
    static std::string cfg() { return test::darknet_file("cfg/yolov2.cfg"); }
    static std::string image() { return test::darknet_file("data/dog.jpg"); }

    /// Peak RSS of fpgacnn-detect on `device` from the cfg and the quantized model, minus its start-up
    /// footprint (the peak RSS of `fpgacnn-detect --help`).
    static std::uint64_t peak_above_startup(const std::string& device, const std::string& precision) {
        // A child's ru_maxrss starts from its parent's high-water mark (fork and posix_spawn's vfork copy
        // or share the parent's memory until exec), so the children run while this process is still
        // small, and that is checked: the start-up figure must exceed this process's own peak so far.
        const std::uint64_t own_peak = own_peak_rss();
        const std::string detect = app("detect", "fpgacnn-detect");
        const std::uint64_t startup = peak_rss_of({detect, "--help"});
        const std::uint64_t peak =
            peak_rss_of({detect, "--cfg", cfg(), "--input", "416x416", "--quantized", model_, "--device",
                         device, "--precision", precision, "-q", image()});
        EXPECT_LT(own_peak, startup) << "the test process was larger than the tool's start-up footprint; the "
                                        "children's peak RSS would be the test's";
        std::printf("yolov2 416, %s: peak RSS %.1f MiB, start-up %.1f MiB (this test: %.1f MiB)\n",
                    device.c_str(), static_cast<double>(peak) / kMiB, static_cast<double>(startup) / kMiB,
                    static_cast<double>(own_peak) / kMiB);
        return peak > startup ? peak - startup : 0;
    }

    /// The model as a board loads it (parameters left in the file), measured after the runs.
    static QuantizedNetwork quantized_model() {
        return load_quantized_network(model_, load_darknet_cfg(cfg(), parse_input_size("416x416")), nullptr,
                                      ParameterLoading::OnDemand);
    }

    static std::string model_;
};

std::string MemoryBudget::model_;

TEST_F(MemoryBudget, Yolov2Int16OnTheCpuFitsItsBudget) {
    const std::uint64_t above = peak_above_startup("cpu", "int16");
    // What the CPU int16 path keeps: its packed weights (measured with the same library, after the run).
    std::uint64_t packed = 0;
    {
        const QuantizedNetwork quantized = quantized_model();
        packed = Int16Engine(quantized).packed_parameter_bytes();
    }
    const double budget = 1.3 * static_cast<double>(packed) + 32.0 * kMiB;
    std::printf(
        "cpu int16: above start-up %.1f MiB; packed weights %.1f MiB, budget 1.3x + 32 MiB = %.1f MiB\n",
        static_cast<double>(above) / kMiB, static_cast<double>(packed) / kMiB, budget / kMiB);
    EXPECT_GT(packed, 90 * kMiB);  // yolov2 has 50.9 M int16 weights: a smaller figure is a wrong count
    EXPECT_LE(static_cast<double>(above), budget);
}

// The device path, on the emu device (its device memory is host memory, so it is counted too): at most
// 1.2x the buffers the queue allocates (parameters + arena + input slots) + 32 MiB.
TEST_F(MemoryBudget, Yolov2OnTheDevicePathFitsItsBudget) {
    const std::uint64_t above = peak_above_startup("emu", "int16");
    std::uint64_t buffers = 0;
    {
        const QuantizedNetwork quantized = quantized_model();
        PlanOptions options;
        options.maxima = open_device("emu")->maxima();
        const NetworkPlan plan = plan_network(quantized.network, options);
        // What DeviceQueue allocates: int16 parameters, the arena and two input slots.
        buffers = 2 * (plan.parameter_words + plan.arena_elements + 2 * plan.input.elements);
    }
    const double budget = 1.2 * static_cast<double>(buffers) + 32.0 * kMiB;
    std::printf("emu: above start-up %.1f MiB; device buffers %.1f MiB, budget 1.2x + 32 MiB = %.1f MiB\n",
                static_cast<double>(above) / kMiB, static_cast<double>(buffers) / kMiB, budget / kMiB);
    EXPECT_GT(buffers, 100 * kMiB);  // 97 MiB of parameters alone: a smaller figure is a wrong count
    EXPECT_LE(static_cast<double>(above), budget);
}

}  // namespace
}  // namespace fpgacnn
