#include <sstream>
#include <string>

#include "core/input_file.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

std::vector<std::string> load_class_names(const std::string& path) {
    std::istringstream in(core::read_text_file(
        path, {"class names file", "check the path (one class name per line)"}, core::kMaxNamesBytes,
        "real names files are a few KB, 9418 ImageNet classes take 100 KB"));
    std::vector<std::string> names;
    std::string line;
    while (std::getline(in, line)) {
        // Names files written on Windows end lines with CR; editors often leave trailing blanks.
        const std::size_t end = line.find_last_not_of(" \t\r\n\v\f");
        line.erase(end == std::string::npos ? 0 : end + 1);
        names.push_back(line);
    }
    while (!names.empty() && names.back().empty()) names.pop_back();
    if (names.empty())
        throw Error(path + ": the class names file is empty; it needs one class name per line");
    return names;
}

}  // namespace fpgacnn
