// --fallback cpu falls back on device errors only: a network the emu's kernel build cannot run (a
// DeviceError) continues on the CPU with the same bits, while a model error, which the CPU would
// hit again, is the caller's error as it is. (Device failures mid-run: tests/uio/uio_fault_test.cpp.)
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "emu_test_support.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/config.hpp"

namespace fpgacnn::test {
namespace {

/// A tiny detector whose first conv has a 5x5 window: beyond the emu kernel's K <= 3.
Network wide_window_detector() {
    return synthetic_network("wide_window",
                             "[net]\nwidth=16\nheight=16\nchannels=3\n\n"
                             "[convolutional]\nfilters=8\nsize=5\nstride=1\npad=1\nactivation=leaky\n\n"
                             "[convolutional]\nfilters=35\nsize=1\nstride=1\npad=1\nactivation=linear\n\n"
                             "[region]\nanchors=1,1,2,2,3,3,4,4,5,5\nclasses=2\ncoords=4\nnum=5\n");
}

BackendOptions int16_on(const std::string& device, std::shared_ptr<const QuantizedNetwork> quantized,
                        bool cpu_fallback = false) {
    BackendOptions options;
    options.device = device;
    options.precision = Precision::Int16;
    options.quantized = std::move(quantized);
    options.cpu_fallback = cpu_fallback;
    return options;
}

std::vector<float> test_input(const Network& network) {
    std::vector<float> input(network.input.size());
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 89) / 89.0f;
    return input;
}

TEST(CpuFallback, AKernelBuildThatCannotRunTheNetworkIsADeviceErrorAndFallsBack) {
    const Network network = wide_window_detector();
    ASSERT_GT(network.layers[0].conv().size, kernel::native_build_maxima().max_kernel);
    const auto quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    EXPECT_THROW(make_backend(network, int16_on("emu", quantized)), DeviceError);

    auto backend = make_backend(network, int16_on("emu", quantized, /*cpu_fallback=*/true));
    EXPECT_NE(backend->name().find("(fallback)"), std::string::npos) << backend->name();
    const std::vector<float> input = test_input(network);
    EXPECT_EQ(backend->run(input.data()),
              make_backend(network, int16_on("cpu", quantized))->run(input.data()));
}

TEST(CpuFallback, AModelErrorIsRethrownNotFallenBackFrom) {
    // An output shift no arithmetic can keep exact (its output exponent leaves the contract's range):
    // the device path's contract check refuses it, and so would the CPU.
    const Network network = small_test_network();
    QuantizedNetwork broken = naive_quantize(network);
    QuantizedLayer& first = broken.layers[0];
    first.output_q = first.weight_q + first.input_q - (arith::kExactMaxOutputShift + 1);
    broken.layers[1].input_q = broken.layers[1].output_q = first.output_q;
    const auto quantized = std::make_shared<const QuantizedNetwork>(std::move(broken));
    try {
        make_backend(network, int16_on("emu", quantized, /*cpu_fallback=*/true));
        ADD_FAILURE() << "the broken model was accepted";
    } catch (const DeviceError& e) {
        ADD_FAILURE() << "a model error was reported as a device error: " << e.what();
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("layer 0"), std::string::npos) << message;
        EXPECT_NE(message.find("output exponent"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace fpgacnn::test
