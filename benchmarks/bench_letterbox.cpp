// Pre-processing of an 8-bit frame into the network input: converting it to a float Image first
// (image_from_rgb / image_from_bgr + letterbox_image) against letterbox_rgb, which converts each
// source pixel as the resize reads it. Both give the same bits (tests/vision); this shows what the
// full-size float image costs. Args: source width, height, network side.
#include <benchmark/benchmark.h>

#include <cstdint>

#include <opencv2/core.hpp>

#include "fpgacnn/vision.hpp"

namespace {

fpgacnn::RgbPixels gradient_pixels(int width, int height) {
    fpgacnn::RgbPixels pixels;
    pixels.width = width;
    pixels.height = height;
    pixels.data.resize(static_cast<std::size_t>(width) * height * 3);
    for (std::size_t i = 0; i < pixels.data.size(); ++i)
        pixels.data[i] = static_cast<std::uint8_t>(i * 7 % 251);
    return pixels;
}

void BM_FloatImageThenLetterbox(benchmark::State& state) {
    const fpgacnn::RgbPixels pixels =
        gradient_pixels(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    const int side = static_cast<int>(state.range(2));
    for (auto _ : state) {
        const fpgacnn::Image image = fpgacnn::image_from_rgb(pixels.data.data(), pixels.width, pixels.height);
        benchmark::DoNotOptimize(fpgacnn::letterbox_image(image, side, side));
    }
}

void BM_LetterboxRgb(benchmark::State& state) {
    const fpgacnn::RgbPixels pixels =
        gradient_pixels(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    const int side = static_cast<int>(state.range(2));
    for (auto _ : state) benchmark::DoNotOptimize(fpgacnn::letterbox_rgb(pixels, side, side));
}

// A camera or video frame (8-bit BGR) into the network input, both ways.
cv::Mat gradient_frame(int width, int height) {
    const fpgacnn::RgbPixels pixels = gradient_pixels(width, height);
    return cv::Mat(height, width, CV_8UC3, const_cast<std::uint8_t*>(pixels.data.data())).clone();
}

void BM_BgrFrameAsFloatImage(benchmark::State& state) {
    const cv::Mat bgr = gradient_frame(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    const int side = static_cast<int>(state.range(2));
    for (auto _ : state)
        benchmark::DoNotOptimize(fpgacnn::letterbox_image(fpgacnn::image_from_bgr(bgr), side, side));
}

void BM_BgrFrameAsRgbPixels(benchmark::State& state) {
    const cv::Mat bgr = gradient_frame(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    const int side = static_cast<int>(state.range(2));
    for (auto _ : state)
        benchmark::DoNotOptimize(fpgacnn::letterbox_rgb(fpgacnn::rgb_pixels_from_bgr(bgr), side, side));
}

void frame_sizes(benchmark::internal::Benchmark* bench) {
    bench->Args({768, 576, 224})
        ->Args({640, 480, 416})
        ->Args({1920, 1080, 416})
        ->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK(BM_FloatImageThenLetterbox)->Apply(frame_sizes);
BENCHMARK(BM_LetterboxRgb)->Apply(frame_sizes);
BENCHMARK(BM_BgrFrameAsFloatImage)->Apply(frame_sizes);
BENCHMARK(BM_BgrFrameAsRgbPixels)->Apply(frame_sizes);

BENCHMARK_MAIN();
