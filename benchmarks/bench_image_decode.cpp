// Decoding an encoded image into the 8-bit RGB pixels the detector letterboxes (what fpgacnn-serve does
// for every encoded request, and fpgacnn-detect for every file): decode_rgb_pixels against OpenCV's
// decode and channel swap alone, on darknet's sample images. A clean JPEG takes decode_rgb_pixels' one
// libjpeg pass; the same file with an Exif orientation of 6 takes its other path (the damage check's
// entropy pass, cv::imdecode, the swap, and the turn), which is what every JPEG took before.
//   bench_image_decode [benchmark flags] [--darknet_data_dir=DIR]   (default /usr/share/darknet/data)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "fpgacnn/vision.hpp"

namespace {

using fpgacnn::decode_rgb_pixels;
using fpgacnn::rgb_pixels_from_bgr;
using fpgacnn::RgbPixels;
using Bytes = std::vector<std::uint8_t>;

std::string data_dir = "/usr/share/darknet/data";  // NOLINT: set once from the command line

Bytes file_bytes(const std::string& name) {
    std::ifstream in(data_dir + "/" + name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The JPEG with an APP1 Exif segment saying "turn 90 degrees clockwise to display" after SOI.
Bytes turned_by_exif(const Bytes& jpeg) {
    const Bytes segment = {0xFF, 0xE1, 0,    34,   'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0,
                           1,    0,    0x12, 0x01, 3,   0,   1,   0,   0, 0, 6,   0,   0,  0, 0, 0, 0, 0};
    Bytes out(jpeg.begin(), jpeg.begin() + 2);
    out.insert(out.end(), segment.begin(), segment.end());
    out.insert(out.end(), jpeg.begin() + 2, jpeg.end());
    return out;
}

const char* const kImages[] = {"dog.jpg", "kite.jpg", "person.jpg"};

// Times `decode` on image state.range(0) (turned by Exif when `turned`); skips when it is missing.
template <class Decode>
void run_decode(benchmark::State& state, bool turned, Decode decode) {
    const char* name = kImages[state.range(0)];
    const Bytes bytes = file_bytes(name);
    if (bytes.empty()) {
        state.SkipWithError(("cannot read " + data_dir + "/" + name).c_str());
        return;
    }
    const Bytes input = turned ? turned_by_exif(bytes) : bytes;
    for (auto _ : state) benchmark::DoNotOptimize(decode(input));
    state.SetLabel(name);
}

RgbPixels decode_rgb(const Bytes& bytes) {
    return decode_rgb_pixels(bytes.data(), bytes.size(), "benchmark");
}

void BM_DecodeRgbPixels(benchmark::State& state) { run_decode(state, false, decode_rgb); }

void BM_DecodeRgbPixelsExifTurned(benchmark::State& state) { run_decode(state, true, decode_rgb); }

// OpenCV alone, without decode_rgb_pixels' checks: its decode to BGR and the swap to RGB.
void BM_OpenCvDecodeAndSwap(benchmark::State& state) {
    run_decode(state, false,
               [](const Bytes& bytes) { return rgb_pixels_from_bgr(cv::imdecode(bytes, cv::IMREAD_COLOR)); });
}

BENCHMARK(BM_DecodeRgbPixels)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OpenCvDecodeAndSwap)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeRgbPixelsExifTurned)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
    const std::string flag = "--darknet_data_dir=";
    std::vector<char*> rest;
    for (int i = 0; i < argc; ++i) {
        if (std::strncmp(argv[i], flag.c_str(), flag.size()) == 0) {
            data_dir = argv[i] + flag.size();
        } else {
            rest.push_back(argv[i]);
        }
    }
    int count = static_cast<int>(rest.size());
    benchmark::Initialize(&count, rest.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
