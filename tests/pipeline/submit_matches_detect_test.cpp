// Pipelined results equal single-frame results for every frame, on the real backends.
#include <gtest/gtest.h>

#include <filesystem>
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

// A network cheap enough for the ThreadSanitizer runs (the emu kernel is slow under TSan): YOLO-LITE
// at 64x64 when shared/ is present, else yolov2-tiny at 64x64 with synthetic weights.
const Network& small_network() {
    static const Network network = [] {
        const std::string cfg = shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg");
        if (cfg.empty() || !std::filesystem::exists(cfg)) return tiny_network();
        return load_darknet_model(cfg,
                                  shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights"),
                                  InputSizeOverride{64, 64});
    }();
    return network;
}

std::vector<Image> darknet_images() {
    std::vector<Image> images;
    for (const char* file : kImages) images.push_back(load_image(darknet_file(file)));
    return images;
}

// Generated frames of several sizes: the ThreadSanitizer runs avoid OpenCV's image decoders (GDAL's
// uninstrumented mutexes make TSan report lock-order cycles inside GDAL).
std::vector<Image> generated_images() {
    std::vector<Image> images;
    for (int i = 0; i < 3; ++i) images.push_back(pattern_image(100 + 37 * i, 80 + 23 * i, i));
    return images;
}

// Every image `rounds` times through submit(), compared with detect() on a second detector.
void expect_submit_equals_detect(const Network& network, const DetectorOptions& options,
                                 const std::vector<Image>& images, int rounds) {
    Detector pipelined(network, {}, options);
    Detector single(network, {}, options);
    std::vector<std::future<DetectionResult>> futures;
    for (int round = 0; round < rounds; ++round)
        for (const Image& image : images) futures.push_back(pipelined.submit(image));
    int detections = 0;
    for (std::size_t i = 0; i < futures.size(); ++i) {
        const DetectionResult got = futures[i].get();
        const DetectionResult expected = single.detect(images[i % images.size()]);
        expect_same_detections(got, expected, "frame " + std::to_string(i));
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
    options.backend.device = "cpu";
    options.backend.precision = Precision::Float;
    options.thresh = 0.2f;
    expect_submit_equals_detect(yolo_lite(), options, darknet_images(), 2);
}

// int16 (no OpenBLAS: this one also runs under ThreadSanitizer), two device workers.
TEST(Pipeline, Int16SubmitEqualsDetectWithTwoDeviceWorkers) {
    const Network& network = small_network();
    const auto quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    DetectorOptions options;
    options.backend.device = "cpu";
    options.backend.precision = Precision::Int16;
    options.backend.quantized = quantized;
    options.thresh = 0.01f;
    options.device_workers = 2;
    expect_submit_equals_detect(network, options, generated_images(), 2);
}

TEST(Pipeline, EmuSubmitEqualsDetect) {
    const Network& network = small_network();
    DetectorOptions options;
    options.backend.device = "emu";
    options.backend.precision = Precision::Int16;
    options.backend.quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    options.thresh = 0.01f;
    expect_submit_equals_detect(network, options, generated_images(), 2);
}

// Per-frame thresholds (a server's request parameters) give what a detector configured with them
// gives, frame by frame, while the frames around them keep the options' values.
TEST(Pipeline, PerFrameThresholdsEqualADetectorConfiguredWithThem) {
    const Network& network = small_network();
    DetectorOptions options;
    options.backend.device = "cpu";
    options.backend.precision = Precision::Int16;
    options.backend.quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    options.thresh = 0.01f;
    DetectorOptions strict = options;
    strict.thresh = 0.05f;
    strict.nms = 0.2f;
    Detector pipelined(network, {}, options);
    Detector loose_single(network, {}, options);
    Detector strict_single(network, {}, strict);
    const std::vector<Image> images = generated_images();
    std::vector<std::future<DetectionResult>> loose;
    std::vector<std::future<DetectionResult>> tight;
    for (const Image& image : images) {
        loose.push_back(pipelined.submit(image));
        tight.push_back(pipelined.submit(image, FrameThresholds{strict.thresh, strict.nms}));
    }
    std::size_t loose_count = 0;
    std::size_t tight_count = 0;
    for (std::size_t i = 0; i < images.size(); ++i) {
        const DetectionResult a = loose[i].get();
        const DetectionResult b = tight[i].get();
        expect_same_detections(a, loose_single.detect(images[i]),
                               "options' thresholds, frame " + std::to_string(i));
        expect_same_detections(b, strict_single.detect(images[i]),
                               "frame's thresholds, frame " + std::to_string(i));
        loose_count += a.detections.size();
        tight_count += b.detections.size();
    }
    EXPECT_GT(loose_count, tight_count)
        << "the stricter thresholds must keep fewer boxes to show they applied";
}

}  // namespace
}  // namespace fpgacnn::test
