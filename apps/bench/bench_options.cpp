#include "bench_options.hpp"

#include "../common/flag_checks.hpp"
#include "../common/model_options.hpp"

namespace fpgacnn::bench {

void add_bench_options(CLI::App& app, BenchOptions& options) {
    app.add_option("--cfg", options.cfg, "darknet network .cfg")->required()->check(CLI::ExistingFile);
    app.add_option("--weights", options.weights,
                   "darknet .weights matching the cfg (default: deterministic synthetic weights, which "
                   "time the same but detect nothing)")
        ->check(CLI::ExistingFile);
    apps::add_device_options(app, options.device, options.precision, options.quantized);
    apps::add_verify_options(app, options.verify);
    apps::add_input_size_option(app, options.input_size,
                                "network input size WxH, overriding the cfg (e.g. 416x416)");
    app.add_option("--frames", options.frames, "frames timed in each mode (single-frame and pipelined)")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    app.add_option("--warmup", options.warmup, "untimed frames first")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str();
    app.add_option("--in-flight", options.max_in_flight, "pipelined mode: frames in flight at most")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    app.add_option("--device-workers", options.device_workers,
                   "pipelined mode: device-stage workers, each with its own backend (compute units)")
        ->check(CLI::Range(1, 16))
        ->capture_default_str();
    app.add_option("--power-interval", options.power_interval_ms, "power sampling interval in ms")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    app.add_flag("--json", options.json, "print one JSON document on stdout instead of the table");
    app.add_option("--csv", options.csv, "write the per-layer table as CSV to this file");
    app.add_option("--plot", options.plot,
                   "write a PNG with per-layer time bars and each layer's roofline position");
    app.add_option("--images", options.images,
                   "a folder of images to use as frames (default: darknet's sample images)")
        ->check(CLI::ExistingDirectory);
    app.add_flag("-v,--verbose", options.verbosity, "more log output on stderr (-vv for trace)");
    app.add_flag("-q,--quiet", options.quiet, "only errors on stderr (no progress bar)");
}

}  // namespace fpgacnn::bench
