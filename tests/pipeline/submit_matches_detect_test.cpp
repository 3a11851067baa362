// Pipelined results equal single-frame results for every frame, on the real backends.
#include <gtest/gtest.h>

#include <cstdint>
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

// int16 on `device` with naive exponents, a low threshold so that the small network detects something.
DetectorOptions int16_options(const Network& network, const std::string& device) {
    DetectorOptions options;
    options.backend.device = device;
    options.backend.precision = Precision::Int16;
    options.backend.quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    options.thresh = 0.01f;
    return options;
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
    DetectorOptions options = int16_options(network, "cpu");
    options.device_workers = 2;
    expect_submit_equals_detect(network, options, generated_images(), 2);
}

TEST(Pipeline, EmuSubmitEqualsDetect) {
    const Network& network = small_network();
    const DetectorOptions options = int16_options(network, "emu");
    expect_submit_equals_detect(network, options, generated_images(), 2);
}

// 8-bit pixels as a server receives them: random bytes of odd sizes.
std::vector<std::shared_ptr<const RgbPixels>> generated_pixels() {
    std::vector<std::shared_ptr<const RgbPixels>> frames;
    std::uint32_t state = 12345;
    for (int i = 0; i < 3; ++i) {
        auto pixels = std::make_shared<RgbPixels>();
        pixels->width = 97 + 41 * i;
        pixels->height = 75 + 19 * i;
        pixels->data.resize(static_cast<std::size_t>(pixels->width) * pixels->height * 3);
        for (std::uint8_t& byte : pixels->data) {
            state = state * 1664525u + 1013904223u;
            byte = static_cast<std::uint8_t>(state >> 24);
        }
        frames.push_back(std::move(pixels));
    }
    return frames;
}

// A shared image, shared RGB pixels (letterboxed without a float copy) and pixels borrowed from a
// buffer the caller owns (as a server's request bytes), and detect() of the pixels, give what
// detect() gives for image_from_rgb of the same pixels; the pipeline lets go of all of them once
// their frames are done.
TEST(Pipeline, SharedImagesAndRgbPixelsEqualDetect) {
    const Network& network = small_network();
    const DetectorOptions options = int16_options(network, "cpu");
    Detector pipelined(network, {}, options);
    Detector single(network, {}, options);
    const std::vector<std::shared_ptr<const RgbPixels>> frames = generated_pixels();
    std::vector<std::shared_ptr<const Image>> images;
    for (const auto& pixels : frames)
        images.push_back(std::make_shared<const Image>(
            image_from_rgb(pixels->data.data(), pixels->width, pixels->height)));
    // The borrowed buffers hold the pixels after a 5-byte header, so that the view is not the
    // buffer's start.
    std::vector<std::shared_ptr<const std::string>> buffers;
    for (const auto& pixels : frames)
        buffers.push_back(std::make_shared<const std::string>(
            "head:" + std::string(pixels->data.begin(), pixels->data.end())));
    const auto borrowed = [&](std::size_t i) {
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(buffers[i]->data()) + 5;
        return FrameInput(RgbPixelsView(bytes, buffers[i]->size() - 5, frames[i]->width, frames[i]->height),
                          buffers[i]);
    };
    std::vector<std::future<DetectionResult>> from_pixels;
    std::vector<std::future<DetectionResult>> from_images;
    std::vector<std::future<DetectionResult>> from_buffers;
    for (int round = 0; round < 2; ++round) {
        for (std::size_t i = 0; i < frames.size(); ++i) {
            from_pixels.push_back(pipelined.submit(frames[i]));
            from_images.push_back(pipelined.submit(images[i]));
            from_buffers.push_back(pipelined.submit(borrowed(i)));
        }
    }
    std::size_t detections = 0;
    for (std::size_t i = 0; i < from_pixels.size(); ++i) {
        const DetectionResult expected = single.detect(*images[i % images.size()]);
        const DetectionResult pixels_result = from_pixels[i].get();
        expect_same_detections(pixels_result, expected, "pixels, frame " + std::to_string(i));
        expect_same_detections(from_images[i].get(), expected, "shared image, frame " + std::to_string(i));
        expect_same_detections(from_buffers[i].get(), expected,
                               "borrowed buffer, frame " + std::to_string(i));
        expect_same_detections(single.detect(borrowed(i % frames.size())), expected,
                               "detect() of a borrowed buffer, frame " + std::to_string(i));
        expect_same_detections(single.detect(*frames[i % frames.size()]), expected,
                               "detect() of pixels, frame " + std::to_string(i));
        detections += pixels_result.detections.size();
    }
    EXPECT_GT(detections, 0u) << "the comparison needs some detections to mean anything";
    for (std::size_t i = 0; i < frames.size(); ++i) {
        EXPECT_EQ(frames[i].use_count(), 1) << "the pipeline still holds pixels " << i;
        EXPECT_EQ(images[i].use_count(), 1) << "the pipeline still holds image " << i;
        EXPECT_EQ(buffers[i].use_count(), 1) << "the pipeline still holds buffer " << i;
    }
    EXPECT_THROW(pipelined.submit(std::shared_ptr<const Image>()), Error);
    EXPECT_THROW(pipelined.submit(FrameInput()), Error);
    EXPECT_THROW(single.detect(FrameInput()), Error);
    EXPECT_THROW(FrameInput(RgbPixelsView(frames[0]->data.data(), frames[0]->data.size(), frames[0]->width,
                                          frames[0]->height),
                            nullptr),
                 Error)
        << "borrowed pixels without an owner could be freed under the pipeline";
    EXPECT_THROW(pipelined.submit(std::shared_ptr<const RgbPixels>()), Error);
    // Pixels that do not match their size fail their own frame only.
    auto short_pixels = std::make_shared<RgbPixels>(*frames[0]);
    short_pixels->data.pop_back();
    std::future<DetectionResult> bad = pipelined.submit(std::shared_ptr<const RgbPixels>(short_pixels));
    std::future<DetectionResult> good = pipelined.submit(frames[0]);
    EXPECT_THROW(bad.get(), Error);
    expect_same_detections(good.get(), single.detect(*images[0]), "the frame after a bad one");
}

// Per-frame thresholds (a server's request parameters) give what a detector configured with them
// gives, frame by frame, while the frames around them keep the options' values.
TEST(Pipeline, PerFrameThresholdsEqualADetectorConfiguredWithThem) {
    const Network& network = small_network();
    const DetectorOptions options = int16_options(network, "cpu");
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
