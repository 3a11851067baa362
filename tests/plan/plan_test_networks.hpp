// The networks the planner tests run on: YOLO-LITE (shared models), yolov2-tiny and yolov2 (Debian's
// darknet cfgs), shapes only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

struct NamedCfg {
    std::string name;
    std::string path;
    std::optional<InputSizeOverride> size;
};

/// yolo-lite only when shared/ exists.
inline std::vector<NamedCfg> planner_networks() {
    std::vector<NamedCfg> cfgs;
    const std::string lite = shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg");
    if (!lite.empty()) cfgs.push_back({"yolo-lite", lite, std::nullopt});
    cfgs.push_back({"yolov2-tiny", darknet_file("cfg/yolov2-tiny.cfg"), InputSizeOverride{416, 416}});
    cfgs.push_back({"yolov2-416", darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416}});
    cfgs.push_back({"yolov2-160", darknet_file("cfg/yolov2.cfg"), InputSizeOverride{160, 160}});
    return cfgs;
}

}  // namespace fpgacnn::test
