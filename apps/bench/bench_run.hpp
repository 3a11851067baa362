// What fpgacnn-bench measures and how: single-frame runs (Detector::detect), pipelined runs
// (Detector::submit) with power sampled meanwhile, per-layer times and the planner's estimates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "fpgacnn/backend.hpp"
#include "fpgacnn/golden_twin.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/power.hpp"
#include "machine_roofs.hpp"

namespace fpgacnn::bench {

struct Percentiles {
    double mean = 0;
    double p50 = 0;
    double p90 = 0;
    double p99 = 0;
};

struct ModeResult {
    int frames = 0;
    double seconds = 0;
    double fps = 0;
    double gops = 0;      // GOP per second at this frame rate
    Percentiles latency;  // ms per frame (pipelined: submit to result, waiting included)
    double pre_ms = 0;    // mean stage times
    double device_ms = 0;
    double post_ms = 0;
    double cpu_ms_per_frame = 0;  // the process's CPU time (all threads) over the mode / frames
};

struct LayerRow {
    int index = 0;
    std::string type;
    TensorShape output;
    std::uint64_t macs = 0;
    double ms = 0;                           // mean measured time (device time on accelerators)
    std::optional<double> planner_ms;        // the planner's latency model for the kernel build
    std::optional<double> predicted_cycles;  // the same model in kernel clock cycles
    std::optional<std::uint64_t> cycles;     // mean cycles the device counted (the rtl simulation)
    std::uint64_t bytes = 0;                 // device counters, or the tensors and weights it touches
    bool on_device = false;
    double percent = 0;  // of the sum of layer times
    double gops() const { return ms > 0 ? 2.0 * static_cast<double>(macs) / (ms * 1e6) : 0; }
    double ops_per_byte() const {
        return bytes > 0 ? 2.0 * static_cast<double>(macs) / static_cast<double>(bytes) : 0;
    }
};

struct BenchResult {
    std::string cfg;
    std::string weights;  // "synthetic" when none was given
    std::string device_spec;
    std::string device_name;
    Precision precision = Precision::Float;  // resolved: Float or a fixed-point one
    int input_w = 0;
    int input_h = 0;
    int warmup = 0;
    int max_in_flight = 0;
    int device_workers = 0;
    std::string frames_source;
    double gop_per_frame = 0;
    ModeResult single;
    ModeResult pipelined;
    std::vector<LayerRow> layers;
    std::string timing_basis;  // what the layer times are
    std::string bytes_basis;   // what the layer bytes are
    MachineRoofs roofs;
    PowerReport power;  // sampled during the pipelined run
    double joules_per_frame = 0;
    double gops_per_watt = 0;
    /// Peak RSS before the model was loaded (the shared libraries: the start-up footprint) and at the
    /// end of the run; the difference is what the model, the backend and the frames cost.
    std::uint64_t startup_rss_bytes = 0;
    std::uint64_t peak_rss_bytes = 0;
    VerificationStats verification;  // golden twin over every frame run (warm-up included)
};

/// Runs the whole benchmark; throws Error for bad models, devices or inputs.
BenchResult run_benchmark(const BenchOptions& options);

/// Mean and nearest-rank percentiles of `values`.
Percentiles percentiles(std::vector<double> values);
/// The image files of `folder` (.jpg, .png, .bmp, sorted; throws Error when there are none), or with
/// an empty folder darknet's sample images that exist on this machine (possibly none).
std::vector<std::string> frame_image_paths(const std::string& folder);
/// An image file's bytes, as they are (--encoded in-process, and --server's encoded requests); throws
/// Error naming the file when it cannot be read or is empty.
std::string read_image_file(const std::string& path);

}  // namespace fpgacnn::bench
