// The CPU int16 backend's speed: the large 3x3 layers of yolov2 at 416x416 per ISA path, and the
// whole yolov2 416 network (synthetic weights, naively quantized at fixed exponents: only for
// timing, real calibration is fpgacnn-quantize's job).
//
//   bench_int16_conv [benchmark flags] [--darknet_cfg=PATH]
//
// Counters: GOP/s (2 ops per multiply-accumulate) and fraction_of_peak, the int16 peak being
// cores x clock x 64 ops/cycle (AVX2 vpmaddwd: 16 MACs per instruction, 2 per cycle). The clock
// comes from /proc/cpuinfo "cpu MHz". Targets (docs/arithmetic.md, issue 3): >= 60 % of peak on the
// large 3x3 layers; whole yolov2 416 at 2x OpenCV DNN float (about 225 ms, i.e. ~262 GOP/s).
// Other processes on the machine skew the numbers: run it on a quiet machine.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../runtime/src/core/thread_pool.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace {

using fpgacnn::Int16Isa;

std::string g_darknet_cfg = "/usr/share/darknet/cfg/yolov2.cfg";

double cpu_mhz() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("cpu MHz", 0) == 0) return std::atof(line.substr(line.find(':') + 1).c_str());
    }
    return 0.0;
}

int core_count() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// ops per second of `threads` cores at 2 x vpmaddwd (16 MACs = 32 ops each) per cycle.
double peak_ops(int threads) { return threads * cpu_mhz() * 1e6 * 2 * 16 * 2; }

// Runs the timed loop and sets GOP/s, fraction_of_peak and ms (per iteration) from wall time
// (the work is spread over threads, so CPU time of the main thread says little).
template <typename Body>
void timed_loop(benchmark::State& state, double ops_per_iteration, int threads, Body body) {
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) body();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double iterations = static_cast<double>(state.iterations());
    const double ops_per_second = ops_per_iteration * iterations / seconds;
    state.counters["GOP/s"] = ops_per_second * 1e-9;
    state.counters["ms"] = seconds / iterations * 1e3;
    const double peak = peak_ops(threads);
    if (peak > 0) state.counters["fraction_of_peak"] = ops_per_second / peak;
}

struct ConvLayerSpec {
    const char* name;  // yolov2.cfg layer index at 416x416
    int channels, size, filters;
};

// The large 3x3 layers of yolov2 at 416x416 (layer indexes as darknet counts them).
const ConvLayerSpec kLayers[] = {
    {"L4_104x104x64to128", 64, 104, 128},
    {"L8_52x52x128to256", 128, 52, 256},
    {"L12_26x26x256to512", 256, 26, 512},
    {"L18_13x13x512to1024", 512, 13, 1024},
};

void bench_conv(benchmark::State& state, ConvLayerSpec spec, Int16Isa isa, int threads) {
    fpgacnn::Int16ConvArgs args;
    args.input = {spec.channels, spec.size, spec.size};
    args.output = {spec.filters, spec.size, spec.size};
    args.size = 3;
    args.pad = 1;
    args.leaky = true;
    args.bias_shift = 6;
    args.output_shift = 14;
    std::mt19937 rng(1);
    std::uniform_int_distribution<int> small(-2000, 2000);
    std::vector<int16_t> weights(args.weight_count()), biases(static_cast<std::size_t>(spec.filters));
    std::vector<int16_t> input(args.input.size()), output(args.output.size());
    for (int16_t& v : weights) v = static_cast<int16_t>(small(rng));
    for (int16_t& v : biases) v = static_cast<int16_t>(small(rng));
    for (int16_t& v : input) v = static_cast<int16_t>(small(rng));
    fpgacnn::Int16PackedConv conv(args, weights.data(), biases.data(), isa);
    fpgacnn::ThreadPool pool(threads);
    const double ops = 2.0 * static_cast<double>(args.weight_count()) * spec.size * spec.size;
    timed_loop(state, ops, pool.size(), [&] {
        conv.run(input.data(), output.data(), &pool);
        benchmark::DoNotOptimize(output.data());
        benchmark::ClobberMemory();
    });
}

// Exponent that puts the largest magnitude just under 2^15 (clamped to the contract's range).
int exponent_for(float max_abs) {
    if (!(max_abs > 0)) return fpgacnn::arith::kMaxExponent;
    const int q = static_cast<int>(std::floor(std::log2(32767.0 / max_abs)));
    return std::clamp(q, fpgacnn::arith::kMinExponent, fpgacnn::arith::kMaxExponent);
}

// yolov2 416 with synthetic weights, quantized naively: every activation at Q10 (the input at
// Q14), weights at their own max exponent, biases as precise as the shift limit allows.
fpgacnn::QuantizedNetwork naive_yolov2() {
    fpgacnn::Network network = fpgacnn::load_darknet_cfg(g_darknet_cfg, fpgacnn::InputSizeOverride{416, 416});
    fpgacnn::fill_synthetic_weights(network, 42);
    fpgacnn::fold_batchnorm(network);
    fpgacnn::QuantizedNetwork q;
    q.input_q = 14;
    const int activation_q = 10;
    for (const fpgacnn::Layer& layer : network.layers) {
        fpgacnn::QuantizedLayer ql;
        ql.input_q = layer.index == 0 ? q.input_q : activation_q;
        ql.output_q = activation_q;
        if (layer.type == fpgacnn::LayerType::Route) ql.input_q = activation_q;
        if (layer.type == fpgacnn::LayerType::Convolutional) {
            const fpgacnn::ConvParams& conv = layer.conv();
            float max_w = 0, max_b = 0;
            for (float w : conv.weights) max_w = std::max(max_w, std::fabs(w));
            for (float b : conv.biases) max_b = std::max(max_b, std::fabs(b));
            ql.weight_q = exponent_for(max_w);
            const int acc_q = ql.weight_q + ql.input_q;
            ql.bias_q = std::clamp(exponent_for(max_b), acc_q - fpgacnn::arith::kModelMaxBiasShift, acc_q);
            for (float w : conv.weights) ql.weights.push_back(fpgacnn::arith::quantize(w, ql.weight_q));
            for (float b : conv.biases) ql.biases.push_back(fpgacnn::arith::quantize(b, ql.bias_q));
        }
        q.layers.push_back(std::move(ql));
    }
    q.network = std::move(network);
    return q;
}

void bench_yolov2(benchmark::State& state, Int16Isa isa, int threads) {
    static const fpgacnn::QuantizedNetwork network = naive_yolov2();
    fpgacnn::Int16Engine engine(network, isa, threads);
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> pixel(0, 1 << 14);
    std::vector<int16_t> input(network.network.input.size());
    for (int16_t& v : input) v = static_cast<int16_t>(pixel(rng));
    const double ops = 2.0 * static_cast<double>(network.network.conv_macs());
    timed_loop(state, ops, threads > 0 ? threads : core_count(), [&] {
        benchmark::DoNotOptimize(engine.run(input.data()).data());
        benchmark::ClobberMemory();
    });
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--darknet_cfg=", 0) == 0) {
            g_darknet_cfg = arg.substr(14);
        } else {
            args.push_back(argv[i]);
        }
    }
    int count = static_cast<int>(args.size());
    benchmark::Initialize(&count, args.data());
    std::cout << "int16 peak: " << core_count() << " cores x " << cpu_mhz()
              << " MHz x 64 ops/cycle = " << peak_ops(core_count()) * 1e-9 << " GOP/s\n";
    for (Int16Isa isa : fpgacnn::supported_int16_isas()) {
        const std::string isa_name = fpgacnn::isa_name(isa);
        const bool slow = isa == Int16Isa::Scalar;
        for (const ConvLayerSpec& spec : kLayers) {
            for (int threads : {core_count(), 1}) {
                auto* b = benchmark::RegisterBenchmark(
                    ("conv3x3/" + isa_name + "/" + spec.name + "/threads:" + std::to_string(threads)).c_str(),
                    bench_conv, spec, isa, threads);
                b->Unit(benchmark::kMillisecond)->UseRealTime();
                if (slow) b->Iterations(1);
            }
        }
        auto* b = benchmark::RegisterBenchmark(("yolov2_416/" + isa_name).c_str(), bench_yolov2, isa, 0);
        b->Unit(benchmark::kMillisecond)->UseRealTime();
        if (slow) b->Iterations(1);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
