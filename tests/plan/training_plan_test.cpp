// The training phases on the array (fpgacnn/training_plan.hpp, docs/training-utilization.md): FP, BP
// and WG cycles of conv layers, their utilization, the stride-class decomposition of BP, and
// fpgacnn-plan --train.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/training_plan.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

/// A cfg of two conv layers: the first (whose BP is not timed) and the layer under test.
std::string two_conv_cfg(const std::string& name, int size, int channels, int filters, int k, int stride) {
    const std::string path = scratch_dir("training_plan") + "/" + name + ".cfg";
    std::ofstream(path) << "[net]\nwidth=" << size << "\nheight=" << size << "\nchannels=3\n\n"
                        << "[convolutional]\nfilters=" << channels
                        << "\nsize=3\nstride=1\npad=1\nactivation=relu\n\n"
                        << "[convolutional]\nfilters=" << filters << "\nsize=" << k << "\nstride=" << stride
                        << "\npad=1\nactivation=relu\n";
    return path;
}

/// A build with the memory far faster than the array, so that compute alone sets the cycles.
PlanOptions compute_bound(int tm, int tn, int tile) {
    PlanOptions o;
    o.maxima.tm = tm, o.maxima.tn = tn, o.maxima.tr = tile, o.maxima.tc = tile;
    o.bandwidth_gbs = 1e5;
    o.port_bits = 512;
    o.fm_read_ports = 64;
    o.fm_write_ports = 64;
    o.read_latency_cycles = 0;
    o.write_latency_cycles = 0;
    return o;
}

constexpr double kPassDrain = 8;  // the array pipeline's drain per pass (latency model)

/// The second layer (64 -> 64 channels, 32x32 input, K x K stride S) of one image on a compute-bound
/// Tm = 16, Tn = 8 build with 16x16 tiles.
TrainingLayerEstimate one_image_layer(const std::string& name, int k, int stride) {
    const Network net = load_darknet_cfg_for_planning(two_conv_cfg(name, 32, 64, 64, k, stride));
    TrainingOptions t;
    t.batch = 1;
    return estimate_training(plan_network(net, compute_bound(16, 8, 16)), t).layers.at(1);
}

TEST(TrainingPlan, ALayerInWholeTilesUsesTheArrayForEveryCycleButItsDrainAndTheMemory) {
    // 3x3/1, N = M = 64 on Tm = 16, Tn = 8, 32x32 in 16x16 tiles: every job fills the array.
    const Network net = load_darknet_cfg_for_planning(two_conv_cfg("whole", 32, 64, 64, 3, 1));
    const PlanOptions o = compute_bound(16, 8, 16);
    TrainingOptions t;
    t.batch = 4;
    const TrainingEstimate e = estimate_training(plan_network(net, o), t);
    ASSERT_EQ(e.layers.size(), 2u);
    const TrainingLayerEstimate& l = e.layers[1];
    const double macs = 64.0 * 64 * 9 * 32 * 32 * t.batch;
    EXPECT_EQ(static_cast<double>(l.forward.useful_macs), macs);
    // Jobs per image: 4 tiles x 4 map groups x 8 input groups, each K*K*16*16 cycles + the drain.
    const double jobs = 4.0 * 4 * 8 * t.batch;
    for (const PhaseEstimate* phase : {&l.forward, &l.backward}) {
        EXPECT_DOUBLE_EQ(phase->compute_cycles, macs / (16 * 8) + jobs * kPassDrain);
        EXPECT_GT(phase->utilization(e.array_macs), 0.95);
        EXPECT_LE(phase->utilization(e.array_macs), 1.0);
    }
    // WG: the same MACs and array cycles (its passes, one per dY tile of an image, are serial: their
    // drain is counted in the total, not the array's cycles).
    EXPECT_EQ(l.weight_gradient.useful_macs, l.forward.useful_macs);
    EXPECT_DOUBLE_EQ(l.weight_gradient.compute_cycles, macs / (16 * 8));
    EXPECT_GT(l.weight_gradient.utilization(e.array_macs), 0.95);
    // The network's sums: the first layer (3 input channels on 8 lanes) pulls them down.
    EXPECT_LT(e.forward.utilization(e.array_macs), l.forward.utilization(e.array_macs));
    EXPECT_EQ(e.overall().useful_macs,
              e.forward.useful_macs + e.backward.useful_macs + e.weight_gradient.useful_macs);
}

TEST(TrainingPlan, StrideTwoBackwardSkipsTheInsertedZeros) {
    // 3x3/2 pad 1, 32x32 -> 16x16: the four stride classes of dX hold 2x2, 2x1, 1x2 and 1x1 taps, so a
    // dX tile costs K*K*R*C / (S*S)... exactly FP's cycles, not the K*K*H*W of a zero-inserted dY.
    const TrainingLayerEstimate l = one_image_layer("stride2", 3, 2);
    EXPECT_EQ(l.stride_classes, 4);
    EXPECT_EQ(l.backward.useful_macs, l.forward.useful_macs);
    // BP: 4 dX tiles (16x16 of 32x32) x 4 dX map groups (N / Tm) x 8 dY groups (M / Tn), four passes each.
    const double bp_jobs = 4.0 * 4 * 8;
    const double useful_cycles = static_cast<double>(l.forward.useful_macs) / (16 * 8);
    EXPECT_DOUBLE_EQ(l.backward.compute_cycles - bp_jobs * 4 * kPassDrain, useful_cycles);
    const double zero_inserted = 64.0 * 64 * 9 * 32 * 32 / (16 * 8);
    EXPECT_DOUBLE_EQ(zero_inserted, 4 * useful_cycles);
    EXPECT_GT(l.backward.utilization(16 * 8), 0.9);
}

TEST(TrainingPlan, OneByOneStrideTwoBackwardRunsOnlyTheClassWithATap) {
    // 1x1/2: only class (0, 0) has a tap; the other three quarters of dX are zeros written without the
    // array.
    const TrainingLayerEstimate l = one_image_layer("one_by_one", 1, 2);
    EXPECT_EQ(l.stride_classes, 1);
    const double jobs = 4.0 * 4 * 8;
    EXPECT_DOUBLE_EQ(l.backward.compute_cycles - jobs * kPassDrain,
                     static_cast<double>(l.forward.useful_macs) / (16 * 8));
}

TEST(TrainingPlan, EveryPhaseCountsTheForwardMacsOnTheTorchvisionCfgs) {
    for (const char* model : {"resnet18", "resnet50"}) {
        const Network net =
            load_darknet_cfg_for_planning(source_dir() + "/cfg/train/" + std::string(model) + ".cfg");
        PlanOptions o;
        o.maxima.max_kernel = 7;
        const NetworkPlan plan = plan_network(net, o);
        TrainingOptions t;
        t.batch = 2;
        const TrainingEstimate e = estimate_training(plan, t);
        std::uint64_t conv_macs = 0;
        for (const LayerPlan& lp : plan.layers)
            if (lp.type == LayerType::Convolutional && !lp.connected) conv_macs += lp.estimate.macs;
        EXPECT_EQ(e.forward.useful_macs, conv_macs * 2) << model;
        EXPECT_EQ(e.weight_gradient.useful_macs, e.forward.useful_macs) << model;
        // BP skips the first layer (the image's delta) unless asked.
        EXPECT_EQ(e.backward.useful_macs, e.forward.useful_macs - e.layers[0].forward.useful_macs) << model;
        EXPECT_EQ(e.layers[0].backward.total_cycles, 0.0);
        // FP is the planner's own estimate of each layer's command, once per image.
        for (const TrainingLayerEstimate& l : e.layers) {
            const LayerPlan& lp = plan.layers[static_cast<std::size_t>(l.index)];
            EXPECT_DOUBLE_EQ(l.forward.total_cycles, lp.estimate.total_cycles * t.batch)
                << model << " " << l.index;
            EXPECT_DOUBLE_EQ(l.forward.milliseconds, lp.estimate.milliseconds * t.batch)
                << model << " " << l.index;
        }
        t.first_layer_delta = true;
        EXPECT_EQ(estimate_training(plan, t).backward.useful_macs, e.forward.useful_macs) << model;
        for (const TrainingLayerEstimate& l : e.layers) {
            EXPECT_GT(l.forward.utilization(e.array_macs), 0.0) << model << " " << l.index;
            EXPECT_LE(l.weight_gradient.utilization(e.array_macs), 1.0) << model << " " << l.index;
        }
    }
    // torchvision's MAC counts (conv layers only): resnet18 1.814 G, resnet50 4.089 G per image.
}

TEST(TrainingPlan, FoldingTheBatchLoadsEachWeightBlockOncePerGroupOfImages) {
    // 7x7 maps on 28x28 tiles with a slow weight memory: one image per job waits for its weights;
    // folded, 16 images share a block.
    const Network net = load_darknet_cfg_for_planning(two_conv_cfg("fold", 7, 256, 256, 3, 1));
    PlanOptions o = compute_bound(32, 32, 28);
    TrainingOptions t;
    t.batch = 32;
    t.weight_bandwidth_gbs = 0.3;  // about 2 bytes a cycle at 150 MHz
    const TrainingEstimate per_image = estimate_training(plan_network(net, o), t);
    t.fold_batch = true;
    const TrainingEstimate folded = estimate_training(plan_network(net, o), t);
    EXPECT_LT(per_image.layers[1].forward.utilization(1024), 0.2);
    EXPECT_GT(folded.layers[1].forward.utilization(1024), 3 * per_image.layers[1].forward.utilization(1024));
    EXPECT_GT(folded.layers[1].backward.utilization(1024),
              3 * per_image.layers[1].backward.utilization(1024));
    EXPECT_EQ(folded.layers[1].forward.useful_macs, per_image.layers[1].forward.useful_macs);
}

TEST(TrainingPlan, WgReuseLoadsEachErrorTileOnceForSeveralInputGroups) {
    // 1x1, 64 -> 64 at 32x32 on Tm = Tn = 16 with one 16-bit port: as built, WG loads a 16-map dY tile
    // and a 16-map X window for every 256-cycle pass, in series; with reuse the dY tile serves four
    // input groups and the loads overlap the passes.
    const Network net = load_darknet_cfg_for_planning(two_conv_cfg("wg_reuse", 32, 64, 64, 1, 1));
    PlanOptions o;
    o.maxima.tm = 16, o.maxima.tn = 16, o.maxima.tr = 16, o.maxima.tc = 16;
    TrainingOptions t;
    t.batch = 2;
    const TrainingLayerEstimate built = estimate_training(plan_network(net, o), t).layers.at(1);
    t.wg_reuse = true;
    const TrainingLayerEstimate reused = estimate_training(plan_network(net, o), t).layers.at(1);
    EXPECT_EQ(reused.weight_gradient.compute_cycles, built.weight_gradient.compute_cycles);
    EXPECT_LT(built.weight_gradient.utilization(256), 0.1);
    EXPECT_GT(reused.weight_gradient.utilization(256), 1.5 * built.weight_gradient.utilization(256));
    EXPECT_EQ(reused.forward.total_cycles, built.forward.total_cycles);  // FP and BP are not WG's
}

TEST(TrainingPlan, RefusesABatchBelowOne) {
    const Network net = load_darknet_cfg_for_planning(two_conv_cfg("bad", 16, 8, 8, 3, 1));
    TrainingOptions t;
    t.batch = 0;
    EXPECT_THROW(estimate_training(plan_network(net, PlanOptions{}), t), Error);
}

TEST(TrainingPlan, PlanAppTrainPrintsEveryPhaseAndJson) {
    const std::string app = app_path("plan", "fpgacnn-plan");
    if (!std::filesystem::exists(app)) GTEST_SKIP() << app << " is not built";
    const std::string cfg = source_dir() + "/cfg/train/vgg19.cfg";
    std::string out, err;
    ASSERT_EQ(run_command(app + " --cfg " + cfg + " --train --batch 8 --json", &out, &err), 0) << err;
    const nlohmann::json training = nlohmann::json::parse(out)["training"];
    EXPECT_EQ(training["batch"], 8);
    // VGG19's 16 convs; its 3 [connected] layers run as 1x1 convs but the training estimate leaves them out.
    EXPECT_EQ(training["layers"].size(), 16u);
    EXPECT_TRUE(training["layers"][0]["bp"].is_null());
    for (const char* phase : {"fp", "bp", "wg", "backward", "overall"}) {
        const double u = training[phase]["utilization"].get<double>();
        EXPECT_GT(u, 0.0) << phase;
        EXPECT_LE(u, 1.0) << phase;
    }
    ASSERT_EQ(run_command(app + " --cfg " + cfg + " --train", &out, &err), 0) << err;
    EXPECT_NE(out.find("overall (FP + BP + WG)"), std::string::npos) << out;
    EXPECT_NE(run_command(app + " --cfg " + cfg + " --batch 8", &out, &err), 0);
    EXPECT_NE(err.find("--train"), std::string::npos) << err;
    EXPECT_NE(run_command(app + " --cfg " + cfg + " --train --explore --board xc7z020", &out, &err), 0);
    EXPECT_NE(err.find("--train times one kernel build"), std::string::npos) << err;
}

}  // namespace
}  // namespace fpgacnn::test
