// Int16PackedConv: packs the weights once for the chosen path, packs the input per run and
// spreads (filter block x pixel band) jobs over the thread pool. Which job computes what never
// changes a bit: every output is one accumulator of wrapping adds, then one requantize.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/quantized.hpp"
#include "int16/aligned_buffer.hpp"
#include "int16/conv_kernels.hpp"
#include "int16/input_packing.hpp"

namespace fpgacnn {

using namespace int16_detail;

namespace int16_detail {

int block_width(Int16Isa isa) {
    switch (isa) {
        case Int16Isa::Scalar:
            return 8;
        case Int16Isa::Avx2:
            return 16;
        case Int16Isa::Avx512Vnni:
            return 32;
        case Int16Isa::Neon:
            return 8;
    }
    return 8;
}

}  // namespace int16_detail

namespace {

// Jobs per pool thread in one conv: enough for an even finish when jobs differ in cost, few enough
// that most bands are computed next to their neighbours by the same thread.
constexpr int kJobsPerThread = 8;

using BandFunction = void (*)(const ConvBandJob&);

BandFunction band_function(Int16Isa isa, bool narrow) {
    static_cast<void>(narrow);  // only AVX-512 has a narrow kernel
    switch (isa) {
#if defined(__x86_64__) || defined(__i386__)
        case Int16Isa::Avx2:
            return conv_band_avx2;
        case Int16Isa::Avx512Vnni:
            return narrow ? conv_band_avx512vnni_narrow : conv_band_avx512vnni;
#endif
#if defined(FPGACNN_INT16_NEON)
        case Int16Isa::Neon:
            return conv_band_neon;
#endif
        default:
            return conv_band_scalar;
    }
}

}  // namespace

struct Int16PackedConv::Impl {
    Int16ConvArgs args;
    Int16Isa isa = Int16Isa::Scalar;
    bool u8s8 = false;    // the 8-bit layout (conv_kernels.hpp); else the 16-bit one
    bool narrow = false;  // AVX-512's 16-filter blocks (a layer of at most 16 filters)
    int block = 8;
    int blocks = 0;
    int bands = 0;
    InputPacking packing;
    std::vector<int> step_taps;    // per step: tap (ky * K + kx)
    std::vector<int> step_groups;  // per step: channel group
    std::vector<std::ptrdiff_t> step_offsets;
    ConvGeometry geometry;
    // [block][step][block width][group], in the layout's weight type (the other one stays empty).
    AlignedBuffer<int16_t> weights;
    AlignedBuffer<int8_t> weights_u8s8;
    AlignedBuffer<int32_t> biases;  // [block][block width], aligned to the accumulator
    AlignedBuffer<int16_t> input;   // the packed input of run() without a scratch buffer

    std::size_t block_weights() const {
        return static_cast<std::size_t>(geometry.steps) * block * packing.group;
    }

    // The step order of conv_kernels.hpp: channel chunks, then taps, then the chunk's groups.
    void plan_steps() {
        const int groups = packing.channel_groups;
        for (int first = 0; first < groups; first += kChunkGroups) {
            const int last = std::min(groups, first + kChunkGroups);
            for (int ky = 0; ky < args.size; ++ky) {
                for (int kx = 0; kx < args.size; ++kx) {
                    const std::ptrdiff_t tap_offset =
                        (static_cast<std::ptrdiff_t>(ky) * packing.padded_w + kx) * packing.channel_stride;
                    for (int group = first; group < last; ++group) {
                        step_taps.push_back(ky * args.size + kx);
                        step_groups.push_back(group);
                        step_offsets.push_back(tap_offset +
                                               static_cast<std::ptrdiff_t>(packing.group) * group);
                    }
                }
            }
        }
    }

    template <typename Weight>
    AlignedBuffer<Weight> pack_weights(const int16_t* source) const {
        const int taps = args.size * args.size;
        const int channels = args.input.c;
        const int filters = args.output.c;
        const int group = packing.group;
        AlignedBuffer<Weight> packed(block_weights() * blocks);
        std::size_t at = 0;
        for (int b = 0; b < blocks; ++b) {
            for (int step = 0; step < geometry.steps; ++step) {
                for (int lane = 0; lane < block; ++lane) {
                    for (int k = 0; k < group; ++k, ++at) {
                        const int f = b * block + lane;
                        const int c = group * step_groups[step] + k;
                        if (f >= filters || c >= channels) continue;  // stays zero
                        packed[at] = static_cast<Weight>(
                            source[(static_cast<std::size_t>(f) * channels + c) * taps + step_taps[step]]);
                    }
                }
            }
        }
        return packed;
    }

    void pack_biases(const int16_t* source, const int16_t* unpacked_weights) {
        biases = AlignedBuffer<int32_t>(static_cast<std::size_t>(blocks) * block);
        const std::size_t per_filter = args.weight_count() / static_cast<std::size_t>(args.output.c);
        for (int f = 0; f < args.output.c; ++f) {
            uint32_t bias = static_cast<uint32_t>(arith::align_bias(source[f], args.bias_shift));
            if (u8s8) {
                // Every tap adds w * (x + 128), padding included: take back 128 x the weights' sum.
                const int16_t* filter = unpacked_weights + f * per_filter;
                uint32_t sum = 0;
                for (std::size_t i = 0; i < per_filter; ++i) sum += static_cast<uint32_t>(filter[i]);
                bias -= 128u * sum;
            }
            biases[f] = static_cast<int32_t>(bias);
        }
    }

    // Spreads the (filter block x run of pixel bands) jobs of one layout over the pool. A job takes a
    // run of consecutive bands, so two threads meet at a run's edge only: bands end mid cache line
    // in the CHW output, and with a band per job the threads wrote the two halves of the same lines
    // every few microseconds (yolov2's first layer ran slower on two threads than on one).
    // Consecutive jobs share a filter block, so a thread keeps that block's weights in cache.
    template <typename Input, typename Weight>
    void run_bands(const Input* packed_input, const Weight* packed_weights,
                   void (*band)(const BandJob<Input, Weight>&), int16_t* output, ThreadPool* pool) const {
        const int threads = pool != nullptr ? pool->size() : 1;
        const int runs_per_block = std::max(1, std::min(bands, kJobsPerThread * threads / blocks));
        const int bands_per_run = (bands + runs_per_block - 1) / runs_per_block;
        const int runs = (bands + bands_per_run - 1) / bands_per_run;
        const std::size_t jobs = static_cast<std::size_t>(blocks) * runs;
        const auto run_job = [&](std::size_t index) {
            const int b = static_cast<int>(index / runs);
            const int run = static_cast<int>(index % runs);
            BandJob<Input, Weight> job;
            job.geometry = &geometry;
            job.packed_input = packed_input;
            job.weights = packed_weights + b * block_weights();
            job.biases = biases.data() + static_cast<std::size_t>(b) * block;
            job.first_filter = b * block;
            job.filter_count = std::min(block, args.output.c - job.first_filter);
            job.output_shift = args.output_shift;
            job.activation = int16_activation_code(args);
            job.output_bits = args.output_bits;
            job.output = output;
            const int last_band = std::min(bands, (run + 1) * bands_per_run);
            for (int band_index = run * bands_per_run; band_index < last_band; ++band_index) {
                job.first_pixel = band_index * kBandPixels;
                job.pixel_count = std::min(kBandPixels, geometry.out_pixels - job.first_pixel);
                band(job);
            }
        };
        if (pool != nullptr) {
            pool->parallel_for(jobs, run_job);
        } else {
            for (std::size_t i = 0; i < jobs; ++i) run_job(i);
        }
    }
};

Int16PackedConv::Int16PackedConv(const Int16ConvArgs& args, const int16_t* weights, const int16_t* biases,
                                 Int16Isa isa)
    : impl_(std::make_unique<Impl>()) {
    check_int16_conv_args(args, "Int16PackedConv");
    if (!int16_isa_supported(isa)) {
        throw Error(std::string("Int16PackedConv: this CPU does not support the ") + isa_name(isa) +
                    " path; use best_int16_isa()");
    }
    require_weights_fit_width(weights, args.weight_count(), args.weight_bits, "Int16PackedConv");
    Impl& d = *impl_;
    d.args = args;
    d.isa = isa;
    // Only VNNI has a u8 x s8 dot product worth a layout of its own; elsewhere 8-bit values take the
    // 16-bit path, which gives the same bits. So do the study widths (6, 4) on every ISA: their values
    // fit a byte too, but a study is not timed, and one u8s8 condition is less to keep exact.
    d.u8s8 = isa == Int16Isa::Avx512Vnni && args.input_bits == arith::kNarrowBits &&
             args.weight_bits == arith::kNarrowBits;
    d.block = block_width(isa);
#if defined(__x86_64__) || defined(__i386__)
    d.narrow = isa == Int16Isa::Avx512Vnni && args.output.c <= kAvx512NarrowBlock;
    if (d.narrow) d.block = kAvx512NarrowBlock;
#endif
    d.blocks = (args.output.c + d.block - 1) / d.block;
    d.packing = InputPacking(args.input, args.pad, d.u8s8 ? 4 : 2);
    const int out_pixels = args.output.h * args.output.w;
    d.bands = (out_pixels + kBandPixels - 1) / kBandPixels;
    d.plan_steps();
    d.geometry.out_w = args.output.w;
    d.geometry.out_pixels = out_pixels;
    d.geometry.stride = args.stride;
    d.geometry.padded_w = d.packing.padded_w;
    d.geometry.channel_stride = d.packing.channel_stride;
    d.geometry.steps = static_cast<int>(d.step_offsets.size());
    d.geometry.step_offsets = d.step_offsets.data();
    if (d.u8s8) {
        d.weights_u8s8 = d.pack_weights<int8_t>(weights);
    } else {
        d.weights = d.pack_weights<int16_t>(weights);
    }
    d.pack_biases(biases, weights);
}

Int16PackedConv::~Int16PackedConv() = default;
Int16PackedConv::Int16PackedConv(Int16PackedConv&&) noexcept = default;
Int16PackedConv& Int16PackedConv::operator=(Int16PackedConv&&) noexcept = default;

const Int16ConvArgs& Int16PackedConv::args() const { return impl_->args; }
Int16Isa Int16PackedConv::isa() const { return impl_->isa; }

std::size_t Int16PackedConv::packed_input_size() const {
    const Impl& d = *impl_;
    // In int16 units either way, so convs of both layouts share one scratch buffer.
    return d.u8s8 ? (d.packing.packed_size() + 1) / 2 : d.packing.packed_size();
}

std::size_t Int16PackedConv::packed_parameter_bytes() const {
    const Impl& d = *impl_;
    return d.weights.size() * sizeof(int16_t) + d.weights_u8s8.size() * sizeof(int8_t) +
           d.biases.size() * sizeof(int32_t);
}

void Int16PackedConv::run(const int16_t* input, int16_t* output, ThreadPool* pool) {
    Impl& d = *impl_;
    if (d.input.size() != packed_input_size()) d.input = AlignedBuffer<int16_t>(packed_input_size());
    run(input, output, d.input.data(), pool);
}

void Int16PackedConv::run(const int16_t* input, int16_t* output, int16_t* scratch, ThreadPool* pool) {
    const Impl& d = *impl_;
#if defined(__x86_64__) || defined(__i386__)
    if (d.u8s8) {
        auto* packed = reinterpret_cast<uint8_t*>(scratch);
        d.packing.pack(input, packed, pool);
        d.run_bands(packed, d.weights_u8s8.data(),
                    d.narrow ? conv_band_avx512vnni_u8s8_narrow : conv_band_avx512vnni_u8s8, output, pool);
        return;
    }
#endif
    d.packing.pack(input, scratch, pool, d.isa != Int16Isa::Scalar);
    d.run_bands(scratch, d.weights.data(), band_function(d.isa, d.narrow), output, pool);
}

}  // namespace fpgacnn
