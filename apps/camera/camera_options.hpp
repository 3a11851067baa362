// fpgacnn-camera's command line.
#pragma once

#include <string>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/golden_twin.hpp"

namespace CLI {
class App;
}

namespace fpgacnn::camera {

struct CameraOptions {
    std::string input;  // camera index, /dev/videoN, video file or GStreamer pipeline
    std::string cfg;
    std::string weights;
    std::string names;
    std::string device = "auto";
    Precision precision = Precision::Auto;
    GoldenTwinOptions verify;  // --verify-every, --on-mismatch
    std::string quantized;
    float thresh = 0.5f;
    float nms = 0.45f;
    bool once = false;
    double max_fps = 0.0;
    std::string bind = "127.0.0.1";
    int port = 8080;
    int jpeg_quality = 80;
    int client_queue = 2;
    int max_clients = 100;
    bool show = false;
    int verbosity = 0;
    bool quiet = false;
};

void add_camera_options(CLI::App& app, CameraOptions& options);

}  // namespace fpgacnn::camera
