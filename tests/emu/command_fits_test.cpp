// check_command_fits, the one command check every driver makes in start(): against the maxima of the
// device's kernel build (not this library's), then the buffers. Buffers come from the emu device;
// the check only reads their sizes.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/command_footprint.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::test {
namespace {

/// "device" or "model" by the type thrown, then the message; "" when nothing is thrown.
std::string outcome(const std::function<void()>& action) {
    try {
        action();
    } catch (const DeviceError& e) {
        return std::string("device: ") + e.what();
    } catch (const Error& e) {
        return std::string("model: ") + e.what();
    }
    return "";
}

KernelMaxima larger_than_native() {
    KernelMaxima m = kernel::native_build_maxima();
    m.tm *= 2;
    m.tn *= 2;
    m.tr *= 2;
    m.tc *= 2;
    return m;
}

/// A 3x3 conv whose whole 40x40 output is one tile (larger than the native build's Tr x Tc).
kernel::LayerCommand one_tile_conv(int tile) {
    kernel::LayerCommand c{};
    c.op = kernel::kOpConv;
    c.in_c = 8;
    c.out_c = 20;
    c.in_h = c.in_w = c.out_h = c.out_w = static_cast<uint32_t>(tile);
    c.kernel_size = 3;
    c.stride = 1;
    c.pad = 1;
    c.tile_rows = c.tile_cols = static_cast<uint32_t>(tile);
    c.output_offset = c.in_c * c.in_h * c.in_w;
    c.bias_shift = 3;
    c.output_shift = 10;
    c.output_bits = 16;
    c.weight_bits = 16;
    c.input_bits = 16;
    return c;
}

struct Buffers {
    std::unique_ptr<Device> device = make_emu_device();
    DeviceBuffer arena = device->allocate(2 * 40 * 40 * 28, BufferRole::FeatureMaps, "arena");
    DeviceBuffer params = device->allocate(2 * 8192, BufferRole::Parameters, "params");
};

TEST(CheckCommandFits, ALargerBuildRunsTilesTheNativeBuildCannot) {
    const Buffers b;
    const KernelMaxima large = larger_than_native();
    const int tile = kernel::native_build_maxima().tr + 4;
    ASSERT_LE(tile, large.tr);
    const kernel::LayerCommand c = one_tile_conv(tile);
    ASSERT_EQ(kernel::check_command(c), kernel::kCommandBadTile) << "the native build must refuse it";
    EXPECT_EQ(kernel::check_command(c, large), kernel::kCommandOk);
    const CommandFootprint f = check_command_fits("test", c, large, b.arena, b.params);
    // Weight blocks follow the device's Tm x Tn, not the native build's.
    EXPECT_EQ(f.weights.end - f.weights.begin,
              2u * kernel::reordered_weight_elements(c.out_c, c.in_c, 3, static_cast<uint32_t>(large.tm),
                                                     static_cast<uint32_t>(large.tn)));
    EXPECT_EQ(f.biases.begin, 0u);
    EXPECT_EQ(f.biases.end - f.biases.begin, 2u * static_cast<uint64_t>(large.tm));
}

TEST(CheckCommandFits, ASmallerBuildIsADeviceErrorNamingItsMaxima) {
    const Buffers b;
    KernelMaxima small = kernel::native_build_maxima();
    small.tr = small.tc = 8;
    const std::string m =
        outcome([&] { check_command_fits("dev: layer 0", one_tile_conv(13), small, b.arena, b.params); });
    EXPECT_EQ(m.rfind("device: dev: layer 0", 0), 0u) << m;
    EXPECT_NE(m.find("tile 13x13"), std::string::npos) << m;
    EXPECT_NE(m.find("exceed the device's kernel build (Tr=8 Tc=8"), std::string::npos) << m;
}

TEST(CheckCommandFits, AMalformedCommandIsAPlainErrorWhateverTheMaxima) {
    const Buffers b;
    kernel::LayerCommand c = one_tile_conv(kernel::native_build_maxima().tr + 4);  // beyond the native tiles
    c.pad = 3;
    std::string m = outcome([&] { check_command_fits("t", c, larger_than_native(), b.arena, b.params); });
    EXPECT_EQ(m.rfind("model: t: the kernel rejects the command", 0), 0u) << m;
    EXPECT_NE(m.find("padding"), std::string::npos) << m;
    c = one_tile_conv(20);
    c.output_shift = arith::kExactMaxOutputShift + 1;
    m = outcome([&] { check_command_fits("t", c, larger_than_native(), b.arena, b.params); });
    EXPECT_NE(m.find("model: t: the kernel rejects the command: bias or output shift"), std::string::npos)
        << m;
}

TEST(CheckCommandFits, ParametersSizedForTheNativeBuildDoNotFitALargerTm) {
    const Buffers b;
    KernelMaxima wide = kernel::native_build_maxima();
    wide.tm = 256;  // biases padded to 256, weights in 256 x Tn blocks: more than 8192 elements
    const std::string m =
        outcome([&] { check_command_fits("t", one_tile_conv(20), wide, b.arena, b.params); });
    EXPECT_NE(m.find("reads its weights from"), std::string::npos) << m;
    EXPECT_NE(m.find("the plan does not match the buffer"), std::string::npos) << m;
}

}  // namespace
}  // namespace fpgacnn::test
