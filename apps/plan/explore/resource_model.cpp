// The resource model (resource_model.hpp). Each constant says where it comes from: the kernel's own
// arrays and pragmas (kernels/src), the FPGA primitives, or a fit on the published designs.
#include "resource_model.hpp"

#include <algorithm>
#include <cmath>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/kernel/layer_command.hpp"

namespace fpgacnn::explore {

namespace {

// Control and requantization (the int16 store's rounding / leaky products, address arithmetic): the
// published Zedboard design's 153 DSPs minus its 128 multipliers, fitted on Chen et al. 2019. Zhang's
// float32 design reports exactly 64 x 7 x 5 = 2240, so its control took none.
constexpr int kControlDspInt16 = 25;
constexpr int kControlDspFloat32 = 0;
// Outstanding AXI transactions per port (HLS default num_read_outstanding / num_write_outstanding):
// the port's data FIFO holds this many bursts.
constexpr long long kOutstanding = 16;
// LUT / FF: the AXI adapter of one m_axi port and the control (AXI-Lite registers, FSM) of an HLS
// kernel (typical figures of small HLS IPs), then one slope per data type fitted on the published
// design of that type (int16: Chen et al. 2019; float32: Zhang et al. 2015).
constexpr int kLutPerPort = 1000;
constexpr int kFfPerPort = 1200;
constexpr int kLutControl = 3000;
constexpr int kFfControl = 3000;
constexpr double kLutPerMacInt16 = 195.1;    // (35977 - 3000 - 8 * 1000) / 128
constexpr double kFfPerMacInt16 = 184.7;     // (36247 - 3000 - 8 * 1200) / 128
constexpr double kLutPerMacFloat32 = 402.3;  // (186251 - 3000 - 3 * 1000) / 448
constexpr double kFfPerMacFloat32 = 444.4;   // (205704 - 3000 - 3 * 1200) / 448
// The pair mode per lane: the split of the packed product (a 16-bit field's sign correction and a
// subtract) and the second column's int32 adder, as LUT adders with their pipeline registers.
// Estimated from the operator widths (16 + 32 bits of carry chain), not fitted: no published design
// has the mode and no synthesis run was available.
constexpr double kLutPerPairLane = 48;
constexpr double kFfPerPairLane = 48;
// The RTL twin (DesignShape::rtl), measured: yosys 0.23 `synth_xilinx -family xc7` of kernels/rtl
// (scripts/synth-rtl.sh) at Tm x Tn = 8 x 4, 16 x 4 and 35 x 4 (Tr = Tc = 8, 13, 22; 16-bit ports,
// pair mode on; docs/kernel.md "Model against yosys"). DSPs: one per multiplier plus the requantizer's
// leaky product (two DSP48E1), at every size. LUTs (logic + LUTRAM + SRL, yosys's count) and FFs: a
// fixed part (controller, AXI-Lite, command check, the five masters and their queues, requantizer)
// plus a slope per multiplier (its DSP's neighbours: weight lane RAM and write decode, adder trees,
// accumulate, lane selection), least-squares lines through the three builds (LUT 16 681, 20 350,
// 32 459; FF 9 225, 10 149, 14 758 for 32, 64, 140 multipliers; the lines miss them by at most 3.1 % (LUT)
// and 4.5 % (FF)).
constexpr int kRtlControlDsp = 2;
constexpr double kRtlLutFixed = 11482;
constexpr double kRtlLutPerMac = 148.5;
constexpr double kRtlFfFixed = 7213;
constexpr double kRtlFfPerMac = 52.9;
// The accumulators are int32 (int16 build) or float (float32 designs).
constexpr int kAccumulatorBits = 32;

struct Aspect {
    long long depth;
    int width;
};
// The BRAM18 primitive's aspect ratios (7 series and UltraScale alike; 36 bits = simple dual port).
constexpr Aspect kBram18Aspects[] = {{16384, 1}, {8192, 2}, {4096, 4}, {2048, 9}, {1024, 18}, {512, 36}};

int port_count(const DesignShape& d) {
    int n = 0;
    for (const PortGroup& g : d.ports) n += g.count;
    return n;
}

}  // namespace

const char* data_type_name(DataType type) { return type == DataType::Int16 ? "int16" : "float32"; }

DataType parse_data_type(const std::string& text) {
    if (text == "int16") return DataType::Int16;
    if (text == "float32") return DataType::Float32;
    throw Error("precision '" + text + "' is not modelled: use int16 (this kernel) or float32");
}

int data_bits(DataType type) { return type == DataType::Int16 ? 16 : 32; }

// 16-bit operands fit one DSP48E1 (25 x 18) or DSP48E2 (27 x 18) multiplier with its post-adder; a
// single-precision multiply takes 3 DSPs and an add 2 (HLS's full-DSP floating-point cores):
// Zhang's 2240 DSPs = 64 x 7 x 5.
int dsp_per_mac(DataType type) { return type == DataType::Int16 ? 1 : 5; }

int dsp_preadder_bits(const std::string& dsp_kind) {
    if (dsp_kind == "DSP48E1") return 25;  // UG479: 25 x 18 multiplier, 25-bit pre-adder
    if (dsp_kind == "DSP48E2") return 27;  // UG579: 27 x 18 multiplier, 27-bit pre-adder
    return 0;
}

bool dsp_takes_pairs(const std::string& dsp_kind) {
    return arith::kPairOperandBits <= dsp_preadder_bits(dsp_kind);  // unknown kinds: 0, no pairs
}

int bram18_for(long long depth, int width_bits) {
    if (depth <= 0 || width_bits <= 0) return 0;
    if (depth * width_bits <= kLutRamBits) return 0;
    long long best = -1;
    for (const Aspect& a : kBram18Aspects) {
        const long long n = ((depth + a.depth - 1) / a.depth) * ((width_bits + a.width - 1) / a.width);
        if (best < 0 || n < best) best = n;
    }
    return static_cast<int>(best);
}

DesignShape this_kernel(const kernel::Maxima& maxima, DataType type, int port_bits) {
    DesignShape d;
    d.maxima = maxima;
    d.type = type;
    d.pool = PoolBuffers::Separate;
    d.reorg_lines = true;
    d.int8_pairs = type == DataType::Int16 && maxima.int8_pairs;
    d.rtl = type == DataType::Int16;
    if (d.rtl) {  // kernels/rtl pools in the convolution's buffers and reorgs through input lane 0
        d.pool = PoolBuffers::SharedWithConv;
        d.reorg_lines = false;
    }
    // The ops are the int16 kernel's (their shortcut is fixed-point arithmetic): a float32 design estimate
    // (Zhang et al.'s kind) has none.
    d.upsample_shortcut = type == DataType::Int16 && maxima.upsample_shortcut;
    d.ports = {PortGroup{3, port_bits, 256}};  // fm_read, fm_write, params
    // An int16 build also has the byte-wide fm8_read / fm8_write of 8-bit tensors (contract 5), as many
    // elements a beat as the word-wide ports; a float32 design moves no 8-bit tensors.
    if (type == DataType::Int16) d.ports.push_back(PortGroup{2, std::max(8, port_bits / 2), 256});
    if (type == DataType::Int16) d.beat_elements = std::max(1, port_bits / arith::kDataBits);
    return d;
}

namespace {

// The port width (FPGACNN_PORT_BITS) as its own term, apart from the fitted ones above. A beat of E
// elements lands in a cycle (kernels/rtl/fpgacnn_banked_ram.sv, fpgacnn_core.sv's parameter beats):
//   BRAM: each input memory becomes E banks of 1/E the depth,
//         each costing its own cheapest aspect ratio (or LUTRAM when small);
//   LUT:  a beat's run of up to 2E weights (8-bit weights) is rotated once and each weight lane
//         takes its weight from a fixed place of it (fpgacnn_core.sv, tile_io.hpp), inside the run
//         or not by two compares; with the wider readers, writers and banked input lanes this is
//         kLutPerWeightLaneBeatElement per lane and element beyond one a beat.
// Measured on one build: yosys synthesised the RTL of 7dc18e9 at Tm=32 Tn=6 Tr=Tc=30 with 64-bit
// ports (the explorer's Zedboard pick at 90 %) to 42 938 LUTs (LUTRAM and SRL included) where the
// 16-bit terms give 39 994: 2 944 more, 5.1 for each of 192 weight lanes x 3 more elements a beat
// (one point: what is shared, the rotation and the masters' wider data paths, is inside it). Before
// the rotation every lane chose among the beat's weights by a 16-bit multiplexer: 53 391 LUTs on the
// same build, 23.3 a lane and element (docs/kernel.md "Port width").
constexpr double kLutPerWeightLaneBeatElement = 5.1;
// `lanes` input memories of `in_depth` elements of `bits` each (they differ between the HLS kernel's
// buffers and the RTL's: see the callers).
Resources port_width_cost(const DesignShape& d, long long lanes, long long in_depth, int bits) {
    Resources r;
    const long long e = d.beat_elements;
    if (e <= 1) return r;
    const long long banked = e * bram18_for((in_depth + e - 1) / e, bits) - bram18_for(in_depth, bits);
    r.bram_18k = static_cast<int>(lanes * banked);
    r.lut = static_cast<int>(std::lround(kLutPerWeightLaneBeatElement * d.maxima.tm * d.maxima.tn * (e - 1)));
    return r;
}

/// The RTL twin's buffers (kernels/rtl/fpgacnn_core.sv, one fpgacnn_ram per lane): an input lane holds
/// both ping-pong banks in one memory, duplicated for the pair mode's second read port; weight lanes
/// of 2·K² words (LUTRAM); accumulators Tm lanes x 2 banks x 2 column parities of Tr·ceil(Tc/2) int32;
/// no maxpool buffers, reorg line buffers or burst FIFOs. Matches yosys's block RAMs at 8/4/8/8 and
/// 16/4/13/13 exactly (docs/kernel.md).
long long rtl_bram(const DesignShape& d) {
    const kernel::Maxima& m = d.maxima;
    const long long in_rows = static_cast<long long>(m.tr - 1) * m.max_stride + m.max_kernel;
    const long long in_cols = static_cast<long long>(m.tc - 1) * m.max_stride + m.max_kernel;
    const long long taps = static_cast<long long>(m.max_kernel) * m.max_kernel;
    const long long acc_depth = static_cast<long long>(m.tr) * ((m.tc + 1) / 2);
    long long bram =
        static_cast<long long>(m.tn) * (d.int8_pairs ? 2 : 1) * bram18_for(2 * in_rows * in_cols, 16);
    bram += static_cast<long long>(m.tm) * m.tn * bram18_for(2 * taps, 16);
    bram += 4LL * m.tm * bram18_for(acc_depth, kAccumulatorBits);
    return bram;
}

Resources rtl_resources(const DesignShape& d) {
    const int macs = d.maxima.tm * d.maxima.tn;
    // Measured with the pair mode; without it, its share (the estimate above) is taken off.
    const double pair_luts = d.int8_pairs ? 0.0 : kLutPerPairLane * macs;
    const double pair_ffs = d.int8_pairs ? 0.0 : kFfPerPairLane * macs;
    Resources r;
    r.dsp = macs * dsp_per_mac(d.type) + kRtlControlDsp;
    r.bram_18k = static_cast<int>(rtl_bram(d));
    r.lut = static_cast<int>(std::lround(kRtlLutFixed + kRtlLutPerMac * macs - pair_luts));
    r.ff = static_cast<int>(std::lround(kRtlFfFixed + kRtlFfPerMac * macs - pair_ffs));
    // The input lanes' memories as rtl_bram counts them: Tn (twice with the pair mode) of both banks.
    const kernel::Maxima& m = d.maxima;
    const long long in_rows = static_cast<long long>(m.tr - 1) * m.max_stride + m.max_kernel;
    const long long in_cols = static_cast<long long>(m.tc - 1) * m.max_stride + m.max_kernel;
    const Resources wide =
        port_width_cost(d, static_cast<long long>(m.tn) * (d.int8_pairs ? 2 : 1), 2 * in_rows * in_cols, 16);
    r.bram_18k += wide.bram_18k;
    r.lut += wide.lut;
    return r;
}

/// estimate_resources of everything but the upsample / shortcut ops.
Resources estimate_resources_without_elementwise(const DesignShape& d) {
    if (d.rtl) return rtl_resources(d);
    const kernel::Maxima& m = d.maxima;
    const int bits = data_bits(d.type);
    const long long in_rows = static_cast<long long>(m.tr - 1) * m.max_stride + m.max_kernel;
    const long long in_cols = static_cast<long long>(m.tc - 1) * m.max_stride + m.max_kernel;
    const long long taps = static_cast<long long>(m.max_kernel) * m.max_kernel;
    const long long pixels = static_cast<long long>(m.tr) * m.tc;
    const int macs = m.tm * m.tn;

    // conv_layer.hpp: ping-pong input tiles (partitioned along n), weight blocks (along the Tm x Tn
    // lanes) and int32 output tiles (along m).
    long long bram = 2LL * m.tn * bram18_for(in_rows * in_cols, bits);
    bram += 2LL * macs * bram18_for(taps, bits);
    // The pair mode reads and writes two columns a cycle: each output tile in two halves (cyclic 2).
    bram += d.int8_pairs ? 2LL * m.tm * 2 * bram18_for((pixels + 1) / 2, kAccumulatorBits)
                         : 2LL * m.tm * bram18_for(pixels, kAccumulatorBits);
    if (d.pool == PoolBuffers::Separate) {  // pool_layer.hpp: one input tile, one output tile
        bram += static_cast<long long>(m.tn) * bram18_for(in_rows * in_cols, bits);
        bram += static_cast<long long>(m.tm) * bram18_for(pixels, kAccumulatorBits);
    }
    if (d.reorg_lines) bram += bram18_for(in_cols, bits) + bram18_for(m.tc, bits);
    for (const PortGroup& g : d.ports) {
        bram += static_cast<long long>(g.count) * bram18_for(kOutstanding * g.max_burst, g.bits);
    }

    Resources r;
    r.dsp = macs * dsp_per_mac(d.type) + (d.type == DataType::Int16 ? kControlDspInt16 : kControlDspFloat32);
    r.bram_18k = static_cast<int>(bram);
    const bool fixed = d.type == DataType::Int16;
    const int ports = port_count(d);
    const double pair_luts = d.int8_pairs ? kLutPerPairLane * macs : 0.0;
    const double pair_ffs = d.int8_pairs ? kFfPerPairLane * macs : 0.0;
    r.lut = static_cast<int>(std::lround(kLutControl + kLutPerPort * ports +
                                         (fixed ? kLutPerMacInt16 : kLutPerMacFloat32) * macs + pair_luts));
    r.ff = static_cast<int>(std::lround(kFfControl + kFfPerPort * ports +
                                        (fixed ? kFfPerMacInt16 : kFfPerMacFloat32) * macs + pair_ffs));
    // Ping-pong input tiles (2·Tn), and maxpool's own input tile (Tn) where it has one.
    const long long in_lanes = 2LL * m.tn + (d.pool == PoolBuffers::Separate ? m.tn : 0);
    const Resources wide = port_width_cost(d, in_lanes, in_rows * in_cols, bits);
    r.bram_18k += wide.bram_18k;
    r.lut += wide.lut;
    return r;
}

}  // namespace

Resources upsample_shortcut_cost(const DesignShape& d) {
    Resources r;
    if (!d.upsample_shortcut) return r;
    // Line buffers: a, b and the output line of the shortcut (the upsample uses two of them).
    r.bram_18k = 3 * bram18_for(kernel::kMaxElementwiseSegment, data_bits(d.type));
    // The leaky product sum * 13107 of a sum below 2^48: 48 x 15 bits, two 25 x 18 DSP48 multipliers.
    r.dsp = 2;
    // Two 16-to-48-bit left shifters (0..32, six mux stages each), the 48-bit adder, the 62-bit round-shift
    // (six stages) and its rounding addend, saturation to 16 / 8 bits, two segment counters and three
    // address adders (32 bits): about 2 x 150 + 48 + 190 + 64 + 40 + 64 + 96 LUT6.
    r.lut = 800;
    // Pipeline registers of the 48- and 62-bit datapath, counters and addresses.
    r.ff = 450;
    return r;
}

Resources estimate_resources(const DesignShape& d) {
    const Resources ops = upsample_shortcut_cost(d);
    Resources r = estimate_resources_without_elementwise(d);
    r.dsp += ops.dsp;
    r.bram_18k += ops.bram_18k;
    r.lut += ops.lut;
    r.ff += ops.ff;
    return r;
}

std::vector<PublishedDesign> published_designs() {
    std::vector<PublishedDesign> designs;
    {
        // Chen, Chai, Xia 2019 (dhm2013724/yolov2_xilinx_fpga): Zedboard, 150 MHz, 16-bit; four input
        // ports and two output ports, one weight and one bias port, 32 bits each with HLS's default
        // bursts; maxpool runs in the convolution's buffers. Reported: DSP 153, BRAM_36K 88, LUT 35977,
        // FF 36247.
        PublishedDesign chen;
        chen.name = "Chen et al. 2019, Zedboard (xc7z020), YOLOv2";
        chen.shape.maxima = kernel::Maxima{32, 4, 26, 26, 3, 2};
        chen.shape.type = DataType::Int16;
        chen.shape.pool = PoolBuffers::SharedWithConv;
        chen.shape.reorg_lines = true;
        chen.shape.ports = {PortGroup{8, 32, 16}};
        chen.reported = Resources{153, 2 * 88, 35977, 36247};
        designs.push_back(chen);
    }
    {
        // Zhang et al. FPGA'15: VC707, 100 MHz, float32, <Tm, Tn> = <64, 7>, AlexNet's windows up to
        // 11 x 11 at stride 4, convolutions only; tiles of 13 x 13 (assumed: the paper gives the unroll
        // factors, not Tr / Tc); three 32-bit ports (input, weights, output). Reported: DSP 2240,
        // BRAM_18K 1024, LUT 186251, FF 205704.
        PublishedDesign zhang;
        zhang.name = "Zhang et al. 2015, VC707 (xc7vx485t), AlexNet";
        zhang.shape.maxima = kernel::Maxima{64, 7, 13, 13, 11, 4};
        zhang.shape.type = DataType::Float32;
        zhang.shape.pool = PoolBuffers::None;
        zhang.shape.reorg_lines = false;
        zhang.shape.ports = {PortGroup{3, 32, 16}};
        zhang.reported = Resources{2240, 1024, 186251, 205704};
        designs.push_back(zhang);
    }
    return designs;
}

}  // namespace fpgacnn::explore
