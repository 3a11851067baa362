#include "bench_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "../common/load_or_calibrate.hpp"
#include "../common/process_cpu.hpp"
#include "fpgacnn/allocator_tuning.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/drivers/rtl_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/progress_bar.hpp"
#include "peak_rss.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The progress bar's summary, e.g. "single-frame: 100 frames in 3.2 s".
std::string frames_text(int frames) { return std::to_string(frames) + " frames"; }

Network load_network(const BenchOptions& options) {
    std::optional<InputSizeOverride> input_override;
    if (!options.input_size.empty()) input_override = parse_input_size(options.input_size);
    if (!options.weights.empty() || !options.quantized.empty())  // int16 runs from the quantized file alone
        return apps::load_model_files(options.cfg, options.weights, input_override);
    spdlog::warn(
        "no --weights: deterministic synthetic weights (the timing is the same; detections are not real)");
    Network network = load_darknet_cfg(options.cfg, input_override);
    fill_synthetic_weights(network, 1);
    fold_batchnorm(network);  // as load_darknet_model does: the backends run folded networks only
    return network;
}

std::vector<std::string> existing(const std::vector<std::string>& paths) {
    std::vector<std::string> found;
    for (const std::string& path : paths)
        if (fs::exists(path)) found.push_back(path);
    return found;
}

std::vector<std::string> folder_images(const std::string& folder) {
    std::vector<std::string> images;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
        std::string ext = entry.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
        if (ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp")
            images.push_back(entry.path().string());
    }
    std::sort(images.begin(), images.end());
    if (images.empty()) throw Error(folder + ": no .jpg, .png or .bmp images in this folder");
    return images;
}

// A gradient frame for machines without darknet's sample images.
Image synthetic_frame(int seed) {
    Image image;
    image.w = 640;
    image.h = 480;
    image.c = 3;
    image.data.resize(static_cast<std::size_t>(3) * image.w * image.h);
    std::size_t i = 0;
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < image.h; ++y)
            for (int x = 0; x < image.w; ++x)
                image.data[i++] = static_cast<float>((x + 2 * y + 97 * c + 31 * seed) % 256) / 255.0f;
    return image;
}

/// The frames line's source: the folder (or darknet's sample images) and how many images it gave.
std::string images_source(const BenchOptions& options, std::size_t count) {
    return (options.images.empty() ? std::string("darknet's sample images") : options.images) + " (" +
           std::to_string(count) + " images)";
}

std::vector<Image> load_frames(const BenchOptions& options, std::string& source) {
    const std::vector<std::string> paths = frame_image_paths(options.images);
    std::vector<Image> frames;
    frames.reserve(paths.size());
    for (const std::string& path : paths) frames.push_back(load_image(path));
    if (!frames.empty()) {
        source = images_source(options, frames.size());
        return frames;
    }
    source = "synthetic 640x480 gradients";
    for (int i = 0; i < 4; ++i) frames.push_back(synthetic_frame(i));
    return frames;
}

// The 8-bit pixels an Image was made from: its values are byte / 255 rounded to float, so the byte is
// the nearest integer to value * 255 (the loaders' and synthetic_frame's values alike).
RgbPixels pixels_of(const Image& image) {
    RgbPixels pixels;
    pixels.width = image.w;
    pixels.height = image.h;
    const std::size_t plane = static_cast<std::size_t>(image.w) * static_cast<std::size_t>(image.h);
    pixels.data.resize(plane * 3);
    for (std::size_t i = 0; i < plane; ++i) {
        for (std::size_t k = 0; k < 3; ++k)
            pixels.data[3 * i + k] =
                static_cast<std::uint8_t>(std::lround(image.data[k * plane + i] * 255.0f));
    }
    return pixels;
}

// The frames as the detector gets them, shared so that submitting one copies nothing (as a camera
// or a server hands over a fresh frame; a copy would be timed as if the detector made it): float
// images, or with --pixels the 8-bit RGB pixels fpgacnn-serve receives (letterboxed without a float
// image).
std::vector<FrameInput> bench_frames(const BenchOptions& options, std::string& source) {
    std::vector<FrameInput> frames;
    for (Image& image : load_frames(options, source)) {
        if (options.send_pixels) {
            frames.emplace_back(std::make_shared<const RgbPixels>(pixels_of(image)));
        } else {
            frames.emplace_back(std::make_shared<const Image>(std::move(image)));
        }
    }
    if (options.send_pixels) source += ", as 8-bit RGB pixels";
    return frames;
}

// One frame for a submit, and how long its decode took (--encoded; else 0).
struct SuppliedFrame {
    FrameInput input;
    double decode_ms = 0;
};

// What each submit gets: one of the frames held above, or with --encoded an image file's bytes decoded
// into 8-bit RGB pixels just before (the work fpgacnn-serve does for every encoded request, so the
// decode counts in the frame's latency and CPU, as it does for the server).
class FrameSupply {
public:
    FrameSupply(const BenchOptions& options, std::string& source) {
        if (!options.decode_each_frame) {
            frames_ = bench_frames(options, source);
            return;
        }
        for (const std::string& path : frame_image_paths(options.images))
            files_.emplace_back(path, read_image_file(path));
        if (files_.empty())
            throw Error(
                "--encoded needs image files: give --images DIR (darknet's sample images are not here)");
        source = images_source(options, files_.size()) + ", each decoded from its file before each submit";
    }

    SuppliedFrame operator()(int i) const {
        if (files_.empty()) return {frames_[static_cast<std::size_t>(i) % frames_.size()]};
        const auto& [path, bytes] = files_[static_cast<std::size_t>(i) % files_.size()];
        const auto start = Clock::now();
        const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
        auto pixels = std::make_shared<const RgbPixels>(decode_rgb_pixels(data, bytes.size(), path));
        return {FrameInput(std::move(pixels)),
                std::chrono::duration<double, std::milli>(Clock::now() - start).count()};
    }

private:
    std::vector<FrameInput> frames_;
    std::vector<std::pair<std::string, std::string>> files_;  // path, bytes
};

// Collects per-frame numbers of one mode.
struct ModeAccumulator {
    std::vector<double> latency;
    double pre = 0, device = 0, post = 0;
    // `decode_ms`: the frame's decode before the detector got it (--encoded), part of its latency and
    // of its pre-processing.
    void add(const DetectionResult& r, double decode_ms) {
        latency.push_back(decode_ms + r.milliseconds);
        pre += decode_ms + r.pre_ms;
        device += r.device_ms;
        post += r.post_ms;
    }
    ModeResult finish(double seconds, double cpu_seconds, double gop_per_frame) const {
        ModeResult m;
        m.cpu_ms_per_frame = cpu_seconds * 1000.0 / static_cast<double>(latency.size());
        m.frames = static_cast<int>(latency.size());
        m.seconds = seconds;
        m.fps = seconds > 0 ? m.frames / seconds : 0;
        m.gops = m.fps * gop_per_frame;
        m.latency = percentiles(latency);
        m.pre_ms = pre / m.frames;
        m.device_ms = device / m.frames;
        m.post_ms = post / m.frames;
        return m;
    }
};

std::uint64_t layer_macs(const Layer& layer) {
    if (layer.type != LayerType::Convolutional) return 0;
    const ConvParams& conv = layer.conv();
    return static_cast<std::uint64_t>(layer.output.size()) * static_cast<std::uint64_t>(layer.input.c) *
           static_cast<std::uint64_t>(conv.size * conv.size);
}

// What a layer must read and write at least: its input(s), its output and its weights.
std::uint64_t tensor_bytes(const Layer& layer, int element_bytes) {
    std::uint64_t elements =
        layer.type == LayerType::Route ? 2 * layer.output.size() : layer.input.size() + layer.output.size();
    if (layer.type == LayerType::Convolutional) {  // from the shapes: int16 runs free the float weights
        const ConvParams& conv = layer.conv();
        elements += static_cast<std::uint64_t>(conv.filters) *
                    (static_cast<std::uint64_t>(layer.input.c) * conv.size * conv.size + 1);
    }
    return elements * static_cast<std::uint64_t>(element_bytes);
}

/// The planner's prediction for one device layer: at the kernel's clock, and in its cycles.
struct PlannerEstimate {
    double milliseconds = 0;
    double cycles = 0;
};

// `quantized`: the network's widths (8-bit weights move half the bytes, 8-bit input and weights run
// in pairs), or null for 16 everywhere.
std::vector<std::optional<PlannerEstimate>> planner_estimates(const Network& network,
                                                              const std::string& device_spec,
                                                              const Device* device,
                                                              const QuantizedNetwork* quantized) {
    std::vector<std::optional<PlannerEstimate>> estimates(network.layers.size());
    try {
        PlanOptions plan;
        plan.maxima = device != nullptr ? device->maxima() : kernel::native_build_maxima();
        // The rtl device's memory model sets the clock, bandwidth and latencies its cycles come from.
        if (device != nullptr && device_driver(device_spec).prefix == "rtl")
            plan = rtl_plan_options(parse_rtl_spec(device_spec).memory, plan.maxima);
        if (quantized != nullptr) plan_widths_of(*quantized, plan);
        for (const LayerPlan& layer : plan_network(network, plan).layers) {
            if (layer.on_device) {
                estimates[static_cast<std::size_t>(layer.index)] =
                    PlannerEstimate{layer.estimate.milliseconds, layer.estimate.total_cycles};
            }
        }
    } catch (const Error& e) {
        spdlog::warn("no planner estimates: {}", e.what());
    }
    return estimates;
}

/// What the single-frame runs measured, summed over the frames, per network layer.
struct LayerSums {
    std::vector<double> ms;
    std::vector<std::uint64_t> bytes;
    std::vector<std::uint64_t> cycles;  // 0 where the device does not count them
    std::vector<bool> on_device;
    explicit LayerSums(std::size_t layers)
        : ms(layers, 0.0), bytes(layers, 0), cycles(layers, 0), on_device(layers) {}
};

std::vector<LayerRow> layer_rows(const Network& network, const LayerSums& sums, int frames, int element_bytes,
                                 const std::string& device_spec, const Device* device,
                                 const QuantizedNetwork* quantized) {
    const std::vector<std::optional<PlannerEstimate>> planner =
        planner_estimates(network, device_spec, device, quantized);
    std::vector<LayerRow> rows;
    double total = 0;
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const Layer& layer = network.layers[i];
        LayerRow row;
        row.index = static_cast<int>(i);
        row.type = layer_type_name(layer.type);
        row.output = layer.output;
        row.macs = layer_macs(layer);
        row.ms = sums.ms[i] / frames;
        if (planner[i]) {
            row.planner_ms = planner[i]->milliseconds;
            row.predicted_cycles = planner[i]->cycles;
        }
        row.on_device = sums.on_device[i];
        row.bytes = row.on_device ? sums.bytes[i] / static_cast<std::uint64_t>(frames)
                                  : tensor_bytes(layer, element_bytes);
        if (sums.cycles[i] > 0) row.cycles = sums.cycles[i] / static_cast<std::uint64_t>(frames);
        total += row.ms;
        rows.push_back(row);
    }
    for (LayerRow& row : rows) row.percent = total > 0 ? 100.0 * row.ms / total : 0;
    return rows;
}

}  // namespace

Percentiles percentiles(std::vector<double> values) {
    Percentiles p;
    if (values.empty()) return p;
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values) sum += v;
    p.mean = sum / static_cast<double>(values.size());
    // Nearest rank: the smallest value with at least q of the samples at or below it.
    const auto rank = [&](double q) {
        const auto n = static_cast<double>(values.size());
        const auto index = static_cast<std::size_t>(std::max(0.0, std::ceil(q * n) - 1));
        return values[std::min(index, values.size() - 1)];
    };
    p.p50 = rank(0.50);
    p.p90 = rank(0.90);
    p.p99 = rank(0.99);
    return p;
}

std::vector<std::string> frame_image_paths(const std::string& folder) {
    return folder.empty() ? existing(default_calibration_images()) : folder_images(folder);
}

std::string read_image_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw Error(path + ": cannot be read");
    if (bytes.empty()) throw Error(path + ": empty or unreadable image file");
    return bytes;
}

BenchResult run_benchmark(const BenchOptions& options) {
    BenchResult result;
    result.startup_rss_bytes = peak_rss_bytes();
    Network network = load_network(options);
    result.cfg = options.cfg;
    result.weights = !options.weights.empty()    ? options.weights
                     : options.quantized.empty() ? "synthetic"
                                                 : "none (the --quantized model)";
    result.input_w = network.input.w;
    result.input_h = network.input.h;
    result.gop_per_frame = 2.0 * static_cast<double>(network.conv_macs()) / 1e9;

    DetectorOptions detector_options;
    detector_options.backend = apps::resolve_backend_options(network, options.device, options.precision,
                                                             options.quantized, !options.quiet);
    detector_options.max_in_flight = options.max_in_flight;
    detector_options.device_workers = options.device_workers;
    detector_options.verify = options.verify;
    result.device_spec = detector_options.backend.device;
    result.precision = detector_options.backend.precision;
    result.warmup = options.warmup;
    result.max_in_flight = options.max_in_flight;
    result.device_workers = options.device_workers;
    const FrameSupply frame(options, result.frames_source);

    Detector detector(network, {}, detector_options);
    // Only now: set before loading, the loader's large temporary blocks would stay in the heap.
    spdlog::debug("{}", tune_allocator_for_frames());
    result.device_name = detector.device_name();
    spdlog::info("{}: {}x{}, {:.2f} GOP/frame on {}; frames: {}", options.cfg, network.input.w,
                 network.input.h, result.gop_per_frame, result.device_name, result.frames_source);
    {
        ProgressBar progress("warm-up", options.warmup, !options.quiet);
        for (int i = 0; i < options.warmup; ++i) {
            detector.detect(frame(i).input);
            progress.step();
        }
        progress.finish(frames_text(options.warmup));
    }

    // Single frame: one detect() after the other; per-layer times from the backend after each.
    LayerSums sums(network.layers.size());
    ModeAccumulator single;
    {
        ProgressBar progress("single-frame", options.frames, !options.quiet);
        const auto start = Clock::now();
        const double cpu_start = apps::process_cpu_seconds();
        for (int i = 0; i < options.frames; ++i) {
            const SuppliedFrame supplied = frame(i);
            single.add(detector.detect(supplied.input), supplied.decode_ms);
            for (const LayerTiming& t : detector.layer_times()) {
                const auto l = static_cast<std::size_t>(t.layer);
                sums.ms[l] += t.milliseconds;
                sums.bytes[l] += t.bytes_moved;
                sums.cycles[l] += t.cycles;
                sums.on_device[l] = t.on_device;
            }
            progress.step();
        }
        progress.finish(frames_text(options.frames));
        result.single = single.finish(std::chrono::duration<double>(Clock::now() - start).count(),
                                      apps::process_cpu_seconds() - cpu_start, result.gop_per_frame);
    }

    // Pipelined: submit() as fast as back-pressure allows, power sampled over exactly this run.
    ModeAccumulator pipelined;
    {
        ProgressBar progress("pipelined", options.frames, !options.quiet);
        PowerMonitor power(detector.device(), "/", std::chrono::milliseconds(options.power_interval_ms));
        const auto start = Clock::now();
        const double cpu_start = apps::process_cpu_seconds();
        std::vector<std::future<DetectionResult>> futures;
        std::vector<double> decode_ms;
        std::size_t collected = 0;
        const auto collect = [&](bool wait) {
            while (collected < futures.size() && (wait || futures[collected].wait_for(std::chrono::seconds(
                                                              0)) == std::future_status::ready)) {
                pipelined.add(futures[collected].get(), decode_ms[collected]);
                ++collected;
                progress.step();
            }
        };
        for (int i = 0; i < options.frames; ++i) {
            SuppliedFrame supplied = frame(i);
            decode_ms.push_back(supplied.decode_ms);
            futures.push_back(detector.submit(std::move(supplied.input)));
            collect(false);
        }
        collect(true);
        progress.finish(frames_text(options.frames));
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        const double cpu_seconds = apps::process_cpu_seconds() - cpu_start;
        result.power = power.stop();
        result.pipelined = pipelined.finish(seconds, cpu_seconds, result.gop_per_frame);
    }
    if (result.power.available) {
        result.joules_per_frame = result.power.joules / options.frames;
        if (result.power.average_watts > 0)
            result.gops_per_watt = result.pipelined.gops / result.power.average_watts;
    }

    const bool device_timed =
        std::find(sums.on_device.begin(), sums.on_device.end(), true) != sums.on_device.end();
    // Fixed point holds every value (8-bit ones too, so far) in 16-bit words in host memory; the
    // device's counters below see its 8-bit conv weights packed two per word.
    const int element_bytes = is_fixed_point(result.precision) ? 2 : 4;
    const std::shared_ptr<const QuantizedNetwork>& quantized = detector_options.backend.quantized;
    result.layers = layer_rows(network, sums, options.frames, element_bytes,
                               resolve_device(result.device_spec), detector.device(), quantized.get());
    result.timing_basis = device_timed ? "device time per command (host layers: 0)"
                                       : "wall clock per layer on the host, single-frame runs";
    result.bytes_basis = device_timed ? "device AXI traffic counters"
                                      : "tensor bytes: inputs + output + weights at " +
                                            std::to_string(element_bytes) + " bytes per value";
    // Before the roofs: their memcpy bandwidth probe copies 64 MiB buffers that are no part of the model.
    result.peak_rss_bytes = peak_rss_bytes();
    result.roofs = machine_roofs(detector.device(), result.precision);
    result.verification = detector.verification();
    return result;
}

}  // namespace fpgacnn::bench
