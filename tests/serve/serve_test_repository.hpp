// The model repository tests/serve's suites serve from: YOLO-LITE VOC from shared/models.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "test_paths.hpp"

namespace fpgacnn::serve {

/// A fresh model repository holding YOLO-LITE (cpu, int16, thresh 0.25) as model "yolo-lite".
inline std::filesystem::path yolo_lite_repository(const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path root = test::scratch_dir(name);
    fs::remove_all(root);
    fs::create_directories(root / "yolo-lite");
    const std::string folder = test::shared_model_file("yolo-lite-voc", "");
    std::ofstream(root / "yolo-lite" / "model.json")
        << R"({"cfg": ")" << folder << R"(/tiny-yolov2-trial3-noBatch.cfg", "weights": ")" << folder
        << R"(/tiny-yolov2-trial3-noBatch.weights", "names": ")" << folder << R"(/voc.names", "device": "cpu",
             "precision": "int16", "thresh": 0.25})";
    return root;
}

}  // namespace fpgacnn::serve
