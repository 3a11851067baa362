// The explorer's Zedboard build of the RTL (Tm=35 Tn=4 Tr=Tc=22, 32-bit addresses; kernels/rtl/
// CMakeLists.txt) on YOLO-LITE with its trained weights, and the small build on YOLOv3 (23 shortcuts, 2
// upsamples): every layer bit-exact with the CPU int16 backend and the latency model within its
// tolerances. Label slow (scripts/run-slow-tests.sh): each simulation takes minutes.
#include <gtest/gtest.h>

#include <memory>

#include "device_bitexact.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "rtl_model_check.hpp"

namespace fpgacnn::test {
namespace {

TEST(RtlZedboard, YoloLiteBitExactAndPredicted) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto device = open_device("rtl:zedboard");
    const KernelMaxima maxima = device->maxima();
    EXPECT_EQ(maxima.tm, 35);
    EXPECT_EQ(maxima.tn, 4);
    EXPECT_EQ(maxima.tr, 22);
    EXPECT_EQ(maxima.tc, 22);
    const auto q = std::make_shared<const QuantizedNetwork>(naive_quantize(yolo_lite_network()));
    const std::vector<CommandStats> stats =
        expect_device_bit_exact(*device, q, "yolo-lite-voc on the Zedboard build", {best_int16_isa()});
    expect_model_predicts(stats, *q, maxima, "zedboard", "yolo-lite-voc on the Zedboard build");
}

// docs/kernel.md "Where the cycles go": about 100 million cycles, 2 to 4 minutes of simulation.
TEST(RtlSmall, Yolov3At64ShortcutsAndUpsamplesBitExactAndPredicted) {
    const auto device = open_device("rtl:small");
    const auto q = std::make_shared<const QuantizedNetwork>(
        calibrate(synthetic_network("cfg/yolov3.cfg", 64), {darknet_file("data/dog.jpg")}, {}).quantized);
    const std::vector<CommandStats> stats =
        expect_device_bit_exact(*device, q, "yolov3 64 on the small build", {best_int16_isa()});
    int elementwise = 0;
    for (const CommandStats& s : stats) {
        const LayerType type = q->network.layers[static_cast<std::size_t>(s.layer)].type;
        elementwise += type == LayerType::Shortcut || type == LayerType::Upsample;
    }
    EXPECT_EQ(elementwise, 25) << "23 shortcuts and 2 upsamples on the rtl";
    expect_model_predicts(stats, *q, device->maxima(), "zedboard", "yolov3 64 on the small build");
}

}  // namespace
}  // namespace fpgacnn::test
