// The rtl device (drivers/rtl): its --device grammar and build search, and, where the Verilated small
// build of kernels/rtl is built (FPGACNN_TEST_RTL_BUILD), the device itself: the fingerprint read from
// the RTL, every layer bit-exact with the CPU int16 backend (16-bit, and 8-bit layers in pair mode),
// and the cycles it counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "device_bitexact.hpp"
#include "error_message.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/drivers/rtl_device.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "rtl_model_check.hpp"
#include "train/device_gradients.hpp"
#include "train_fixed/train_fixed.hpp"

namespace fpgacnn::test {
namespace {

TEST(RtlSpec, BuildAndMemoryModelInAnyOrder) {
    const RtlOptions plain = parse_rtl_spec("rtl");
    EXPECT_EQ(plain.build, "small");
    EXPECT_EQ(plain.memory.name, "zedboard");
    const RtlOptions both = parse_rtl_spec("rtl:mem=alveo:zed_big-1");
    EXPECT_EQ(both.build, "zed_big-1");
    EXPECT_EQ(both.memory.name, "alveo");
    EXPECT_GT(both.memory.read_latency, plain.memory.read_latency);
    EXPECT_EQ(parse_rtl_spec("rtl:/opt/x/libfpgacnn_rtl_a.so").build, "/opt/x/libfpgacnn_rtl_a.so");
}

TEST(RtlSpec, MalformedSpecsNameTheGrammar) {
    for (const char* spec : {"rtl:", "rtl:mem=", "rtl:mem=ddr5", "rtl:small:big", "rtl:Small",
                             "rtl:mem=alveo:mem=zedboard", "rtl:a::b"}) {
        const std::string message = error_message([&] { resolve_device(spec); });
        EXPECT_NE(message.find(kRtlSpecGrammar), std::string::npos) << spec << ": " << message;
    }
    EXPECT_NE(error_message([] { parse_rtl_spec("rtl:mem=ddr5"); }).find("no memory model 'ddr5'"),
              std::string::npos);
}

TEST(RtlSpec, MissingBuildSaysWhereItLookedAndWhatToDo) {
    const std::string message = error_message([] { find_rtl_build("no_such_build"); });
    EXPECT_NE(message.find("libfpgacnn_rtl_no_such_build.so"), std::string::npos) << message;
    EXPECT_NE(message.find("FPGACNN_RTL_DIR"), std::string::npos) << message;
    EXPECT_NE(error_message([] { open_device("rtl:no_such_build"); }).find("no build 'no_such_build'"),
              std::string::npos);
    EXPECT_NE(error_message([] { find_rtl_build("/nonexistent/libx.so"); }).find("is not a file"),
              std::string::npos);
}

#ifdef FPGACNN_TEST_RTL_BUILD

#ifdef FPGACNN_TEST_RTL_DIR
// The model comes from another build (tests/CMakeLists.txt): the driver finds it through the variable
// users set too.
[[maybe_unused]] const bool kRtlDirSet = setenv("FPGACNN_RTL_DIR", FPGACNN_TEST_RTL_DIR, 1) == 0;
#endif

// The maxima of the small build (kernels/rtl/CMakeLists.txt).
const KernelMaxima kSmall = [] {
    KernelMaxima m;
    m.tm = 8, m.tn = 4, m.tr = 8, m.tc = 8, m.max_kernel = 3, m.max_stride = 2, m.int8_pairs = true;
    return m;
}();

std::unique_ptr<Device> open_small(const std::string& options = "") {
    return open_device(std::string("rtl:") + FPGACNN_TEST_RTL_BUILD + options);
}

TEST(RtlDevice, ReadsTheFingerprintFromTheRtl) {
    const auto device = open_small();
    const KernelFingerprint fingerprint = device->fingerprint();
    EXPECT_EQ(fingerprint.contract_version, arith::kContractVersion);
    EXPECT_EQ(fingerprint.data_bits, arith::kDataBits);
    const KernelMaxima& m = fingerprint.maxima;
    EXPECT_EQ(m.tm, kSmall.tm);
    EXPECT_EQ(m.tn, kSmall.tn);
    EXPECT_EQ(m.tr, kSmall.tr);
    EXPECT_EQ(m.tc, kSmall.tc);
    EXPECT_EQ(m.max_kernel, kSmall.max_kernel);
    EXPECT_EQ(m.max_stride, kSmall.max_stride);
    EXPECT_EQ(m.int8_pairs, kSmall.int8_pairs);
    EXPECT_NE(device->name().find("rtl:small (Tm=8 Tn=4 Tr=8 Tc=8, mem=zedboard)"), std::string::npos)
        << device->name();
}

TEST(RtlDevice, RefusesTheTrainingPhasesNamingTheDevice) {
    // kernels/rtl implements the forward ops only: BP / WG commands are refused by the driver with a
    // sentence naming the device, before the IP is started (so nothing waits for an ap_done).
    const auto device = open_small();
    const train_fixed::ConvShape shape = train_fixed::conv_shape(3, 6, 6, 5, 3, 1, 1);
    const std::vector<int16_t> dy(shape.output_elements(), 1), w(shape.weight_elements(), 1),
        x(shape.input_elements(), 1);
    for (int phase = 0; phase < 2; ++phase) {
        try {
            if (phase == 0) {
                train_fixed::conv_backward_on_device(*device, shape, 1, dy, w, 8);
            } else {
                train_fixed::weight_gradient_on_device(*device, shape, 1, x, dy, 8);
            }
            ADD_FAILURE() << "the rtl device ran a training command";
        } catch (const DeviceError& e) {
            const std::string text = e.what();
            EXPECT_NE(text.find("BP/WG not supported by this build"), std::string::npos) << text;
            EXPECT_NE(text.find(device->name()), std::string::npos) << text;
        }
    }
    EXPECT_FALSE(device->telemetry().busy);
}

// kernels/rtl runs contract 7's upsample and shortcut ops: its fingerprint says so, a plan for the
// device puts those layers on it, and it runs a shortcut as the HLS kernel does (the kernel tests hold
// both ops against the HLS C++ on random shapes; this one goes through the driver).
TEST(RtlDevice, RunsUpsampleAndShortcutSoPlansPutThemOnTheDevice) {
    const auto device = open_small();
    EXPECT_TRUE(device->maxima().upsample_shortcut);
    EXPECT_NE(device->fingerprint().text().find(", upsample/shortcut"), std::string::npos)
        << device->fingerprint().text();

    PlanOptions options;
    options.maxima = device->maxima();
    const NetworkPlan plan = plan_network(synthetic_network("cfg/yolov3-tiny.cfg", 64), options);
    int upsamples = 0;
    for (const LayerPlan& lp : plan.layers) {
        if (lp.type != LayerType::Upsample) continue;
        EXPECT_TRUE(lp.on_device && !lp.on_host) << "layer " << lp.index;
        ++upsamples;
    }
    EXPECT_EQ(upsamples, 1);

    // out = a + b at aligned exponents (a at Q, b at Q - 1: b is shifted up by one), leaky.
    DeviceBuffer arena = device->allocate(4096, BufferRole::FeatureMaps, "arena");
    const DeviceBuffer params = device->allocate(64, BufferRole::Parameters, "parameters");
    auto* words = static_cast<int16_t*>(arena.host());
    const std::vector<int16_t> a = {100, -200, 3, -4, 32767, -32768};
    const std::vector<int16_t> b = {1, 2, -3, -4, 5, -6};
    std::copy(a.begin(), a.end(), words);
    std::copy(b.begin(), b.end(), words + 16);
    device->sync(arena, SyncDirection::ToDevice, 0, 4096);
    DeviceCommand command;
    command.layer = 15;
    command.description = "layer 15 (shortcut)";
    kernel::LayerCommand& c = command.command;
    c.op = kernel::kOpShortcut;
    c.in_c = c.out_c = 1, c.in_h = c.out_h = 2, c.in_w = c.out_w = 3;
    c.kernel_size = 1, c.stride = 1, c.tile_rows = 1, c.tile_cols = 2;
    c.output_bits = c.input_bits = c.weight_bits = 16;
    c.leaky = arith::kActivationLeaky;
    c.bias_shift = 1;  // Qa - Qb
    c.input_offset = 0, c.error_offset = 16, c.output_offset = 32;
    ASSERT_EQ(kernel::check_command(c), kernel::kCommandOk);
    device->start(command, arena, params);
    device->wait(std::chrono::milliseconds(60000));
    device->sync(arena, SyncDirection::FromDevice, 0, 4096);
    for (std::size_t i = 0; i < a.size(); ++i) {
        const int64_t sum = arith::shortcut_sum(a[i], b[i], 1);
        EXPECT_EQ(words[32 + i], arith::requantize_sum(sum, 0, arith::kActivationLeaky, 16)) << i;
    }
    EXPECT_EQ(words[32 + 4], 32767) << "saturated";
    EXPECT_FALSE(device->telemetry().busy);
}

// fpgacnn-train --device rtl: the trainer asks the device for BP and WG when it opens it, so the RTL's
// refusal (naming the device) comes before any training.
TEST(RtlDevice, TrainerRefusesItBeforeTraining) {
    const Network network = parse_darknet_cfg(
        "[net]\nbatch=2\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=4\nsize=3\npad=1\n"
        "activation=leaky\n",
        "rtl-train.cfg");
    const std::string message = error_message(
        [&] { train::open_device_gradients(std::string("rtl:") + FPGACNN_TEST_RTL_BUILD, network, 2); });
    EXPECT_NE(message.find("BP/WG not supported by this build"), std::string::npos) << message;
    EXPECT_NE(message.find("rtl:"), std::string::npos) << message;
}

TEST(RtlDevice, ListedAsUsable) {
    bool found = false;
    for (const DeviceInfo& info : list_devices()) {
        if (info.spec != "rtl:small") continue;
        found = true;
        EXPECT_TRUE(info.usable) << info.detail;
        EXPECT_NE(info.name.find("Tm=8"), std::string::npos) << info.name;
    }
    EXPECT_TRUE(found);
}

// yolov3-tiny on the RTL, its upsample included, every layer the CPU engine's bits. About 13 s of CPU
// (most of it the weight bursts of the large layers, which do not shrink with the input).
TEST(RtlBitExact, Yolov3TinyAt64WithTheUpsampleOnTheRtl) {
    const auto device = open_small();
    const auto q = std::make_shared<const QuantizedNetwork>(
        naive_quantize(synthetic_network("cfg/yolov3-tiny.cfg", 64)));
    const std::vector<CommandStats> stats =
        expect_device_bit_exact(*device, q, "yolov3-tiny 64 on the rtl", {best_int16_isa()});
    int upsamples = 0;
    for (const CommandStats& s : stats) {
        if (q->network.layers[static_cast<std::size_t>(s.layer)].type != LayerType::Upsample) continue;
        ++upsamples;
        EXPECT_GT(s.cycles, 0u) << "layer " << s.layer;
    }
    EXPECT_EQ(upsamples, 1) << "the upsample ran on the rtl";
    expect_model_predicts(stats, *q, kSmall, "zedboard", "yolov3-tiny 64");
}

// A residual block (darknet's [shortcut], from a stride-2 conv's output), an upsample and a route, as
// YOLOv3's: all on the RTL and every layer the CPU engine's bits, all 16-bit and with every other conv at
// 8 bits (so the shortcut adds an 8-bit and a 16-bit operand).
TEST(RtlBitExact, ShortcutAndUpsampleOfAResidualBlockRunOnTheRtl) {
    Network network = parse_darknet_cfg(
        "[net]\nwidth=32\nheight=32\nchannels=3\n"
        "[convolutional]\nbatch_normalize=1\nfilters=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
        "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=2\npad=1\nactivation=leaky\n"
        "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=1\nstride=1\npad=1\nactivation=leaky\n"
        "[shortcut]\nfrom=-2\nactivation=leaky\n"
        "[upsample]\nstride=2\n"
        "[route]\nlayers=-1,0\n"
        "[convolutional]\nfilters=16\nsize=1\nstride=1\npad=1\nactivation=linear\n",
        "residual.cfg");
    fill_synthetic_weights(network, 7);
    fold_batchnorm(network);
    const auto device = open_small();
    const auto all16 = std::make_shared<const QuantizedNetwork>(
        calibrate(network, {darknet_file("data/dog.jpg")}, {}).quantized);
    int narrow = 0;
    const auto mixed = mixed_widths(network, &narrow);
    EXPECT_GE(narrow, 2);
    EXPECT_NE(mixed->layers[2].output_bits, mixed->layers[1].output_bits) << "the shortcut's operands";
    for (const auto& [q, name] :
         {std::pair{all16, "residual block, 16 bits"}, std::pair{mixed, "residual block, mixed 16/8 bits"}}) {
        const std::vector<CommandStats> stats = expect_device_bit_exact(*device, q, name, {best_int16_isa()});
        int elementwise = 0;
        for (const CommandStats& s : stats) {
            const LayerType type = q->network.layers[static_cast<std::size_t>(s.layer)].type;
            elementwise += type == LayerType::Shortcut || type == LayerType::Upsample;
        }
        EXPECT_EQ(elementwise, 2) << name << ": the shortcut and the upsample ran on the rtl";
        expect_model_predicts(stats, *q, kSmall, "zedboard", name);
    }
}

TEST(RtlBitExact, Yolov2TinyAt64CountsCyclesPerCommand) {
    const auto device = open_small();
    const auto q = std::make_shared<const QuantizedNetwork>(
        naive_quantize(synthetic_network("cfg/yolov2-tiny.cfg", 64)));
    const std::vector<CommandStats> stats =
        expect_device_bit_exact(*device, q, "yolov2-tiny 64", {best_int16_isa()});
    ASSERT_FALSE(stats.empty());
    expect_model_predicts(stats, *q, kSmall, "zedboard", "yolov2-tiny 64");
    for (const CommandStats& s : stats) {
        EXPECT_GT(s.cycles, 0u) << "layer " << s.layer;
        EXPECT_GT(s.fm_write_bytes, 0u) << "layer " << s.layer;
    }
    // The same frame again takes exactly the same cycles: the simulation is deterministic.
    const std::vector<CommandStats> again = expect_device_bit_exact(*device, q, "yolov2-tiny 64, again", {});
    ASSERT_EQ(again.size(), stats.size());
    for (std::size_t i = 0; i < stats.size(); ++i) EXPECT_EQ(again[i].cycles, stats[i].cycles) << i;
}

TEST(RtlBitExact, MixedWidthsYolov2TinyAt64RunsPairMode) {
    const auto device = open_small(":mem=alveo");
    int narrow = 0;
    const auto q = mixed_widths(synthetic_network("cfg/yolov2-tiny.cfg", 64), &narrow);
    EXPECT_GE(narrow, 3) << "the model must really have 8-bit layers";
    const std::vector<CommandStats> stats =
        expect_device_bit_exact(*device, q, "yolov2-tiny 64, mixed 16/8 bits", {best_int16_isa()});
    expect_model_predicts(stats, *q, kSmall, "alveo", "yolov2-tiny 64, mixed 16/8 bits, alveo");
}

#ifdef FPGACNN_TEST_RTL_BUILD64
// The small build with 64-bit word ports (four elements a beat): the same bits, the port width read
// from the fingerprint, and the latency model costing whole beats within its tolerances.
TEST(RtlBitExact, WidePortsYolov2TinyAt64InInt16AndMixedWidths) {
    const auto device = open_device(std::string("rtl:") + FPGACNN_TEST_RTL_BUILD64);
    const KernelMaxima maxima = device->maxima();
    EXPECT_EQ(maxima.port_bits, 64);
    EXPECT_EQ(maxima.tm, kSmall.tm);
    const auto q = std::make_shared<const QuantizedNetwork>(
        naive_quantize(synthetic_network("cfg/yolov2-tiny.cfg", 64)));
    const std::vector<CommandStats> stats =
        expect_device_bit_exact(*device, q, "yolov2-tiny 64, 64-bit ports", {best_int16_isa()});
    expect_model_predicts(stats, *q, maxima, "zedboard", "yolov2-tiny 64, 64-bit ports");
    int narrow = 0;
    const auto mixed = mixed_widths(synthetic_network("cfg/yolov2-tiny.cfg", 64), &narrow);
    const std::vector<CommandStats> mixed_stats =
        expect_device_bit_exact(*device, mixed, "yolov2-tiny 64, mixed 16/8 bits, 64-bit ports", {});
    expect_model_predicts(mixed_stats, *mixed, maxima, "zedboard", "yolov2-tiny 64, mixed, 64-bit ports");
}
#endif

TEST(RtlBitExact, YoloLiteTrainedWeights) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto device = open_small();
    expect_device_bit_exact(*device,
                            std::make_shared<const QuantizedNetwork>(naive_quantize(yolo_lite_network())),
                            "yolo-lite-voc", {best_int16_isa()});
}

#else

TEST(RtlDevice, NotBuiltHere) {
    GTEST_SKIP() << "this build has no Verilated kernel (FPGACNN_BUILD_RTL off or verilator missing): the "
                    "rtl device's simulation tests do not run";
}

#endif

}  // namespace
}  // namespace fpgacnn::test
