#include "bench_options.hpp"

#include <CLI/CLI.hpp>

#include "../common/flag_checks.hpp"
#include "../common/model_options.hpp"

namespace fpgacnn::bench {

void add_bench_options(CLI::App& app, BenchOptions& options) {
    app.add_option("--cfg", options.cfg, "darknet network .cfg (required unless --server)")
        ->check(CLI::ExistingFile);
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
#ifdef FPGACNN_BENCH_SERVER
    CLI::Option* server =
        app.add_option("--server", options.server,
                       "measure a running fpgacnn-serve at this gRPC address (host:port) instead of a model "
                       "here: --clients concurrent clients send --images in turn");
    for (const char* model_flag : {"--cfg", "--weights", "--quantized", "--device", "--precision"})
        server->excludes(model_flag);
    app.add_option("--model", options.model, "--server: the model to call (a folder name of its repository)")
        ->needs(server);
    app.add_option("--clients", options.clients, "--server: concurrent clients, one connection each")
        ->check(CLI::Range(1, 256))
        ->needs(server)
        ->capture_default_str();
    app.add_option("--requests", options.requests, "--server: requests in all")
        ->check(CLI::Range(1, 10000000))
        ->needs(server)
        ->capture_default_str();
    app.add_option("--seconds", options.seconds, "--server: no request starts after this many seconds")
        ->check(apps::finite_range(0.1, 86400))
        ->needs(server)
        ->capture_default_str();
    app.add_flag("--shared-memory", options.shared_memory,
                 "--server on this host: each client writes the images into a shared-memory region it "
                 "registers, and its requests name the region instead of carrying the bytes (the server "
                 "needs --allow-client-shm)")
        ->needs(server);
#endif
    CLI::Option* pixels =
        app.add_flag("--pixels", options.send_pixels,
                     "frames as 8-bit RGB pixels, as fpgacnn-serve receives them: in-process, the Detector "
                     "letterboxes them without a float image; with --server, the images are decoded here and "
                     "sent as UINT8 [H, W, 3] instead of the files");
    app.add_flag("--encoded", options.decode_each_frame,
                 "in-process: each frame is decoded from its image file's bytes just before it is submitted, "
                 "as fpgacnn-serve decodes every encoded request, so the decode is timed too (with --server "
                 "the files are sent encoded unless --pixels)")
        ->excludes(pixels);
    app.add_flag("-v,--verbose", options.verbosity, "more log output on stderr (-vv for trace)");
    app.add_flag("-q,--quiet", options.quiet, "only errors on stderr (no progress bar)");
}

}  // namespace fpgacnn::bench
