// The final detections through the emu device equal the CPU int16 path's: same quantized input,
// bit-identical region input, same float region activation, decode and NMS.
#include <gtest/gtest.h>

#include <memory>

#include "emu_test_support.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/float_ops.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn::test {
namespace {

std::vector<Detection> detections_of(const QuantizedNetwork& q, const std::vector<float>& activated,
                                     const Image& image, const std::vector<std::string>& names) {
    const int region_index = q.network.region_layer_index();
    const Layer& region = q.network.layers[static_cast<std::size_t>(region_index)];
    std::vector<RegionBox> boxes = decode_region(region.region(), region.output, activated.data(), image.w,
                                                 image.h, q.network.input.w, q.network.input.h, 0.5f);
    nms_sort(boxes, region.region().classes, 0.45f);
    return collect_detections(boxes, 0.5f, image.w, image.h, names);
}

TEST(Detections, EmuDeviceGivesTheCpuInt16Detections) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto q = std::make_shared<const QuantizedNetwork>(naive_quantize(
        load_darknet_model(shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg"),
                           shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights"))));
    const std::vector<std::string> names = load_class_names(shared_model_file("yolo-lite-voc", "voc.names"));
    const int region_index = q->network.region_layer_index();
    const Layer& region = q->network.layers[static_cast<std::size_t>(region_index)];
    Int16Engine engine(*q);
    std::unique_ptr<Backend> backend = make_device_backend(q, "emu");
    EXPECT_NE(backend->name().find("emu"), std::string::npos);

    int total_detections = 0;
    for (const char* file : {"data/dog.jpg", "data/person.jpg"}) {
        const Image image = load_image(darknet_file(file));
        const Image boxed = letterbox_image(image, q->network.input.w, q->network.input.h);
        std::vector<int16_t> input(boxed.data.size());
        quantize_tensor(boxed.data.data(), input.size(), q->input_q, input.data());
        const std::vector<int16_t>& raw = engine.run(input.data());
        std::vector<float> cpu(raw.size());
        dequantize_tensor(raw.data(), raw.size(), q->layers[static_cast<std::size_t>(region_index)].output_q,
                          cpu.data());
        region_activate(region.region(), region.output, cpu.data());

        const std::vector<float>& emu = backend->run(boxed.data.data());
        ASSERT_EQ(emu.size(), cpu.size());
        for (std::size_t i = 0; i < cpu.size(); ++i)
            ASSERT_EQ(emu[i], cpu[i]) << file << " region value " << i;

        const std::vector<Detection> a = detections_of(*q, emu, image, names);
        const std::vector<Detection> b = detections_of(*q, cpu, image, names);
        ASSERT_EQ(a.size(), b.size()) << file;
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].class_id, b[i].class_id);
            EXPECT_EQ(a[i].prob, b[i].prob);
            EXPECT_EQ(a[i].left, b[i].left);
            EXPECT_EQ(a[i].top, b[i].top);
            EXPECT_EQ(a[i].right, b[i].right);
            EXPECT_EQ(a[i].bottom, b[i].bottom);
        }
        total_detections += static_cast<int>(a.size());
    }
    EXPECT_GT(total_detections, 0) << "no detections at all: the comparison would be vacuous";
}

}  // namespace
}  // namespace fpgacnn::test
