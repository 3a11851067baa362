// fpgacnn-detect: darknet YOLOv2 detection on images, folders and videos.
// Exit codes: apps/common/exit_codes.hpp.
#include <filesystem>
#include <iostream>
#include <optional>

#include <spdlog/spdlog.h>

#include "../common/exit_codes.hpp"
#include "../common/guarded_main.hpp"
#include "../common/json_text.hpp"
#include "../common/load_or_calibrate.hpp"
#include "../common/model_flag_problems.hpp"
#include "../common/output_paths.hpp"
#include "../common/parse_then_run.hpp"
#include "detect_options.hpp"
#include "fpgacnn/allocator_tuning.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"
#include "input_sources.hpp"
#include "result_writers.hpp"
#include "video_runner.hpp"

namespace fs = std::filesystem;
using namespace fpgacnn;
using namespace fpgacnn::detect;

namespace {

LogLevel log_level(const DetectOptions& options) {
    return log_level_from_flags(options.quiet, options.verbosity, LogLevel::Info);
}

void report(const DetectOptions& options, const std::string& name, const DetectionResult& result,
            bool damaged = false) {
    if (options.json) {
        std::cout << apps::json_text(result_to_json(name, result, damaged)) << std::endl;
    } else {
        std::cout << result_to_text(name, result) << std::flush;
    }
}

void write_dumps(const DetectOptions& options, const Detector& detector) {
    if (!options.dump_region.empty()) write_float32_file(options.dump_region, detector.region_output());
    if (!options.dump_layers.empty()) {
        fs::create_directories(options.dump_layers);
        const int layers = static_cast<int>(detector.network().layers.size());
        for (int i = 0; i < layers; ++i) {
            char name[32];
            std::snprintf(name, sizeof(name), "layer_%02d.bin", i);
            write_float32_file((fs::path(options.dump_layers) / name).string(), detector.layer_output(i));
        }
    }
}

void detect_image(const DetectOptions& options, Detector& detector, const std::string& path) {
    const Image image = load_image(path);  // a damaged image is logged as a warning naming the file
    if (image.damaged && options.strict_images) {
        throw Error(path + ": damaged image (" + image.damage +
                    "), refused by --strict-images; run without it to detect on the part that decodes");
    }
    const DetectionResult result = detector.detect(image);
    report(options, path, result, image.damaged);
    write_dumps(options, detector);
    if (!options.output_dir.empty()) {
        fs::create_directories(options.output_dir);  // at the first output: a failed run leaves none
        cv::Mat annotated = bgr_from_image(image);
        draw_detections(annotated, result.detections);
        write_image_file(annotated_path(options.output_dir, path), annotated, "the annotated image");
    }
}

void detect_video(const DetectOptions& options, Detector& detector, const std::string& path) {
    std::string annotated;
    if (!options.output_dir.empty()) {
        annotated = (fs::path(options.output_dir) / fs::path(path).stem()).string() + ".annotated.avi";
    }
    const int frames =
        run_video(detector, path, annotated,
                  [&](const std::string& name, const DetectionResult& r) { report(options, name, r); });
    spdlog::info("{}: {} frames", path, frames);
}

void log_verification(const VerificationStats& stats) {
    if (stats.mismatches == 0) {
        spdlog::info("golden twin: {} frame(s) verified, no mismatch", stats.frames_verified);
        return;
    }
    spdlog::error("golden twin: {} of {} verified frame(s) differed from the CPU int16 backend{}",
                  stats.mismatches, stats.frames_verified, stats.fell_back ? " (fell back to the CPU)" : "");
}

void check_dump_options(const DetectOptions& options, const std::vector<InputSource>& sources) {
    const bool dumping = !options.dump_region.empty() || !options.dump_layers.empty();
    if (dumping && (sources.size() != 1 || sources.front().kind != SourceKind::Image)) {
        throw apps::CommandLineError("--dump-region / --dump-layers need exactly one input image (got " +
                                     std::to_string(sources.size()) + " inputs)");
    }
}

// The input images, for calibrating int16 when darknet's sample images are not installed.
std::vector<std::string> input_images(const std::vector<InputSource>& sources) {
    std::vector<std::string> images;
    for (const InputSource& source : sources) {
        if (source.kind == SourceKind::Image) images.push_back(source.path);
    }
    return images;
}

// Before the model loads: every output can be written.
void check_outputs(const DetectOptions& options) {
    if (!options.output_dir.empty()) apps::check_output_folder(options.output_dir, "--output");
    if (!options.dump_layers.empty()) apps::check_output_folder(options.dump_layers, "--dump-layers");
    if (!options.dump_region.empty()) apps::check_output_file(options.dump_region, "--dump-region");
}

int run(const DetectOptions& options) {
    const std::vector<InputSource> sources = collect_input_sources(options.inputs);
    check_dump_options(options, sources);
    check_outputs(options);

    std::optional<InputSizeOverride> input_override;
    if (!options.input_size.empty()) input_override = parse_input_size(options.input_size);
    Network network = apps::load_model_files(options.cfg, options.weights, input_override);
    std::vector<std::string> names;
    if (!options.names.empty()) names = load_class_names(options.names);

    DetectorOptions detector_options;
    detector_options.backend = apps::resolve_backend_options(
        network, options.device, options.precision, options.quantized, !options.quiet, input_images(sources));
    detector_options.backend.keep_layer_outputs = !options.dump_layers.empty();
    detector_options.backend.cpu_fallback = options.fallback == "cpu";
    detector_options.thresh = options.thresh;
    detector_options.hier_thresh = options.hier_thresh;
    detector_options.nms = options.nms;
    detector_options.verify = options.verify;
    Detector detector(std::move(network), std::move(names), detector_options);
    // Only now: set before loading, the loader's large temporary blocks would stay in the heap.
    spdlog::debug("{}", tune_allocator_for_frames());
    spdlog::info("{}: {} layers, input {}x{}, {:.2f} GOP/frame, device {}", options.cfg,
                 detector.network().layers.size(), detector.network().input.w, detector.network().input.h,
                 2.0 * static_cast<double>(detector.network().conv_macs()) / 1e9, detector.device_name());

    int failures = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const InputSource& source = sources[i];
        spdlog::debug("[{}/{}] {}", i + 1, sources.size(), source.path);
        try {
            if (source.kind == SourceKind::Video) {
                detect_video(options, detector, source.path);
            } else {
                detect_image(options, detector, source.path);
            }
        } catch (const Error& e) {
            // One unreadable input must not stop a folder run; the exit code still reports it.
            spdlog::error("{}", e.what());
            ++failures;
        }
    }
    if (failures > 0) spdlog::error("{} of {} inputs failed", failures, sources.size());
    if (options.verify.every > 0) log_verification(detector.verification());
    return failures > 0 ? apps::kExitFailure : apps::kExitSuccess;
}

// One line per device: "spec  usable|unusable  name" and the reason or details indented below.
int list_devices_main() {
    set_log_level(LogLevel::Warn);  // opening each device logs what it found; the listing says it
    for (const DeviceInfo& device : list_devices()) {
        std::cout << device.spec << "\t" << (device.usable ? "usable" : "unusable") << "\t" << device.name
                  << "\n";
        if (!device.detail.empty()) std::cout << "    " << device.detail << "\n";
    }
    return 0;
}

int detect_main(int argc, char** argv) {
    if (wants_device_list(argc, argv)) return list_devices_main();
    DetectOptions options;
    return apps::parse_then_run(
        "fpgacnn-detect: detect objects with a darknet YOLOv2 model on images, folders or videos",
        [&](CLI::App& app) { add_detect_options(app, options); }, argc, argv,
        [&] {
            if (const std::string problem =
                    apps::model_flags_problem(options.weights, options.precision, options.quantized);
                !problem.empty())
                throw apps::CommandLineError(problem);
            set_log_level(log_level(options));
            return run(options);
        });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-detect", detect_main, argc, argv);
}
