// fpgacnn-detect against the simulator tool in another process, as on a board: --list-devices,
// --device uio:NAME equal to --device cpu --precision int16 bit for bit, and --fallback cpu.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fpgacnn/kernel/contract.hpp"
#include "sim_process.hpp"
#include "uio_test_support.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::test {
namespace {

std::string detect_app() { return app_path("detect", "fpgacnn-detect"); }

const std::string kModel = "yolo-lite-voc";

std::string model_arguments() {
    return " --cfg " + shared_model_file(kModel, "tiny-yolov2-trial3-noBatch.cfg") + " --weights " +
           shared_model_file(kModel, "tiny-yolov2-trial3-noBatch.weights");
}

/// YOLO-LITE's int16 model calibrated on dog.jpg alone (quick), written into `dir`.
std::string quantized_model(const std::string& dir) {
    const std::string path = dir + "/yolo-lite.fq16";
    std::string out, err;
    EXPECT_EQ(run_command(app_path("quantize", "fpgacnn-quantize") + model_arguments() + " --images " +
                              darknet_file("data/dog.jpg") + " --out " + path,
                          &out, &err),
              0)
        << err;
    return path;
}

/// fpgacnn-detect on YOLO-LITE VOC (int16 model `quantized`) with darknet's dog.jpg, the UIO tree at
/// `root`.
std::string detect_command(const std::string& root, const std::string& quantized,
                           const std::string& arguments) {
    return "FPGACNN_UIO_ROOT=" + root + " " + detect_app() + model_arguments() + " --names " +
           shared_model_file(kModel, "voc.names") + " --quantized " + quantized + " --json --thresh 0.25 " +
           arguments + " " + darknet_file("data/dog.jpg");
}

nlohmann::json detections(const std::string& json_line) {
    return nlohmann::json::parse(json_line.substr(0, json_line.find('\n')))["detections"];
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(UioCli, ListDevicesShowsTheSimulatedIpAsUsable) {
    const std::string root = scratch_dir("uio_cli_list");
    SimProcess sim(root, {});
    std::string out, err;
    ASSERT_EQ(run_command("FPGACNN_UIO_ROOT=" + root + " " + detect_app() + " --list-devices", &out, &err), 0)
        << err;
    EXPECT_TRUE(contains(out, "cpu\tusable\t")) << out;
    EXPECT_TRUE(contains(out, "emu\tusable\t")) << out;
    EXPECT_TRUE(contains(out, "uio:fpgacnn_accel\tusable\tuio:fpgacnn_accel (uio0, Tm=")) << out;
    EXPECT_TRUE(
        contains(out, "arithmetic contract v" + std::to_string(arith::kContractVersion) +
                          ", 8-bit pairs, upsample/shortcut; udmabuf0, CmaTotal 128 MiB, CmaFree 96 MiB"))
        << out;
}

TEST(UioCli, ListDevicesSaysWhyAnIpIsUnusable) {
    const std::string no_buffer = scratch_dir("uio_cli_list_no_udmabuf");
    const std::string wrong_ip = scratch_dir("uio_cli_list_wrong_ip");
    SimProcess short_cma(no_buffer, {"--udmabuf-mib", "0", "--cma-free-mib", "2"});
    SimProcess other_contract(wrong_ip, {"--fault", "wrong-fingerprint"});
    std::string out, err;
    ASSERT_EQ(
        run_command("FPGACNN_UIO_ROOT=" + no_buffer + " " + detect_app() + " --list-devices", &out, &err), 0);
    EXPECT_TRUE(contains(out, "uio:fpgacnn_accel\tunusable")) << out;
    EXPECT_TRUE(contains(out, "no u-dma-buf device for its DMA buffers")) << out;
    EXPECT_TRUE(contains(out, "cma=")) << out;
    ASSERT_EQ(
        run_command("FPGACNN_UIO_ROOT=" + wrong_ip + " " + detect_app() + " --list-devices", &out, &err), 0);
    EXPECT_TRUE(contains(out, "uio:fpgacnn_accel\tunusable")) << out;
    EXPECT_TRUE(contains(out, "arithmetic contract v99")) << out;
}

TEST(UioCli, UioDeviceEqualsCpuInt16LayerByLayer) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const std::string dir = scratch_dir("uio_cli_bitexact");
    const std::string quantized = quantized_model(dir);
    SimProcess sim(dir + "/root", {});
    std::string cpu_json, uio_json, err;
    ASSERT_EQ(run_command(detect_command(dir + "/root", quantized,
                                         "--device cpu --precision int16 --dump-layers " + dir + "/cpu"),
                          &cpu_json, &err),
              0)
        << err;
    ASSERT_EQ(run_command(detect_command(dir + "/root", quantized,
                                         "--device uio:fpgacnn_accel --dump-layers " + dir + "/uio"),
                          &uio_json, &err),
              0)
        << err;
    std::size_t compared = 0;
    for (const auto& entry : fs::directory_iterator(dir + "/cpu")) {
        const fs::path twin = fs::path(dir) / "uio" / entry.path().filename();
        ASSERT_TRUE(fs::exists(twin)) << twin;
        EXPECT_EQ(read_bytes(entry.path()), read_bytes(twin)) << entry.path().filename();
        ++compared;
    }
    EXPECT_GE(compared, 9u);
    EXPECT_EQ(detections(cpu_json), detections(uio_json));
    EXPECT_FALSE(detections(uio_json).empty());
}

TEST(UioCli, DeviceErrorFailsTheImageOrFallsBackToTheCpuWithTheSameDetections) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const std::string dir = scratch_dir("uio_cli_fallback");
    const std::string quantized = quantized_model(dir);
    std::string cpu_json, out, err;
    ASSERT_EQ(run_command(detect_command(dir, quantized, "--device cpu --precision int16"), &cpu_json, &err),
              0)
        << err;
    // Command 0 is the identify at open; command 3 is the third layer of the first frame.
    const std::vector<std::string> fault = {"--fault", "wrong-status",  "--fault-from",
                                            "3",       "--fault-count", "1"};
    {
        SimProcess sim(dir + "/strict", fault);
        EXPECT_EQ(
            run_command(detect_command(dir + "/strict", quantized, "--device uio:fpgacnn_accel"), &out, &err),
            1);
        EXPECT_TRUE(contains(err, "ended with control status 0x106")) << err;
        EXPECT_TRUE(contains(err, "layer 2")) << err;
    }
    SimProcess sim(dir + "/fallback", fault);
    ASSERT_EQ(
        run_command(detect_command(dir + "/fallback", quantized, "--device uio:fpgacnn_accel --fallback cpu"),
                    &out, &err),
        0)
        << err;
    EXPECT_TRUE(contains(err, "falling back to the CPU int16 backend")) << err;
    EXPECT_EQ(detections(out), detections(cpu_json));
}

}  // namespace
}  // namespace fpgacnn::test
