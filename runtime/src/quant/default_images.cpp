#include "fpgacnn/calibration.hpp"

namespace fpgacnn {

std::vector<std::string> default_calibration_images() {
    // Debian's darknet package ships these; they span people, animals, vehicles and scales.
    const char* const names[] = {"dog", "person", "horses", "kite", "eagle", "giraffe"};
    std::vector<std::string> paths;
    for (const char* name : names) paths.push_back(std::string("/usr/share/darknet/data/") + name + ".jpg");
    return paths;
}

}  // namespace fpgacnn
