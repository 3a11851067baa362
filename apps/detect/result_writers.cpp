#include "result_writers.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "fpgacnn/error.hpp"
#include "media/media_codecs.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::detect {
namespace {

// Temporary sibling of `path`; the rename onto `path` is atomic on one filesystem.
std::string temporary_sibling(const std::string& path) { return path + ".partial"; }

void commit_or_discard(const std::string& temporary, const std::string& path, bool ok,
                       const std::string& what) {
    std::error_code ec;
    if (!ok) {
        fs::remove(temporary, ec);
        throw Error(path + ": cannot write " + what + " (check that the folder exists and is writable)");
    }
    fs::rename(temporary, path, ec);
    if (ec) {
        fs::remove(temporary, ec);
        throw Error(path + ": cannot write " + what + " (" + ec.message() + ")");
    }
}

}  // namespace

nlohmann::json result_to_json(const std::string& image_name, const DetectionResult& result, bool damaged) {
    nlohmann::json detections = nlohmann::json::array();
    for (const Detection& d : result.detections) {
        detections.push_back({{"class", d.class_name},
                              {"class_id", d.class_id},
                              {"prob", std::round(static_cast<double>(d.prob) * 1e6) / 1e6},
                              {"left", d.left},
                              {"top", d.top},
                              {"right", d.right},
                              {"bottom", d.bottom}});
    }
    return {{"image", image_name},      {"width", result.image_w},
            {"height", result.image_h}, {"ms", std::round(result.milliseconds * 1000.0) / 1000.0},
            {"damaged", damaged},       {"detections", detections}};
}

std::string result_to_text(const std::string& image_name, const DetectionResult& result) {
    std::string text = fmt::format("{}: Predicted in {:.1f} ms.\n", image_name, result.milliseconds);
    for (const Detection& d : result.detections) {
        text += fmt::format("{}: {:.0f}%  (left {}, top {}, right {}, bottom {})\n", d.class_name,
                            d.prob * 100.0f, d.left, d.top, d.right, d.bottom);
    }
    return text;
}

void write_float32_file(const std::string& path, const std::vector<float>& floats) {
    const std::string temporary = temporary_sibling(path);
    bool ok = false;
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (out) {
            // The dumps are little-endian float32; every supported host (x86-64, AArch64, ARMv7) is LE.
            static_assert(sizeof(float) == 4, "float32 expected");
            out.write(reinterpret_cast<const char*>(floats.data()),
                      static_cast<std::streamsize>(floats.size() * sizeof(float)));
            ok = static_cast<bool>(out);
        }
    }
    commit_or_discard(temporary, path, ok, "the float dump");
}

void write_text_file(const std::string& path, const std::string& text, const std::string& what) {
    const std::string temporary = temporary_sibling(path);
    bool ok = false;
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (out) {
            out << text;
            ok = static_cast<bool>(out);
        }
    }
    commit_or_discard(temporary, path, ok, what);
}

void write_image_file(const std::string& path, const cv::Mat& image, const std::string& what) {
    const std::string extension = fs::path(path).extension().string();
    std::vector<unsigned char> encoded;
    bool ok = media::image_codecs(path).encode(extension.empty() ? ".jpg" : extension, image, {}, encoded);
    if (!ok) throw Error(path + ": cannot encode " + what + " as '" + extension + "'");
    const std::string temporary = temporary_sibling(path);
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(encoded.data()),
                  static_cast<std::streamsize>(encoded.size()));
        ok = static_cast<bool>(out);
    }
    commit_or_discard(temporary, path, ok, what);
}

cv::Mat bgr_from_image(const Image& image) {
    cv::Mat bgr(image.h, image.w, CV_8UC3);
    const std::size_t plane = static_cast<std::size_t>(image.w) * image.h;
    for (int y = 0; y < image.h; ++y) {
        auto* row = bgr.ptr<unsigned char>(y);
        for (int x = 0; x < image.w; ++x) {
            const std::size_t at = static_cast<std::size_t>(y) * image.w + x;
            // RGB planes of value/255 back to BGR bytes: exact for images decoded from 8 bits.
            for (int ch = 0; ch < 3; ++ch) {
                const float value = image.data[static_cast<std::size_t>(ch) * plane + at] * 255.0f;
                row[3 * x + (2 - ch)] = cv::saturate_cast<unsigned char>(value);
            }
        }
    }
    return bgr;
}

std::string annotated_path(const std::string& output_dir, const std::string& input) {
    fs::path name = fs::path(input).filename();
    std::string ext = name.extension().string();
    if (ext != ".png" && ext != ".jpg" && ext != ".jpeg") name.replace_extension(".jpg");
    return (fs::path(output_dir) / name).string();
}

}  // namespace fpgacnn::detect
