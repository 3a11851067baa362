#include "input_sources.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include "fpgacnn/error.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::detect {
namespace {

std::string lowercase_extension(const fs::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
    return ext;
}

bool is_image(const fs::path& path) {
    static const std::array<const char*, 9> kImageExtensions = {".jpg",  ".jpeg", ".png", ".bmp", ".tif",
                                                                ".tiff", ".webp", ".ppm", ".pgm"};
    const std::string ext = lowercase_extension(path);
    return std::find(kImageExtensions.begin(), kImageExtensions.end(), ext) != kImageExtensions.end();
}

bool is_video(const fs::path& path) {
    static const std::array<const char*, 7> kVideoExtensions = {".mp4",  ".avi", ".mkv",  ".mov",
                                                                ".webm", ".m4v", ".mjpeg"};
    const std::string ext = lowercase_extension(path);
    return std::find(kVideoExtensions.begin(), kVideoExtensions.end(), ext) != kVideoExtensions.end();
}

}  // namespace

std::vector<InputSource> collect_input_sources(const std::vector<std::string>& arguments) {
    std::vector<InputSource> sources;
    for (const std::string& argument : arguments) {
        const fs::path path(argument);
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            std::vector<fs::path> entries;
            for (const auto& entry : fs::directory_iterator(path, ec)) {
                if (entry.is_regular_file() && (is_image(entry.path()) || is_video(entry.path()))) {
                    entries.push_back(entry.path());
                }
            }
            if (ec) throw Error(argument + ": cannot list the folder (" + ec.message() + ")");
            std::sort(entries.begin(), entries.end());
            if (entries.empty()) throw Error(argument + ": the folder holds no images or videos");
            for (const fs::path& entry : entries) {
                sources.push_back({is_video(entry) ? SourceKind::Video : SourceKind::Image, entry.string()});
            }
        } else if (fs::exists(path, ec)) {
            // Unknown extensions are tried as images: the decoder gives the precise error.
            sources.push_back({is_video(path) ? SourceKind::Video : SourceKind::Image, argument});
        } else {
            throw Error(argument + ": no such file or folder");
        }
    }
    return sources;
}

}  // namespace fpgacnn::detect
