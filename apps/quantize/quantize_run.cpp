#include "quantize_run.hpp"

#include <filesystem>
#include <memory>
#include <optional>

#include "../common/output_paths.hpp"
#include "../detect/result_writers.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/equalization.hpp"
#include "fpgacnn/quant_accuracy.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "image_list.hpp"
#include "width_plot.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::quantize {
namespace {

// The float reference against the CPU int16 backend running `quantized`, on the calibration images.
AccuracyReport accuracy_report(const QuantizedNetwork& quantized, const std::vector<std::string>& images,
                               bool progress) {
    const Network& network = quantized.network;
    BackendOptions cpu;
    cpu.device = "cpu";
    cpu.precision = Precision::Float;
    const std::unique_ptr<Backend> reference = make_backend(network, cpu);
    cpu.precision = Precision::Mixed;  // the widths just chosen
    cpu.keep_layer_outputs = true;     // the report compares every layer
    cpu.quantized =
        std::shared_ptr<const QuantizedNetwork>(std::shared_ptr<void>(), &quantized);  // non-owning
    const std::unique_ptr<Backend> fixed_point = make_backend(network, cpu);
    AccuracyOptions accuracy;
    accuracy.progress = progress;
    return evaluate_quantization(network, *reference, *fixed_point, images, accuracy);
}

}  // namespace

QuantizeOutcome quantize_model(const QuantizeOptions& options) {
    apps::check_output_file(options.out, "--out");  // before minutes of calibration
    if (!options.plot.empty()) apps::check_output_file(options.plot, "--plot");
    std::optional<InputSizeOverride> input_override;
    if (!options.input_size.empty()) input_override = parse_input_size(options.input_size);
    const Network network = load_darknet_model(options.cfg, options.weights, input_override);

    QuantizeOutcome outcome;
    // Equalization rescales the weights without changing what the network computes: calibrate the
    // rescaled copy, then bind the file to the weights given (the float reference stays theirs).
    std::optional<Network> equalized;  // a copy only when asked: yolov2's weights are 200 MB
    if (options.equalize) {
        equalized = network;
        outcome.equalized = equalize_conv_ranges(*equalized);
    }
    const Network& calibrated = equalized ? *equalized : network;
    outcome.out_path = options.out;
    outcome.images =
        options.images.empty() ? default_calibration_images() : expand_image_arguments(options.images);

    CalibrationOptions calibration;
    calibration.percentile = options.percentile;
    calibration.activation_margin_bits = options.activation_margin_bits;
    calibration.accumulator_margin_bits = options.accumulator_margin_bits;
    calibration.progress = !options.quiet;
    if (options.explore) {
        ExploreOptions explore;
        explore.max_loss_percent = options.max_loss_percent;
        explore.thresh = options.thresh;
        explore.progress = !options.quiet;
        calibration.progress = false;  // the exploration's own bar follows the one float pass
        outcome.exploration =
            explore_widths(calibrated, outcome.images, calibration, explore, outcome.calibration);
        outcome.accuracy = outcome.exploration->points[outcome.exploration->chosen].accuracy;
    } else {
        calibration.widths = widths_from_flags(network, options.bits, options.widths);
        outcome.calibration = calibrate(calibrated, outcome.images, calibration);
    }
    if (equalized) outcome.calibration.quantized.network = network;  // bound to the weights given
    save_quantized_network(outcome.calibration.quantized, options.out);
    if (!options.plot.empty()) {
        detect::write_image_file(options.plot,
                                 draw_width_plot(*outcome.exploration, fs::path(options.cfg).stem().string()),
                                 "the width plot");
    }

    if (options.report && !outcome.accuracy)
        outcome.accuracy = accuracy_report(outcome.calibration.quantized, outcome.images, !options.quiet);
    return outcome;
}

}  // namespace fpgacnn::quantize
