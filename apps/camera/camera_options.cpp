#include "camera_options.hpp"

#include <CLI/CLI.hpp>

#include "../common/flag_checks.hpp"
#include "../common/model_options.hpp"

namespace fpgacnn::camera {

void add_camera_options(CLI::App& app, CameraOptions& options) {
    app.add_option("--input", options.input,
                   "frames from: a V4L2 camera (0, /dev/video0), a video file (looped unless --once) or a "
                   "GStreamer pipeline ending in appsink")
        ->required();
    apps::add_model_file_options(app, options.cfg, options.weights, options.names);
    apps::add_device_options(app, options.device, options.precision, options.quantized);
    apps::add_verify_options(app, options.verify);
    apps::add_threshold_options(app, options.thresh, options.nms);
    app.add_flag("--once", options.once, "play a video file once, then exit (default: loop it)");
    app.add_option("--max-fps", options.max_fps,
                   "at most this many frames per second (0: a camera's own rate, a file's recorded rate)")
        ->check(apps::finite_range(0.0, 1000.0))
        ->capture_default_str();
    app.add_option("--bind", options.bind,
                   "address to listen on; 0.0.0.0 to be reachable from other machines")
        ->capture_default_str();
    app.add_option("--port", options.port, "TCP port; 0 picks a free one (printed on stdout)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    app.add_option("--jpeg-quality", options.jpeg_quality, "JPEG quality of /stream")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    app.add_option("--client-queue", options.client_queue,
                   "frames queued per client; a slower client loses the oldest")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    app.add_option("--max-clients", options.max_clients,
                   "/stream and /events viewers served at once (more get 503; connections that have not sent "
                   "a request do not count)")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    app.add_flag("--show", options.show, "also show the annotated video in a local window (needs a display)");
    apps::add_log_options(app, options.verbosity, options.quiet);
}

}  // namespace fpgacnn::camera
