// Int16PackedConv: packs the weights once for the chosen path, packs the input per run and
// spreads (filter block x pixel band) jobs over the thread pool. Which job computes what never
// changes a bit: every output is one accumulator of wrapping adds, then one requantize.
#include <algorithm>
#include <string>

#include "core/thread_pool.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
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

using BandFunction = void (*)(const ConvBandJob&);

BandFunction band_function(Int16Isa isa) {
    switch (isa) {
#if defined(__x86_64__) || defined(__i386__)
        case Int16Isa::Avx2:
            return conv_band_avx2;
        case Int16Isa::Avx512Vnni:
            return conv_band_avx512vnni;
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
    BandFunction band = nullptr;
    int block = 8;
    int blocks = 0;
    int bands = 0;
    InputPacking packing;
    std::vector<int> step_taps;   // per step: tap (ky * K + kx)
    std::vector<int> step_pairs;  // per step: channel pair
    std::vector<std::ptrdiff_t> step_offsets;
    ConvGeometry geometry;
    AlignedBuffer<int16_t> weights;  // [block][step][block width][2]
    AlignedBuffer<int32_t> biases;   // [block][block width], aligned to the accumulator
    AlignedBuffer<int16_t> input;    // the packed input of run() without a scratch buffer

    std::size_t block_weights() const { return static_cast<std::size_t>(geometry.steps) * block * 2; }

    // The step order of conv_kernels.hpp: channel chunks, then taps, then the chunk's pairs.
    void plan_steps() {
        const int pairs = packing.channel_pairs;
        for (int first = 0; first < pairs; first += kChunkPairs) {
            const int last = std::min(pairs, first + kChunkPairs);
            for (int ky = 0; ky < args.size; ++ky) {
                for (int kx = 0; kx < args.size; ++kx) {
                    const std::ptrdiff_t tap_offset =
                        (static_cast<std::ptrdiff_t>(ky) * packing.padded_w + kx) * packing.channel_stride;
                    for (int pair = first; pair < last; ++pair) {
                        step_taps.push_back(ky * args.size + kx);
                        step_pairs.push_back(pair);
                        step_offsets.push_back(tap_offset + 2 * pair);
                    }
                }
            }
        }
    }

    void pack_weights(const int16_t* source) {
        const int taps = args.size * args.size;
        const int channels = args.input.c;
        const int filters = args.output.c;
        weights = AlignedBuffer<int16_t>(block_weights() * blocks);
        std::size_t at = 0;
        for (int b = 0; b < blocks; ++b) {
            for (int step = 0; step < geometry.steps; ++step) {
                for (int lane = 0; lane < block; ++lane) {
                    for (int half = 0; half < 2; ++half, ++at) {
                        const int f = b * block + lane;
                        const int c = 2 * step_pairs[step] + half;
                        if (f >= filters || c >= channels) continue;  // stays zero
                        weights[at] =
                            source[(static_cast<std::size_t>(f) * channels + c) * taps + step_taps[step]];
                    }
                }
            }
        }
    }

    void pack_biases(const int16_t* source) {
        biases = AlignedBuffer<int32_t>(static_cast<std::size_t>(blocks) * block);
        for (int f = 0; f < args.output.c; ++f) biases[f] = arith::align_bias(source[f], args.bias_shift);
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
    Impl& d = *impl_;
    d.args = args;
    d.isa = isa;
    d.band = band_function(isa);
    d.block = block_width(isa);
    d.blocks = (args.output.c + d.block - 1) / d.block;
    d.packing = InputPacking(args.input, args.pad);
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
    d.pack_weights(weights);
    d.pack_biases(biases);
}

Int16PackedConv::~Int16PackedConv() = default;
Int16PackedConv::Int16PackedConv(Int16PackedConv&&) noexcept = default;
Int16PackedConv& Int16PackedConv::operator=(Int16PackedConv&&) noexcept = default;

const Int16ConvArgs& Int16PackedConv::args() const { return impl_->args; }
Int16Isa Int16PackedConv::isa() const { return impl_->isa; }

std::size_t Int16PackedConv::packed_input_size() const { return impl_->packing.packed_size(); }

std::size_t Int16PackedConv::packed_parameter_bytes() const {
    return impl_->weights.size() * sizeof(int16_t) + impl_->biases.size() * sizeof(int32_t);
}

void Int16PackedConv::run(const int16_t* input, int16_t* output, ThreadPool* pool) {
    Impl& d = *impl_;
    if (d.input.size() != d.packing.packed_size()) d.input = AlignedBuffer<int16_t>(d.packing.packed_size());
    run(input, output, d.input.data(), pool);
}

void Int16PackedConv::run(const int16_t* input, int16_t* output, int16_t* scratch, ThreadPool* pool) {
    Impl& d = *impl_;
    d.packing.pack(input, scratch, pool, d.isa != Int16Isa::Scalar);
    // Consecutive jobs share a filter block, so a thread keeps that block's weights in cache.
    const std::size_t jobs = static_cast<std::size_t>(d.blocks) * d.bands;
    const auto run_job = [&d, output, scratch](std::size_t index) {
        const int b = static_cast<int>(index / d.bands);
        const int band = static_cast<int>(index % d.bands);
        ConvBandJob job;
        job.geometry = &d.geometry;
        job.packed_input = scratch;
        job.weights = d.weights.data() + b * d.block_weights();
        job.biases = d.biases.data() + static_cast<std::size_t>(b) * d.block;
        job.first_pixel = band * kBandPixels;
        job.pixel_count = std::min(kBandPixels, d.geometry.out_pixels - job.first_pixel);
        job.first_filter = b * d.block;
        job.filter_count = std::min(d.block, d.args.output.c - job.first_filter);
        job.output_shift = d.args.output_shift;
        job.leaky = d.args.leaky;
        job.output_bits = d.args.output_bits;
        job.output = output;
        d.band(job);
    };
    if (pool != nullptr) {
        pool->parallel_for(jobs, run_job);
    } else {
        for (std::size_t i = 0; i < jobs; ++i) run_job(i);
    }
}

}  // namespace fpgacnn
