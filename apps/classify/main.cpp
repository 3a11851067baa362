// fpgacnn-classify: the top-k classes of images with a darknet classifier (darknet19, resnet50,
// alexnet, ...), as `darknet classifier predict` prints them. Exit codes: apps/common/exit_codes.hpp.
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "../common/exit_codes.hpp"
#include "../common/guarded_main.hpp"
#include "../common/json_text.hpp"
#include "../common/load_or_calibrate.hpp"
#include "../common/model_flag_problems.hpp"
#include "../common/parse_then_run.hpp"
#include "classify_options.hpp"
#include "fpgacnn/classifier.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"

using namespace fpgacnn;
using namespace fpgacnn::classify;

namespace {

nlohmann::json result_to_json(const std::string& image, const ClassificationResult& result) {
    nlohmann::json top = nlohmann::json::array();
    for (const Classification& c : result.top) {
        top.push_back({{"class_id", c.class_id}, {"label", c.label}, {"probability", c.probability}});
    }
    return {{"image", image}, {"milliseconds", result.milliseconds}, {"top", top}};
}

// darknet's predict_classifier line: "%5.2f%%: %s".
std::string result_to_text(const std::string& image, const ClassificationResult& result) {
    std::string text = fmt::format("{}: classified in {:.1f} ms\n", image, result.milliseconds);
    for (const Classification& c : result.top)
        text += fmt::format("{:5.2f}%: {}\n", c.probability * 100, c.label);
    return text;
}

std::vector<std::string> labels_for(const ClassifyOptions& options) {
    if (!options.labels.empty()) return load_class_names(options.labels);
    if (std::filesystem::is_regular_file(kDefaultLabels)) return load_class_names(kDefaultLabels);
    spdlog::warn("no --labels and {} is not installed: classes are printed as class_<id>", kDefaultLabels);
    return {};
}

int run(const ClassifyOptions& options) {
    std::optional<InputSizeOverride> input_override;
    if (!options.input_size.empty()) input_override = parse_input_size(options.input_size);
    Network network = apps::load_model_files(options.cfg, options.weights, input_override);
    if (!network.is_classifier()) {
        throw Error(options.cfg +
                    " is not a classifier (its output is not a [softmax] layer); detect with "
                    "fpgacnn-detect");
    }
    std::vector<std::string> labels = labels_for(options);
    // darknet's imagenet.shortnames.list has 21842 lines, of which imagenet1k uses the first 1000: only
    // too few labels are suspicious.
    if (!labels.empty() && labels.size() < static_cast<std::size_t>(network.output_classes())) {
        spdlog::warn("{} labels for {} classes: the others are printed as class_<id>", labels.size(),
                     network.output_classes());
    }
    ClassifierOptions classifier_options;
    classifier_options.backend = apps::resolve_backend_options(
        network, options.device, options.precision, options.quantized, !options.quiet, options.images);
    classifier_options.top = options.top;
    Classifier classifier(std::move(network), std::move(labels), classifier_options);
    spdlog::info("{}: {} layers, input {}x{}, {:.2f} GOP/image, {} classes, device {}", options.cfg,
                 classifier.network().layers.size(), classifier.network().input.w,
                 classifier.network().input.h,
                 2.0 * static_cast<double>(classifier.network().conv_macs()) / 1e9,
                 classifier.network().output_classes(), classifier.device_name());
    int failures = 0;
    for (const std::string& path : options.images) {
        try {
            const ClassificationResult result = classifier.classify(load_image(path));
            if (options.json) {
                std::cout << apps::json_text(result_to_json(path, result)) << std::endl;
            } else {
                std::cout << result_to_text(path, result) << std::flush;
            }
        } catch (const Error& e) {
            spdlog::error("{}", e.what());  // one bad image must not stop the others
            ++failures;
        }
    }
    return failures > 0 ? apps::kExitFailure : apps::kExitSuccess;
}

int classify_main(int argc, char** argv) {
    ClassifyOptions options;
    return apps::parse_then_run(
        "fpgacnn-classify: the most probable classes of images with a darknet classifier",
        [&](CLI::App& app) { add_classify_options(app, options); }, argc, argv,
        [&] {
            apps::require_model_flags(options.weights, options.precision, options.quantized);
            set_log_level(log_level_from_flags(options.quiet, options.verbosity, LogLevel::Info));
            return run(options);
        });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-classify", classify_main, argc, argv);
}
