// fpgacnn-camera: runs the detector on a camera, video file or GStreamer pipeline and serves the
// annotated video (MJPEG), the detections (Server-Sent Events) and a viewer page over HTTP.
// Exit codes (apps/common/exit_codes.hpp): 0 also for a clean stop (SIGINT/SIGTERM, end of a --once
// file, window closed); 1 also for a server error.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>
#include <opencv2/highgui.hpp>

#include "../common/exit_codes.hpp"
#include "../common/guarded_main.hpp"
#include "../common/load_or_calibrate.hpp"
#include "../common/model_flag_problems.hpp"
#include "../common/parse_then_run.hpp"
#include "camera_options.hpp"
#include "fpgacnn/allocator_tuning.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"
#include "frame_pipeline.hpp"
#include "http_server.hpp"
#include "page.hpp"

using namespace fpgacnn;
using namespace fpgacnn::camera;

namespace {

constexpr const char* kWindowTitle = "fpgacnn-camera";

std::unique_ptr<Detector> make_detector(const CameraOptions& options) {
    Network network = apps::load_model_files(options.cfg, options.weights);
    std::vector<std::string> names;
    if (!options.names.empty()) names = load_class_names(options.names);
    DetectorOptions detector_options;
    // A live source offers no fixed image set: int16 calibrates on darknet's sample images only.
    detector_options.backend = apps::resolve_backend_options(network, options.device, options.precision,
                                                             options.quantized, !options.quiet);
    detector_options.thresh = options.thresh;
    detector_options.nms = options.nms;
    detector_options.verify = options.verify;
    auto detector = std::make_unique<Detector>(std::move(network), std::move(names), detector_options);
    // Only now: set before loading, the loader's large temporary blocks would stay in the heap.
    spdlog::debug("{}", tune_allocator_for_frames());
    spdlog::info("{}: {} layers, input {}x{}, device {}", options.cfg, detector->network().layers.size(),
                 detector->network().input.w, detector->network().input.h, detector->device_name());
    return detector;
}

bool display_available() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 != nullptr && *x11 != '\0') || (wayland != nullptr && *wayland != '\0');
}

// --show: the window lives on the main thread (GUI toolkits want that) until it is closed, 'q' or
// Esc is pressed, or the server shuts down.
void show_window(LatestPicture& latest, StopFlag& stop) {
    cv::namedWindow(kWindowTitle, cv::WINDOW_AUTOSIZE);
    cv::Mat picture;
    while (!stop.requested()) {
        if (latest.take_if_new(picture)) cv::imshow(kWindowTitle, picture);
        const int key = cv::waitKey(15);
        if (key == 'q' || key == 27) break;
        if (cv::getWindowProperty(kWindowTitle, cv::WND_PROP_VISIBLE) < 1) break;
    }
    cv::destroyAllWindows();
}

int run(const CameraOptions& options) {
    if (options.show && !display_available()) {
        throw Error(
            "--show needs a display, but neither DISPLAY nor WAYLAND_DISPLAY is set: run without --show "
            "and open the page in a browser");
    }
    std::unique_ptr<Detector> detector = make_detector(options);
    FrameSourceOptions source_options;
    source_options.loop = !options.once;
    source_options.max_fps = options.max_fps;
    FrameSource source(options.input, source_options);
    spdlog::info("input: {}", source.description());

    ServerOptions server_options;
    server_options.bind = options.bind;
    server_options.port = static_cast<unsigned short>(options.port);
    server_options.client_queue = static_cast<std::size_t>(options.client_queue);
    server_options.max_clients = static_cast<std::size_t>(options.max_clients);
    HttpServer server(server_options, std::string(viewer_page()));
    // Machine-readable: scripts and tests read the port from this line (--port 0).
    std::cout << "listening on " << server.url() << std::endl;

    StopFlag stop;
    server.start([&stop](const std::string&) { stop.request(); });

    LatestPicture latest;
    PipelineOptions pipeline_options;
    const Network& network = detector->network();
    pipeline_options.classes = network.output_classes();  // the [region] layer's, or the [yolo] heads'
    pipeline_options.jpeg_quality = options.jpeg_quality;
    if (options.show) pipeline_options.show = &latest;
    int exit_code = 0;
    std::thread pipeline([&] {
        try {
            // Three frames queued keep the detector's three stages (pre, device, post) busy at once.
            DetectionStep detection(*detector, std::min(3, detector->options().max_in_flight));
            const std::uint64_t frames = run_frame_pipeline(
                source, detection, [&server](PublishedFrame frame) { server.publish(std::move(frame)); },
                pipeline_options, stop);
            spdlog::info("{} frames processed", frames);
            server.shutdown("end of input");
        } catch (const std::exception& e) {
            spdlog::error("{}", e.what());
            exit_code = 1;
            server.shutdown("frame pipeline failed");
        }
    });
    if (options.show) {
        show_window(latest, stop);
        server.shutdown("window closed");
    }
    server.wait();
    stop.request();
    pipeline.join();
    if (options.verify.every > 0) {
        const VerificationStats twin = detector->verification();
        spdlog::info("golden twin: {} frame(s) verified, {} mismatch(es){}", twin.frames_verified,
                     twin.mismatches, twin.fell_back ? ", fell back to the CPU" : "");
    }
    const ServerStats stats = server.stats();
    spdlog::info("served {} frames; slow clients lost {}, server backlog dropped {}; {} bad requests",
                 stats.published, stats.dropped_clients, stats.dropped_backlog, stats.bad_requests);
    return exit_code;
}

int camera_main(int argc, char** argv) {
    CameraOptions options;
    return apps::parse_then_run(
        "fpgacnn-camera: live object detection on a camera or video, viewed in a web browser",
        [&](CLI::App& app) { add_camera_options(app, options); }, argc, argv,
        [&] {
            if (const std::string problem =
                    apps::model_flags_problem(options.weights, options.precision, options.quantized);
                !problem.empty())
                throw apps::CommandLineError(problem);
            set_log_level(log_level_from_flags(options.quiet, options.verbosity, LogLevel::Info));
            return run(options);
        });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-camera", camera_main, argc, argv);
}
