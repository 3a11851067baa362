// DeviceQueue's frame pipeline on the emu device: the next frame's upload happens while the kernel
// computes the current one, results come back in order and equal run(), at most two frames are in
// flight, and a plan for another kernel build is refused. Also the identify command.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "emu_test_support.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/int16_engine.hpp"

namespace fpgacnn::test {
namespace {

/// Holds the kernel at a chosen layer until the test opens the gate (a stand-in for a long layer).
class LayerGate {
public:
    explicit LayerGate(int layer) : layer_(layer) {}

    EmuOptions emu_options() {
        EmuOptions options;
        options.on_command_accepted = [this](const DeviceCommand& command) {
            if (command.layer != layer_) return;
            std::unique_lock<std::mutex> lock(mutex_);
            ++arrivals_;
            changed_.notify_all();
            changed_.wait(lock, [&] { return open_; });
        };
        return options;
    }
    /// Blocks until the kernel has reached the gated layer `count` times in all.
    void await_arrivals(int count) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return arrivals_ >= count; });
    }
    void open() {
        std::lock_guard<std::mutex> lock(mutex_);
        open_ = true;
        changed_.notify_all();
    }

private:
    int layer_;
    std::mutex mutex_;
    std::condition_variable changed_;
    int arrivals_ = 0;
    bool open_ = false;
};

std::vector<std::vector<int16_t>> expected_outputs(int frames) {
    const auto q = small_quantized();
    Int16Engine engine(*q, Int16Isa::Scalar, 1);
    std::vector<std::vector<int16_t>> outputs;
    for (int f = 0; f < frames; ++f) {
        const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q, f);
        outputs.push_back(engine.run(input.data()));
    }
    return outputs;
}

TEST(DeviceQueuePipeline, SubmittedFramesComeBackInOrderAndEqualTheCpuEngine) {
    const auto q = small_quantized();
    const auto expected = expected_outputs(5);
    auto device = make_emu_device();
    DeviceQueue queue(*device, q);
    // Keep two frames in flight: submit f+1 before collecting f.
    std::vector<int16_t> input = pattern_input(q->network.input, q->input_q, 0);
    queue.submit(input.data());
    for (int f = 0; f < 5; ++f) {
        if (f + 1 < 5) {
            input = pattern_input(q->network.input, q->input_q, f + 1);
            queue.submit(input.data());
        }
        EXPECT_EQ(queue.collect(), expected[static_cast<std::size_t>(f)]) << "frame " << f;
    }
    EXPECT_EQ(queue.in_flight(), 0);
    EXPECT_EQ(queue.run(pattern_input(q->network.input, q->input_q, 2).data()), expected[2]);
}

TEST(DeviceQueuePipeline, TheNextFrameUploadsWhileTheKernelComputesThisOne) {
    const auto q = small_quantized();
    const auto expected = expected_outputs(2);
    LayerGate gate(2);  // frame 0 is held in the middle of the network
    auto device = make_emu_device(gate.emu_options());
    DeviceQueue queue(*device, q);
    const std::vector<int16_t> frame0 = pattern_input(q->network.input, q->input_q, 0);
    const std::vector<int16_t> frame1 = pattern_input(q->network.input, q->input_q, 1);
    queue.submit(frame0.data());
    gate.await_arrivals(1);
    queue.submit(frame1.data());  // returns: uploaded and synced into the other slot mid-frame
    EXPECT_TRUE(device->telemetry().busy) << "frame 0 must still be computing during the upload";
    EXPECT_EQ(queue.in_flight(), 2);
    gate.open();
    EXPECT_EQ(queue.collect(), expected[0]);
    EXPECT_EQ(queue.collect(), expected[1]);
}

TEST(DeviceQueuePipeline, AThirdFrameWaitsForAFreeInputSlot) {
    const auto q = small_quantized();
    const auto expected = expected_outputs(3);
    LayerGate gate(0);  // layer 0 reads the input slot: frame 0 keeps slot 0 busy while held
    auto device = make_emu_device(gate.emu_options());
    DeviceQueue queue(*device, q);
    std::vector<std::vector<int16_t>> inputs;
    for (int f = 0; f < 3; ++f) inputs.push_back(pattern_input(q->network.input, q->input_q, f));
    queue.submit(inputs[0].data());
    gate.await_arrivals(1);
    queue.submit(inputs[1].data());
    std::atomic<bool> third_returned{false};
    std::thread third([&] {
        queue.submit(inputs[2].data());
        third_returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // gives a wrong submit time to return
    EXPECT_FALSE(third_returned.load()) << "both input slots are busy: submit() must block";
    gate.open();
    third.join();
    for (int f = 0; f < 3; ++f) EXPECT_EQ(queue.collect(), expected[static_cast<std::size_t>(f)]);
}

TEST(DeviceQueuePipeline, LayerOutputsFollowTheCollectedFrame) {
    const auto q = small_quantized();
    Int16Engine engine(*q, Int16Isa::Scalar, 1);
    auto device = make_emu_device();
    QueueOptions options;
    options.capture_layers = true;
    DeviceQueue queue(*device, q, options);
    const std::vector<int16_t> a = pattern_input(q->network.input, q->input_q, 3);
    const std::vector<int16_t> b = pattern_input(q->network.input, q->input_q, 4);
    queue.submit(a.data());
    queue.submit(b.data());
    queue.collect();
    engine.run(a.data());
    for (std::size_t i = 0; i < q->network.layers.size(); ++i) {
        EXPECT_EQ(queue.layer_output(static_cast<int>(i)), engine.layer_output(static_cast<int>(i))) << i;
    }
    queue.collect();
    engine.run(b.data());
    EXPECT_EQ(queue.layer_output(0), engine.layer_output(0));
}

TEST(DeviceQueuePipeline, RunRefusesWhileFramesAreInFlightAndCollectNeedsAFrame) {
    const auto q = small_quantized();
    auto device = make_emu_device();
    DeviceQueue queue(*device, q);
    EXPECT_THROW(queue.collect(), Error);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q, 0);
    queue.submit(input.data());
    EXPECT_THROW(queue.run(input.data()), Error);
    queue.collect();
}

TEST(DeviceQueuePipeline, AFailedFrameReportsItsLayerAndTheNextFrameRuns) {
    const auto q = small_quantized();
    auto device = make_emu_device();
    QueueOptions options;
    options.skip_input_sync = true;  // the kernel refuses layer 0: its input was never synced
    DeviceQueue broken(*device, q, options);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q, 0);
    broken.submit(input.data());
    try {
        broken.collect();
        FAIL() << "an unsynced input must fail the frame";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 0"), std::string::npos) << e.what();
    }
    DeviceQueue healthy(*device, q);
    EXPECT_EQ(healthy.run(input.data()), expected_outputs(1)[0]);
}

TEST(DeviceQueuePipeline, APlanForAnotherKernelBuildIsRefused) {
    const auto q = small_quantized();
    auto device = make_emu_device();
    PlanOptions other;
    other.maxima.tm = 16;
    other.maxima.tn = 8;
    CommandList list = build_command_list(*q, other);
    try {
        DeviceQueue queue(*device, q, list);
        FAIL() << "a Tm=16 Tn=8 plan must not run on a Tm=32 Tn=4 kernel";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("Tm=16 Tn=8"), std::string::npos) << message;
        EXPECT_NE(message.find(device->fingerprint().text()), std::string::npos) << message;
    }
}

TEST(KernelFingerprint, TheEmuKernelIdentifiesItsBuild) {
    auto device = make_emu_device();
    const KernelFingerprint read = read_fingerprint(*device, std::chrono::seconds(10));
    const KernelFingerprint native = native_kernel_fingerprint();
    EXPECT_EQ(read.text(), native.text());
    EXPECT_EQ(read.maxima.tm, device->maxima().tm);
    EXPECT_EQ(read.contract_version, 7);  // 7: the upsample and shortcut ops
    EXPECT_EQ(read.data_bits, 16);
    EXPECT_TRUE(read.maxima.int8_pairs) << "the reference build has the pair mode: " << read.text();
    EXPECT_NE(read.text().find(", 8-bit pairs"), std::string::npos) << read.text();
    EXPECT_TRUE(read.maxima.upsample_shortcut) << "the reference build has the upsample / shortcut ops";
    EXPECT_NE(read.text().find(", upsample/shortcut"), std::string::npos) << read.text();
    EXPECT_NO_THROW(require_compatible_kernel(read, device->name()));
}

TEST(KernelFingerprint, AnotherContractOrWidthIsIncompatible) {
    // Older too: a version-2 bitstream has the 20-register map and reads 8-bit weights one per word,
    // so it cannot run version-3 commands (model files of older versions still load; kernels match
    // exactly).
    const int host = native_kernel_fingerprint().contract_version;
    for (const int other : {host - 1, host + 1}) {
        KernelFingerprint f = native_kernel_fingerprint();
        f.contract_version = other;
        try {
            require_compatible_kernel(f, "uio:test");
            ADD_FAILURE() << "contract v" << other << " accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("uio:test"), std::string::npos);
            EXPECT_NE(std::string(e.what()).find("contract v" + std::to_string(other)), std::string::npos);
        }
    }
    KernelFingerprint f = native_kernel_fingerprint();
    f.data_bits = 8;
    EXPECT_THROW(require_compatible_kernel(f, "x"), Error);
    f = native_kernel_fingerprint();
    f.maxima.tm = 0;
    EXPECT_THROW(require_compatible_kernel(f, "x"), Error);
}

}  // namespace
}  // namespace fpgacnn::test
