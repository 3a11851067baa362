// Pipelined results equal single-frame results for every frame, on the real backends.
#include <gtest/gtest.h>

#include <future>
#include <memory>

#include "../emu/emu_test_support.hpp"
#include "pipeline_test_support.hpp"

namespace fpgacnn::test {
namespace {

const char* const kImages[] = {"data/dog.jpg",   "data/person.jpg",  "data/horses.jpg",
                               "data/eagle.jpg", "data/giraffe.jpg", "data/kite.jpg"};

Network yolo_lite() {
    return load_darknet_model(shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg"),
                              shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights"));
}

// Every image twice through submit(), interleaved with detect() on a second detector.
void expect_submit_equals_detect(const Network& network, const DetectorOptions& options, int rounds = 2) {
    Detector pipelined(network, {}, options);
    Detector single(network, {}, options);
    std::vector<Image> images;
    for (const char* file : kImages) images.push_back(load_image(darknet_file(file)));
    std::vector<std::future<DetectionResult>> futures;
    for (int round = 0; round < rounds; ++round)
        for (const Image& image : images) futures.push_back(pipelined.submit(image));
    int detections = 0;
    for (std::size_t i = 0; i < futures.size(); ++i) {
        const DetectionResult got = futures[i].get();
        const DetectionResult expected = single.detect(images[i % images.size()]);
        expect_same_detections(got, expected, kImages[i % images.size()]);
        detections += static_cast<int>(got.detections.size());
        EXPECT_GE(got.milliseconds, got.device_ms);
    }
    EXPECT_GT(detections, 0) << "the comparison needs some detections to mean anything";
    // detect() on the pipelined detector (its backend is the pipeline's device worker) agrees too.
    expect_same_detections(pipelined.detect(images[0]), single.detect(images[0]), "detect after submit");
}

TEST(PipelineFloat, YoloLiteSubmitEqualsDetect) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    DetectorOptions options;
    options.device = "cpu";
    options.precision = "float";
    options.thresh = 0.2f;
    expect_submit_equals_detect(yolo_lite(), options);
}

// int16 (no OpenBLAS: this one also runs under ThreadSanitizer), two device workers.
TEST(Pipeline, Int16SubmitEqualsDetectWithTwoDeviceWorkers) {
    const Network& network = tiny_network();
    const auto quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    DetectorOptions options;
    options.device = "cpu";
    options.precision = "int16";
    options.quantized = quantized;
    options.thresh = 0.01f;
    options.device_workers = 2;
    expect_submit_equals_detect(network, options, 1);
}

TEST(Pipeline, EmuSubmitEqualsDetect) {
    const Network& network = tiny_network();
    DetectorOptions options;
    options.device = "emu";
    options.precision = "int16";
    options.quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    options.thresh = 0.01f;
    expect_submit_equals_detect(network, options, 1);
}

}  // namespace
}  // namespace fpgacnn::test
