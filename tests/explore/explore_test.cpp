// The explorer (fpgacnn-plan --explore): the board catalogue, the resource model against the two
// published designs, the reproduction of Zhang et al. 2015 and Chen et al. 2019, and the search.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "explore/board_catalog.hpp"
#include "explore/explore_report.hpp"
#include "explore/explorer.hpp"
#include "explore/resource_model.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/plan.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

using namespace fpgacnn::explore;

double relative_error(double estimate, double reported) { return std::abs(estimate - reported) / reported; }

TEST(BoardCatalog, HasEveryTargetBoardWithItsSources) {
    const std::vector<Board> boards = load_catalogue(default_boards_dir());
    std::set<std::string> names;
    for (const Board& b : boards) {
        names.insert(b.name);
        EXPECT_FALSE(b.sources.empty()) << b.name;
        EXPECT_TRUE(b.dsp_kind == "DSP48E1" || b.dsp_kind == "DSP48E2") << b.name;
        EXPECT_GT(b.bandwidth_gbs, 0) << b.name;
    }
    for (const char* n : {"xc7z020", "xc7z045", "xczu3eg", "xck26", "xczu9eg", "xc7vx485t", "u50", "u250"}) {
        EXPECT_EQ(names.count(n), 1u) << n;
    }
    EXPECT_EQ(find_board(default_boards_dir(), "zedboard").name, "xc7z020");
    EXPECT_EQ(find_board(default_boards_dir(), "VC707").dsp, 2800);
    EXPECT_THROW(find_board(default_boards_dir(), "no-such-board"), Error);
}

TEST(ResourceModel, Bram18CountsAspectRatiosAndLutRam) {
    EXPECT_EQ(bram18_for(9, 16), 0);     // 144 bits: registers / LUTRAM
    EXPECT_EQ(bram18_for(2809, 16), 3);  // 1K x 18 three times
    EXPECT_EQ(bram18_for(676, 32), 2);   // 512 x 36 twice
    EXPECT_EQ(bram18_for(121, 32), 1);   // a small float bank still costs one BRAM
    EXPECT_EQ(bram18_for(4096, 16), 4);
}

TEST(ResourceModel, FitsThePublishedDesignsWithin15Percent) {
    for (const PublishedDesign& d : published_designs()) {
        const Resources r = estimate_resources(d.shape);
        EXPECT_LE(relative_error(r.dsp, d.reported.dsp), 0.15) << d.name << ": DSP " << r.dsp;
        EXPECT_LE(relative_error(r.bram_18k, d.reported.bram_18k), 0.15)
            << d.name << ": BRAM_18K " << r.bram_18k;
        EXPECT_LE(relative_error(r.lut, d.reported.lut), 0.15) << d.name << ": LUT " << r.lut;
        EXPECT_LE(relative_error(r.ff, d.reported.ff), 0.15) << d.name << ": FF " << r.ff;
    }
}

// The int16 kernel is costed as its RTL twin: the three builds yosys 0.23 synthesised
// (scripts/synth-rtl.sh, RTL of d121ecd; docs/kernel.md "Model against yosys"), DSPs and BRAMs as
// counted, LUT (logic + LUTRAM + SRL) and FF within the fit's residuals.
TEST(ResourceModel, Int16TermsMatchTheRtlSynthesisedWithYosys) {
    struct Measured {
        kernel::Maxima maxima;
        Resources yosys;
    };
    const Measured builds[] = {{kernel::Maxima{8, 4, 8, 8, 3, 2}, Resources{34, 8, 16681, 9225}},
                               {kernel::Maxima{16, 4, 13, 13, 3, 2}, Resources{66, 80, 20350, 10149}},
                               {kernel::Maxima{35, 4, 22, 22, 3, 2}, Resources{142, 164, 32459, 14758}}};
    for (const Measured& b : builds) {
        kernel::Maxima maxima = b.maxima;
        maxima.upsample_shortcut = false;  // the RTL yosys synthesised has no upsample / shortcut ops
        const DesignShape shape = this_kernel(maxima, DataType::Int16, 16);
        ASSERT_TRUE(shape.rtl);
        const Resources r = estimate_resources(shape);
        EXPECT_EQ(r.dsp, b.yosys.dsp) << "Tm=" << b.maxima.tm;
        EXPECT_LE(relative_error(r.bram_18k, b.yosys.bram_18k), 0.05)
            << "Tm=" << b.maxima.tm << ": " << r.bram_18k;
        EXPECT_LE(relative_error(r.lut, b.yosys.lut), 0.05) << "Tm=" << b.maxima.tm << ": LUT " << r.lut;
        EXPECT_LE(relative_error(r.ff, b.yosys.ff), 0.05) << "Tm=" << b.maxima.tm << ": FF " << r.ff;
    }
    EXPECT_FALSE(this_kernel(kernel::Maxima{16, 4, 13, 13, 3, 2}, DataType::Float32, 32).rtl);
}

// The 64-bit build yosys synthesised (docs/kernel.md "Port width", the RTL of 7dc18e9: the weight
// lanes take a rotated run from fixed places): its LUTs fixed the port width's LUT term (one point,
// so LUT agrees by construction); DSP, BRAM and FF are predictions.
TEST(ResourceModel, WidePortsMatchTheRtlSynthesisedWithYosys) {
    kernel::Maxima maxima{32, 6, 30, 30, 3, 2};
    maxima.port_bits = 64;
    maxima.upsample_shortcut = false;  // as synthesised: the RTL has no upsample / shortcut ops
    const Resources yosys{194, 224, 42938, 15913};
    const Resources r = estimate_resources(this_kernel(maxima, DataType::Int16, 64));
    EXPECT_EQ(r.dsp, yosys.dsp);
    EXPECT_LE(relative_error(r.bram_18k, yosys.bram_18k), 0.05) << r.bram_18k;
    EXPECT_LE(relative_error(r.lut, yosys.lut), 0.01) << r.lut;
    // The FF line (fitted at Tn = 4) predicts 17 370, 9 % more than yosys's 15 913: on the safe side.
    EXPECT_LE(relative_error(r.ff, yosys.ff), 0.12) << r.ff;
    EXPECT_GE(r.ff, yosys.ff);
}

// Contract 7's ops (Maxima::upsample_shortcut) add their line buffers and the shortcut's datapath to
// every build that has them, whatever its maxima; the published designs have none.
TEST(ResourceModel, UpsampleAndShortcutAddTheirOwnTerm) {
    kernel::Maxima with{16, 4, 13, 13, 3, 2};
    kernel::Maxima without = with;
    without.upsample_shortcut = false;
    const DesignShape shape = this_kernel(with, DataType::Int16, 16);
    ASSERT_TRUE(shape.upsample_shortcut);
    EXPECT_FALSE(this_kernel(without, DataType::Int16, 16).upsample_shortcut);
    EXPECT_FALSE(this_kernel(with, DataType::Float32, 32).upsample_shortcut) << "int16 ops only";
    const Resources a = estimate_resources(shape);
    const Resources b = estimate_resources(this_kernel(without, DataType::Int16, 16));
    const Resources ops = upsample_shortcut_cost(shape);
    EXPECT_EQ(a.dsp - b.dsp, 2);
    EXPECT_EQ(a.bram_18k - b.bram_18k, 3);  // three 256 x 16-bit lines: one BRAM18 each
    EXPECT_EQ(a.lut - b.lut, ops.lut);
    EXPECT_EQ(a.ff - b.ff, ops.ff);
    EXPECT_GT(ops.lut, 0);
    for (const PublishedDesign& d : published_designs()) EXPECT_FALSE(d.shape.upsample_shortcut) << d.name;
}

TEST(ResourceModel, GrowsWithParallelismAndTiles) {
    const Resources small =
        estimate_resources(this_kernel(kernel::Maxima{16, 4, 13, 13, 3, 2}, DataType::Int16, 16));
    const Resources wide =
        estimate_resources(this_kernel(kernel::Maxima{32, 4, 13, 13, 3, 2}, DataType::Int16, 16));
    const Resources tall =
        estimate_resources(this_kernel(kernel::Maxima{16, 4, 26, 26, 3, 2}, DataType::Int16, 16));
    EXPECT_EQ(wide.dsp - small.dsp, 64);
    EXPECT_GT(tall.bram_18k, small.bram_18k);
    EXPECT_EQ(tall.dsp, small.dsp);
    const Resources fp =
        estimate_resources(this_kernel(kernel::Maxima{16, 4, 13, 13, 3, 2}, DataType::Float32, 32));
    EXPECT_EQ(fp.dsp, 16 * 4 * 5);
}

// The pair mode of 8-bit layers runs on the same DSPs: it costs logic and accumulator banks, not
// multipliers; both DSP generations of the catalogue take its 24-bit packed operand.
TEST(ResourceModel, PairModeCostsLogicAndAccumulatorBanksButNoDsp) {
    DesignShape with_pairs = this_kernel(kernel::Maxima{32, 4, 13, 13, 3, 2}, DataType::Int16, 16);
    ASSERT_TRUE(with_pairs.int8_pairs);
    DesignShape without = with_pairs;
    without.int8_pairs = false;
    const Resources a = estimate_resources(with_pairs), b = estimate_resources(without);
    EXPECT_EQ(a.dsp, b.dsp);
    EXPECT_EQ(a.lut - b.lut, 48 * 32 * 4);
    EXPECT_EQ(a.ff - b.ff, 48 * 32 * 4);
    EXPECT_GE(a.bram_18k, b.bram_18k);
    EXPECT_FALSE(this_kernel(kernel::Maxima{32, 4, 13, 13, 3, 2}, DataType::Float32, 32).int8_pairs);
    EXPECT_EQ(dsp_preadder_bits("DSP48E1"), 25);
    EXPECT_EQ(dsp_preadder_bits("DSP48E2"), 27);
    EXPECT_TRUE(dsp_takes_pairs("DSP48E1"));
    EXPECT_TRUE(dsp_takes_pairs("DSP48E2"));
    EXPECT_FALSE(dsp_takes_pairs("MULT18X18"));  // unknown: no pairs assumed
    for (const Board& board : load_catalogue(default_boards_dir()))
        EXPECT_TRUE(dsp_takes_pairs(board.dsp_kind)) << board.name << ": " << board.dsp_kind;
}

// Zhang et al. FPGA'15: AlexNet (two towers) on the VC707 at 100 MHz in float32 -> <Tm, Tn> = <64, 7>,
// 61.62 GFLOPS. Their design's port widths are not published; 256-bit ports are assumed here.
TEST(ExploreReproduces, ZhangAlexNetOnVc707) {
    const Network net =
        load_darknet_cfg(source_dir() + "/kernels/boards/workloads/alexnet-zhang2015-conv.cfg");
    const Workload w = workload_from_network(net, parse_groups("0:2o,2:2,4:2o,5:2,6:2"), true);
    EXPECT_NEAR(2.0 * static_cast<double>(w.macs()) / 1e9, 1.33, 0.01);  // the paper's 1.33 GFLOP
    ExploreOptions o;
    o.board = find_board(default_boards_dir(), "xc7vx485t");
    o.type = DataType::Float32;
    o.port_bits = 256;
    const ExploreResult r = explore::explore(w, o);
    const Build zhang =
        evaluate_build(w, r.options, kernel::Maxima{64, 7, r.best.maxima.tr, r.best.maxima.tc, 11, 4});
    EXPECT_TRUE((r.best.maxima.tm == 64 && r.best.maxima.tn == 7) ||
                r.conv_gops(r.best) <= r.conv_gops(zhang) * 1.02)
        << "best Tm=" << r.best.maxima.tm << " Tn=" << r.best.maxima.tn;
    EXPECT_LE(r.best.resources.dsp, 2240);
    EXPECT_LE(relative_error(r.conv_gops(r.best), 61.62), 0.10) << r.conv_gops(r.best) << " GFLOPS";
}

// Chen, Chai, Xia 2019: YOLOv2 416 on the Zedboard, 16-bit, 150 MHz, Tm=32 Tn=4 Tr=Tc=26, measured
// 977 ms/frame. Their port arrangement: four 32-bit read ports, two write ports, and one row burst
// per memcpy waited for (48 cycles, the HP port's round trip, per burst). The latency model follows
// this kernel's RTL (its job pipeline overlaps the next map group's loads with compute, which their
// design need not do): within 10 % of their measurement (909.5 ms, -6.9 %; docs/kernel.md).
TEST(ExploreReproduces, ChenYolov2OnZedboard) {
    const Network net = load_darknet_cfg(darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416});
    PlanOptions o;  // the defaults are Chen's build: Tm=32 Tn=4 Tr=Tc=26, 150 MHz, 4.2 GB/s
    o.port_bits = 32;
    o.fm_read_ports = 4;
    o.fm_write_ports = 2;
    o.burst_overhead_cycles = 48;
    const NetworkPlan plan = plan_network(net, o);
    EXPECT_LE(relative_error(plan.total.milliseconds, 977.0), 0.10) << plan.total.milliseconds << " ms";
}

/// Exploration options for a catalogue board, the rest at their defaults.
ExploreOptions on_board(const char* name) {
    ExploreOptions o;
    o.board = find_board(default_boards_dir(), name);
    return o;
}

TEST(Explore, ZedboardYolov2BuildFitsAndBeatsTheReferenceBuild) {
    const Network net = load_darknet_cfg(darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416});
    const Workload w = workload_from_network(net, {}, false);
    const ExploreResult r = explore::explore(w, on_board("xc7z020"));
    EXPECT_LE(r.best.resources.dsp, 176);
    EXPECT_LE(r.best.resources.bram_18k, 224);
    EXPECT_EQ(r.best.maxima.max_kernel, 3);
    EXPECT_EQ(r.best.maxima.max_stride, 2);
    const Build reference = evaluate_build(w, r.options, kernel::Maxima{});
    EXPECT_LT(r.best.milliseconds, reference.milliseconds);
    // The same estimate as the planner's for the chosen build.
    PlanOptions p = plan_options_for(r.options, r.best.maxima);
    EXPECT_NEAR(plan_network(net, p).total.milliseconds, r.best.milliseconds, 1e-6);
    // The front: no member dominates another; the best is on it.
    ASSERT_FALSE(r.front.empty());
    EXPECT_EQ(r.front.front().milliseconds, r.best.milliseconds);
    for (const Build& a : r.front) {
        for (const Build& b : r.front) {
            const bool dominated = a.milliseconds <= b.milliseconds && a.resources.dsp <= b.resources.dsp &&
                                   a.resources.bram_18k <= b.resources.bram_18k &&
                                   (a.milliseconds < b.milliseconds || a.resources.dsp < b.resources.dsp ||
                                    a.resources.bram_18k < b.resources.bram_18k);
            EXPECT_FALSE(dominated);
        }
        EXPECT_GE(a.milliseconds, a.lower_bound_ms);
    }
    const std::string config = hls_config(r);
    EXPECT_NE(config.find("FPGACNN_TM=" + std::to_string(r.best.maxima.tm) + "\n"), std::string::npos)
        << config;
    EXPECT_NE(config.find("FPGACNN_PART=xc7z020clg484-1"), std::string::npos) << config;
}

// Builds without the pair mode (fpgacnn-plan --explore --no-int8-pairs, for int16 models): the same
// int16 times, less logic, and the build config says FPGACNN_INT8_PAIRS=0 for the HLS scripts.
TEST(Explore, BuildsWithoutThePairModeSaveItsLogicAndSayItInTheConfig) {
    const Workload w = workload_from_network(
        load_darknet_cfg(darknet_file("cfg/yolov2-tiny.cfg"), InputSizeOverride{416, 416}), {}, false);
    ExploreOptions o = on_board("xc7z020");
    const ExploreResult with_pairs = explore::explore(w, o);
    o.int8_pairs = false;
    const ExploreResult without = explore::explore(w, o);
    EXPECT_TRUE(with_pairs.best.maxima.int8_pairs);
    EXPECT_FALSE(without.best.maxima.int8_pairs);
    // The same build evaluated both ways: an int16 workload takes the same time, with less logic.
    kernel::Maxima m = with_pairs.best.maxima;
    const Build a = evaluate_build(w, with_pairs.options, m);
    m.int8_pairs = false;
    const Build b = evaluate_build(w, without.options, m);
    EXPECT_DOUBLE_EQ(a.milliseconds, b.milliseconds);
    EXPECT_LT(b.resources.lut, a.resources.lut);
    EXPECT_LE(b.resources.bram_18k, a.resources.bram_18k);
    EXPECT_LE(without.best.milliseconds, with_pairs.best.milliseconds);
    EXPECT_NE(hls_config(with_pairs).find("FPGACNN_INT8_PAIRS=1\n"), std::string::npos);
    const std::string config = hls_config(without);
    EXPECT_NE(config.find("FPGACNN_INT8_PAIRS=0\n"), std::string::npos) << config;
    EXPECT_NE(config.find(" INT8_PAIRS=0 PORT_BITS=16\n"), std::string::npos) << config;
}

TEST(Explore, RefusesBudgetsNothingFitsAndBadGroups) {
    const Network net = load_darknet_cfg(darknet_file("cfg/yolov2-tiny.cfg"));
    const Workload w = workload_from_network(net, {}, false);
    ExploreOptions o;
    o.board = find_board(default_boards_dir(), "xc7z020");
    o.headroom = 0.05;  // 11 DSPs: not even the control logic fits
    EXPECT_THROW(explore::explore(w, o), Error);
    EXPECT_THROW(parse_groups("2"), Error);
    EXPECT_THROW(parse_groups("2:x"), Error);
    EXPECT_THROW(workload_from_network(net, parse_groups("1:2"), false), Error);  // a maxpool
}

}  // namespace
}  // namespace fpgacnn::test
