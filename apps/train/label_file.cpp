#include "label_file.hpp"

#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "fpgacnn/error.hpp"

namespace fpgacnn::train_tool {

namespace {

// darknet's find_replace: the first occurrence only.
std::string replace_first(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

std::string line_error(const std::string& path, int line, const std::string& what) {
    return path + ":" + std::to_string(line) + ": " + what;
}

}  // namespace

bool is_regular_file(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::vector<std::string> label_path_candidates(const std::string& image_path) {
    const std::size_t slash = image_path.find_last_of('/');
    const std::size_t dot = image_path.find_last_of('.');
    const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    std::vector<std::string> candidates{(has_extension ? image_path.substr(0, dot) : image_path) + ".txt"};
    std::string darknet = replace_first(image_path, "images", "labels");
    darknet = replace_first(darknet, "JPEGImages", "labels");
    darknet = replace_first(darknet, "raw", "labels");
    for (const char* extension : {".jpg", ".png", ".JPG", ".JPEG"})
        darknet = replace_first(darknet, extension, ".txt");
    if (darknet != candidates.front() && darknet != image_path) candidates.push_back(darknet);
    return candidates;
}

std::string find_label_file(const std::string& image_path) {
    const std::vector<std::string> candidates = label_path_candidates(image_path);
    for (const std::string& candidate : candidates) {
        if (is_regular_file(candidate)) return candidate;
    }
    std::string tried;
    for (const std::string& candidate : candidates) tried += (tried.empty() ? "" : " or ") + candidate;
    throw Error(image_path + ": no label file (looked for " + tried +
                "); write one \"class x_center y_center width height\" line a box, or train with --distill");
}

std::vector<LabelBox> read_label_file(const std::string& path, int classes) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot read the label file");
    std::vector<LabelBox> boxes;
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
        ++line;
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::istringstream fields(text);
        double id = 0;
        LabelBox box;
        std::string extra;
        if (!(fields >> id >> box.x >> box.y >> box.w >> box.h) || (fields >> extra)) {
            throw Error(line_error(
                path, line,
                "expected \"class x_center y_center width height\" (five numbers), got \"" + text + "\""));
        }
        if (!(id >= 0 && id < classes && id == std::floor(id))) {
            throw Error(line_error(path, line,
                                   "class id " + fields.str().substr(0, fields.str().find_first_of(" \t")) +
                                       " is not one of the model's " + std::to_string(classes) +
                                       " classes (0.." + std::to_string(classes - 1) + ")"));
        }
        box.class_id = static_cast<int>(id);
        for (const float v : {box.x, box.y, box.w, box.h}) {
            if (!std::isfinite(v) || v < 0 || v > 1) {
                throw Error(line_error(
                    path, line,
                    "box values are relative to the image: each must be in [0, 1], got \"" + text + "\""));
            }
        }
        boxes.push_back(box);
    }
    return boxes;
}

}  // namespace fpgacnn::train_tool
