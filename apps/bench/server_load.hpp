// fpgacnn-bench --server: a running fpgacnn-serve measured from outside over gRPC (the Open
// Inference Protocol's ModelInfer), with N concurrent clients each on its own connection sending
// images in turn (encoded, or as RGB pixels): throughput, latency percentiles, failures by status code, and
// whether every answer carried its own request's id.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_run.hpp"

namespace fpgacnn::bench {

struct ServerLoadOptions {
    std::string address;  // host:port of the server's gRPC endpoint
    std::string model;
    int clients = 16;
    int requests = 320;               // in all, spread over the clients
    double seconds = 60;              // no request starts after this (a bound, not a target)
    double call_timeout_s = 30;       // each call's gRPC deadline
    std::vector<std::string> images;  // image files, sent in turn
    /// false: each file's bytes as BYTES [1] (the server decodes them); true (--pixels): decoded here
    /// once and sent as UINT8 [H, W, 3] RGB, so the server's time is the in-process Detector's work.
    bool send_pixels = false;
    /// --shared-memory: each client registers a POSIX shared-memory region with the server (the system
    /// shared-memory extension; same host, server started with --allow-client-shm), writes each image
    /// into it and sends requests that name the region instead of carrying the bytes.
    bool shared_memory = false;
};

struct ServerLoadResult {
    std::string address;
    std::string model;
    std::string server;  // "fpgacnn 0.x" from ServerMetadata
    int clients = 0;
    bool sent_pixels = false;
    bool shared_memory = false;
    int sent = 0;
    int answered = 0;                     // status OK
    std::map<std::string, int> failures;  // by gRPC status code name
    int wrong_ids = 0;                    // answers whose id was not their request's
    std::uint64_t detections = 0;
    double seconds = 0;
    double throughput = 0;                 // answered requests per second
    Percentiles latency;                   // ms, call to answer, answered requests only
    double client_cpu_ms_per_request = 0;  // this process's CPU time over the load / requests sent
};

/// Runs the load; throws Error naming the address when the server cannot be reached or the model
/// is not ready.
ServerLoadResult run_server_load(const ServerLoadOptions& options);

std::string server_load_to_text(const ServerLoadResult& result);
nlohmann::json server_load_to_json(const ServerLoadResult& result);

}  // namespace fpgacnn::bench
