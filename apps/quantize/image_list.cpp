#include "image_list.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "fpgacnn/error.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::quantize {

namespace {

bool is_image_file(const fs::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    static const char* const known[] = {".jpg", ".jpeg", ".png",  ".bmp", ".ppm",
                                        ".pgm", ".tif",  ".tiff", ".webp"};
    return std::any_of(std::begin(known), std::end(known), [&](const char* k) { return ext == k; });
}

}  // namespace

std::vector<std::string> expand_image_arguments(const std::vector<std::string>& arguments) {
    std::vector<std::string> images;
    for (const std::string& argument : arguments) {
        if (!fs::is_directory(argument)) {
            images.push_back(argument);
            continue;
        }
        std::vector<std::string> found;
        for (const fs::directory_entry& entry : fs::directory_iterator(argument)) {
            if (entry.is_regular_file() && is_image_file(entry.path()))
                found.push_back(entry.path().string());
        }
        if (found.empty()) throw Error(argument + ": the folder holds no image files (jpg, png, bmp, ...)");
        std::sort(found.begin(), found.end());
        images.insert(images.end(), found.begin(), found.end());
    }
    if (images.empty()) throw Error("no calibration images given");
    return images;
}

}  // namespace fpgacnn::quantize
