// The CPU int16 backend's speed: the large 3x3 layers of yolov2 at 416x416 per ISA path, and the
// whole yolov2 416 network (synthetic weights, naively quantized at fixed exponents: only for
// timing, real calibration is fpgacnn-quantize's job).
//
//   bench_int16_conv [benchmark flags] [--darknet_cfg=PATH]
//
// The conv3x3_int8 cases run the same layers with 8-bit inputs, weights and outputs (issue 16: on
// AVX-512 VNNI the u8 x s8 path, elsewhere the 16-bit one).
//
// Counters: GOP/s (2 ops per multiply-accumulate), GMAC/s and fraction_of_peak, the peak being
// cores x the MACs per second one core sustains with the path's multiply-accumulate instruction,
// measured at start-up (measured_peak_macs). Targets (docs/arithmetic.md, issue 3): >= 60 % of peak
// on the large 3x3 layers; whole yolov2 416 at 2x OpenCV DNN float (about 225 ms, i.e. ~262 GOP/s).
// Other processes on the machine skew the numbers: run it on a quiet machine.
#include <benchmark/benchmark.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../runtime/src/core/thread_pool.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace {

using fpgacnn::Int16Isa;

std::string g_darknet_cfg = "/usr/share/darknet/cfg/yolov2.cfg";

int core_count() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

#if defined(__x86_64__) || defined(__i386__)
constexpr long kPeakIterations = 20000000;

// The AVX2 path's pair of vpmaddwd and vpaddd, the product taken of the chain's own value: with
// operands shared by every chain the compiler computes the product once.
__attribute__((target("avx2"))) inline __m256i vpmaddwd_step(__m256i acc, __m256i a, __m256i b) {
    return _mm256_add_epi32(b, _mm256_madd_epi16(acc, a));
}
__attribute__((target("avx512f,avx512vnni"))) inline __m512i vpdpwssd_step(__m512i acc, __m512i a,
                                                                           __m512i b) {
    return _mm512_dpwssd_epi32(acc, a, b);
}
__attribute__((target("avx512f,avx512vnni"))) inline __m512i vpdpbusd_step(__m512i acc, __m512i a,
                                                                           __m512i b) {
    return _mm512_dpbusd_epi32(acc, a, b);
}

// Defines `double name()`: instructions per second of one core over `chains` register-only chains
// of `step` (more than its latency x issue rate, fewer than the registers; opaque operands, so the
// compiler keeps every one). The chains start from constants and end in empty asm statements: an
// initialisation or a sum that indexes the array in a loop made GCC keep a copy of it in memory,
// stored every iteration. A macro: each instruction set's loop needs its own target attribute.
#define FPGACNN_PEAK_RATE(name, isa_target, Vec, set1, step, chains)                           \
    __attribute__((target(isa_target), always_inline)) inline void name##_keep(const Vec& v) { \
        asm volatile("" : : "x"(v));                                                           \
    }                                                                                          \
    template <std::size_t... I>                                                                \
    __attribute__((target(isa_target))) double name##_chains(std::index_sequence<I...>) {      \
        Vec acc[] = {set1(static_cast<int>(I))...};                                            \
        Vec a = set1(3);                                                                       \
        Vec b = set1(5);                                                                       \
        const auto start = std::chrono::steady_clock::now();                                   \
        for (long k = 0; k < kPeakIterations; ++k) {                                           \
            asm volatile("" : "+x"(a), "+x"(b));                                               \
            ((acc[I] = step(acc[I], a, b)), ...);                                              \
        }                                                                                      \
        const double seconds = seconds_since(start);                                           \
        (name##_keep(acc[I]), ...);                                                            \
        return kPeakIterations * static_cast<double>(chains) / seconds;                        \
    }                                                                                          \
    double name() { return name##_chains(std::make_index_sequence<chains>()); }

// 16 ymm registers for AVX2, 32 zmm for AVX-512.
FPGACNN_PEAK_RATE(vpmaddwd_per_second, "avx2", __m256i, _mm256_set1_epi32, vpmaddwd_step, 10)
FPGACNN_PEAK_RATE(vpdpwssd_per_second, "avx512f,avx512vnni", __m512i, _mm512_set1_epi32, vpdpwssd_step, 16)
FPGACNN_PEAK_RATE(vpdpbusd_per_second, "avx512f,avx512vnni", __m512i, _mm512_set1_epi32, vpdpbusd_step, 16)
#undef FPGACNN_PEAK_RATE
#endif

// The peak MACs per second of one core on a path, measured once: the rate of its multiply-accumulate
// instruction (AVX2 vpmaddwd: 16 MACs; AVX-512 VNNI vpdpwssd: 32, vpdpbusd for 8-bit layers: 64)
// times its MACs. Measured rather than clock x a table: a virtual machine's /proc/cpuinfo "cpu MHz"
// is often the base clock, and cores differ in how many of these issue per cycle. 0: no peak (scalar).
double measured_peak_macs(Int16Isa isa, bool int8) {
#if defined(__x86_64__) || defined(__i386__)
    if (isa == Int16Isa::Avx512Vnni && int8) {
        static const double rate = 64 * vpdpbusd_per_second();
        return rate;
    }
    if (isa == Int16Isa::Avx512Vnni) {
        static const double rate = 32 * vpdpwssd_per_second();
        return rate;
    }
    if (isa == Int16Isa::Avx2) {
        static const double rate = 16 * vpmaddwd_per_second();
        return rate;
    }
#else
    (void)isa;
    (void)int8;
#endif
    return 0;
}

// Runs the timed loop and sets GOP/s, GMAC/s, fraction_of_peak and ms (per iteration) from wall time
// (the work is spread over threads, so CPU time of the main thread says little).
template <typename Body>
void timed_loop(benchmark::State& state, double ops_per_iteration, int threads, Int16Isa isa, bool int8,
                Body body) {
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) body();
    const double seconds = seconds_since(start);
    const double iterations = static_cast<double>(state.iterations());
    const double ops_per_second = ops_per_iteration * iterations / seconds;
    state.counters["GOP/s"] = ops_per_second * 1e-9;
    state.counters["GMAC/s"] = ops_per_second * 0.5e-9;
    state.counters["ms"] = seconds / iterations * 1e3;
    const double peak_ops = 2 * threads * measured_peak_macs(isa, int8);
    if (peak_ops > 0) state.counters["fraction_of_peak"] = ops_per_second / peak_ops;
}

struct ConvLayerSpec {
    const char* name;  // yolov2.cfg layer index at 416x416
    int channels, size, filters;
};

// The large 3x3 layers of yolov2 at 416x416 (layer indexes as darknet counts them), and its first
// layer (3 channels: the packing and the epilogue weigh as much as the MACs).
const ConvLayerSpec kLayers[] = {
    {"L0_416x416x3to32", 3, 416, 32},       {"L4_104x104x64to128", 64, 104, 128},
    {"L8_52x52x128to256", 128, 52, 256},    {"L12_26x26x256to512", 256, 26, 512},
    {"L18_13x13x512to1024", 512, 13, 1024},
};

// bits 8: 8-bit inputs, weights and outputs, the data in [-128, 127].
void bench_conv(benchmark::State& state, ConvLayerSpec spec, Int16Isa isa, int threads, int bits) {
    fpgacnn::Int16ConvArgs args;
    args.input = {spec.channels, spec.size, spec.size};
    args.output = {spec.filters, spec.size, spec.size};
    args.size = 3;
    args.pad = 1;
    args.leaky = true;
    args.bias_shift = 6;
    args.output_shift = 14;
    args.input_bits = args.weight_bits = args.output_bits = bits;
    std::mt19937 rng(1);
    const int range = bits == fpgacnn::arith::kNarrowBits ? 127 : 2000;
    std::uniform_int_distribution<int> small(-range, range);
    std::vector<int16_t> weights(args.weight_count()), biases(static_cast<std::size_t>(spec.filters));
    std::vector<int16_t> input(args.input.size()), output(args.output.size());
    for (int16_t& v : weights) v = static_cast<int16_t>(small(rng));
    for (int16_t& v : biases) v = static_cast<int16_t>(small(rng));
    for (int16_t& v : input) v = static_cast<int16_t>(small(rng));
    fpgacnn::Int16PackedConv conv(args, weights.data(), biases.data(), isa);
    fpgacnn::ThreadPool pool(threads);
    const double ops = 2.0 * static_cast<double>(args.weight_count()) * spec.size * spec.size;
    timed_loop(state, ops, pool.size(), isa, bits == fpgacnn::arith::kNarrowBits, [&] {
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
    timed_loop(state, ops, threads > 0 ? threads : core_count(), isa, false, [&] {
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
    for (Int16Isa isa : fpgacnn::supported_int16_isas()) {
        for (const bool int8 : {false, true}) {
            const double peak = measured_peak_macs(isa, int8);
            if (peak > 0 && (!int8 || isa == Int16Isa::Avx512Vnni)) {
                std::cout << "measured peak, " << fpgacnn::isa_name(isa) << (int8 ? " int8" : "") << ": "
                          << peak * 1e-9 << " GMAC/s per core\n";
            }
        }
    }
    for (Int16Isa isa : fpgacnn::supported_int16_isas()) {
        const std::string isa_name = fpgacnn::isa_name(isa);
        const bool slow = isa == Int16Isa::Scalar;
        for (const int bits : {fpgacnn::arith::kDataBits, fpgacnn::arith::kNarrowBits}) {
            const std::string kind = bits == fpgacnn::arith::kNarrowBits ? "conv3x3_int8/" : "conv3x3/";
            for (const ConvLayerSpec& spec : kLayers) {
                for (int threads : {core_count(), 1}) {
                    auto* b = benchmark::RegisterBenchmark(
                        (kind + isa_name + "/" + spec.name + "/threads:" + std::to_string(threads)).c_str(),
                        bench_conv, spec, isa, threads, bits);
                    b->Unit(benchmark::kMillisecond)->UseRealTime();
                    if (slow) b->Iterations(1);
                }
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
