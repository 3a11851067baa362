// fpgacnn-bench's command line.
#pragma once

#include <string>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/golden_twin.hpp"

namespace CLI {
class App;
}

namespace fpgacnn::bench {

struct BenchOptions {
    std::string cfg;
    std::string weights;       // empty: deterministic synthetic weights (speed only, no real detections)
    std::string quantized;     // int16: a quantized model file; empty: calibrate on darknet's sample images
    GoldenTwinOptions verify;  // --verify-every, --on-mismatch
    std::string device = "auto";
    Precision precision = Precision::Auto;
    std::string input_size;  // "WxH", empty: the cfg's
    int frames = 20;
    int warmup = 2;
    int max_in_flight = 4;
    int device_workers = 1;
    int power_interval_ms = 50;
    bool json = false;
    std::string csv;
    std::string plot;
    std::string images;              // a folder of input frames; default: darknet's sample images
    bool send_pixels = false;        // --pixels: frames as 8-bit RGB pixels (in-process and --server)
    bool decode_each_frame = false;  // --encoded: in-process, each frame decoded from its file's bytes
    int verbosity = 0;
    bool quiet = false;
    // --server: a running fpgacnn-serve measured over gRPC instead of a model in this process
    // (server_load.hpp; only in builds with fpgacnn-serve, FPGACNN_BENCH_SERVER).
    std::string server;  // host:port
    std::string model;
    int clients = 16;
    int requests = 320;
    double seconds = 60;
    bool shared_memory = false;  // --shared-memory: images through a registered shared-memory region
};

void add_bench_options(CLI::App& app, BenchOptions& options);

}  // namespace fpgacnn::bench
