// fpgacnn-bench as a user runs it: every JSON field, the CSV, a real chart, and clean failures.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "device_help_check.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using fpgacnn::test::app_path;
using fpgacnn::test::darknet_file;
using fpgacnn::test::run_command;
using fpgacnn::test::scratch_dir;
using fpgacnn::test::shared_model_file;

namespace {

// YOLO-LITE VOC with its trained weights when shared/ is present, else yolov2-tiny at 160x160 with
// the tool's synthetic weights: the benchmark runs either way. `input` overrides the input size.
std::string model_arguments(const std::string& input) {
    const std::string cfg = shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg");
    if (!cfg.empty() && fs::exists(cfg)) {
        return " --cfg " + cfg + " --weights " +
               shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights") +
               (input.empty() ? "" : " --input " + input);
    }
    return " --cfg " + darknet_file("cfg/yolov2-tiny.cfg") + " --input " +
           (input.empty() ? "160x160" : input);
}

std::string bench(const std::string& arguments, const std::string& input = "") {
    return app_path("bench", "fpgacnn-bench") + model_arguments(input) + " -q" + arguments;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool folder_is_empty(const std::string& folder) { return fs::is_empty(folder); }

// Pixels in `area` that are not the white background.
int inked_pixels(const cv::Mat& image, cv::Rect area) {
    int count = 0;
    const cv::Mat region = image(area & cv::Rect(0, 0, image.cols, image.rows));
    for (int y = 0; y < region.rows; ++y)
        for (int x = 0; x < region.cols; ++x)
            if (region.at<cv::Vec3b>(y, x) != cv::Vec3b(255, 255, 255)) ++count;
    return count;
}

// --pixels in-process: the frames go to the detector as 8-bit RGB pixels (as fpgacnn-serve gets them;
// that they detect what the float images detect is test_pipeline's), and the report says so.
TEST(BenchCli, PixelFramesRunAndTheReportSaysSo) {
    std::string as_images, as_pixels, err;
    const std::string run = bench(" --device cpu --precision int16 --frames 2 --warmup 0 --json");
    ASSERT_EQ(run_command(run, &as_images, &err), 0) << err;
    ASSERT_EQ(run_command(run + " --pixels", &as_pixels, &err), 0) << err;
    const nlohmann::json images = nlohmann::json::parse(as_images);
    const nlohmann::json pixels = nlohmann::json::parse(as_pixels);
    EXPECT_EQ(pixels["frames_source"].get<std::string>(),
              images["frames_source"].get<std::string>() + ", as 8-bit RGB pixels");
    EXPECT_EQ(pixels["pipelined"]["frames"], 2);
    EXPECT_GT(pixels["pipelined"]["cpu_ms_per_frame"].get<double>(), 0);
}

// --encoded: each frame is decoded from its file's bytes before it is submitted (what fpgacnn-serve does
// per encoded request); a file that does not decode stops the run with its name.
TEST(BenchCli, EncodedFramesAreDecodedBeforeEachSubmit) {
    const std::string dir = scratch_dir("bench_encoded");
    fs::copy_file(darknet_file("data/dog.jpg"), dir + "/dog.jpg", fs::copy_options::overwrite_existing);
    std::string out, err;
    const std::string run = bench(" --device cpu --precision int16 --frames 2 --warmup 0 --json --encoded");
    ASSERT_EQ(run_command(run + " --images " + dir, &out, &err), 0) << err;
    const nlohmann::json j = nlohmann::json::parse(out);
    EXPECT_EQ(j["frames_source"].get<std::string>(),
              dir + " (1 images), each decoded from its file before each submit");
    EXPECT_EQ(j["single_frame"]["frames"], 2);
    EXPECT_EQ(j["pipelined"]["frames"], 2);

    std::ofstream(dir + "/zz-broken.jpg") << "not a JPEG";
    EXPECT_EQ(run_command(run + " --images " + dir, &out, &err), 1);
    EXPECT_NE(err.find("zz-broken.jpg: not a JPEG, PNG"), std::string::npos) << err;
    EXPECT_EQ(run_command(run + " --pixels", &out, &err), 2) << "--encoded and --pixels exclude each other";
}

TEST(BenchCli, CpuFloatRunWritesJsonCsvAndChart) {
    const std::string dir = scratch_dir("bench_float");
    const std::string csv = dir + "/layers.csv";
    const std::string png = dir + "/layers.png";
    std::string out, err;
    const int rc = run_command(
        bench(" --device cpu --precision float --frames 3 --warmup 1 --json --csv " + csv + " --plot " + png),
        &out, &err);
    ASSERT_EQ(rc, 0) << err;
    const nlohmann::json j = nlohmann::json::parse(out);
    for (const char* key : {"tool",           "cfg",           "weights",       "device",    "device_name",
                            "precision",      "input",         "frames_source", "warmup",    "max_in_flight",
                            "device_workers", "gop_per_frame", "single_frame",  "pipelined", "layers",
                            "layer_timing",   "layer_bytes",   "roofline",      "power",     "memory"})
        EXPECT_TRUE(j.contains(key)) << key;
    // Peak RSS: the model, the engine and the frames come on top of the start-up footprint.
    const auto startup_rss = j["memory"]["startup_rss_bytes"].get<std::uint64_t>();
    EXPECT_GT(startup_rss, 1u << 20);
    EXPECT_GT(j["memory"]["peak_rss_bytes"].get<std::uint64_t>(), startup_rss);
    for (const char* mode : {"single_frame", "pipelined"}) {
        const nlohmann::json& m = j[mode];
        EXPECT_EQ(m["frames"], 3);
        EXPECT_GT(m["fps"].get<double>(), 0) << mode;
        EXPECT_GT(m["gops"].get<double>(), 0) << mode;
        for (const char* p : {"mean", "p50", "p90", "p99"})
            EXPECT_GT(m["latency_ms"][p].get<double>(), 0) << mode << p;
        EXPECT_LE(m["latency_ms"]["p50"].get<double>(), m["latency_ms"]["p99"].get<double>());
        for (const char* s : {"pre", "device", "post"}) EXPECT_TRUE(m["stage_ms"].contains(s)) << mode << s;
        EXPECT_GT(m["stage_ms"]["device"].get<double>(), 0);
        EXPECT_GT(m["cpu_ms_per_frame"].get<double>(), 0) << mode;
    }
    EXPECT_EQ(j["precision"], "float");
    EXPECT_GT(j["gop_per_frame"].get<double>(), 0.1);
    double percent = 0;
    for (const nlohmann::json& layer : j["layers"]) {
        for (const char* key : {"index", "type", "output", "macs", "ms", "planner_ms", "gops", "bytes",
                                "ops_per_byte", "percent", "on_device"})
            EXPECT_TRUE(layer.contains(key)) << key;
        percent += layer["percent"].get<double>();
        if (layer["type"] == "convolutional") {
            EXPECT_GT(layer["macs"].get<double>(), 0);
            EXPECT_GT(layer["ms"].get<double>(), 0);
            EXPECT_TRUE(layer["planner_ms"].is_number());
        }
    }
    EXPECT_NEAR(percent, 100.0, 0.5);
    EXPECT_GT(j["roofline"]["peak_gops"].get<double>(), 0);
    EXPECT_GT(j["roofline"]["bandwidth_gbs"].get<double>(), 0);
    const nlohmann::json& power = j["power"];
    if (power["available"].get<bool>()) {
        EXPECT_GT(power["average_watts"].get<double>(), 0);
        EXPECT_GE(power["peak_watts"].get<double>(), power["average_watts"].get<double>() * 0.99);
        EXPECT_GT(power["joules_per_frame"].get<double>(), 0);
        EXPECT_GT(power["gops_per_watt"].get<double>(), 0);
    } else {
        EXPECT_FALSE(power["reason"].get<std::string>().empty());
    }

    // The CSV: a header and one row per layer.
    std::istringstream lines(read_file(csv));
    std::string line;
    int rows = -1;
    while (std::getline(lines, line)) ++rows;
    EXPECT_EQ(rows, static_cast<int>(j["layers"].size()));

    // The chart: a PNG with bars on the left and roofs and dots on the right.
    const cv::Mat image = cv::imread(png, cv::IMREAD_COLOR);
    ASSERT_FALSE(image.empty());
    EXPECT_GE(image.cols, 1000);
    EXPECT_GT(inked_pixels(image, cv::Rect(100, 100, 500, image.rows - 170)), 2000) << "time bars";
    EXPECT_GT(inked_pixels(image, cv::Rect(770, 100, 580, image.rows - 170)), 2000) << "roofline";
    EXPECT_FALSE(fs::exists(csv + ".partial"));
    EXPECT_FALSE(fs::exists(png + ".partial"));
}

TEST(BenchCli, TableOnStdoutAndDeviceTimesOnEmu) {
    std::string out, err;
    // A small input keeps the software kernel (and the int16 calibration before it) quick.
    const int rc = run_command(bench(" --device emu --frames 2 --warmup 0 --json", "128x128"), &out, &err);
    ASSERT_EQ(rc, 0) << err;
    const nlohmann::json j = nlohmann::json::parse(out);
    EXPECT_EQ(j["precision"], "int16");
    int device_layers = 0;
    for (const nlohmann::json& layer : j["layers"]) {
        if (!layer["on_device"].get<bool>()) continue;
        ++device_layers;
        EXPECT_GT(layer["bytes"].get<double>(), 0);
    }
    EXPECT_GT(device_layers, 5);
    // The emu device has no power sensor: the report says so (then why hwmon / powercap failed).
    EXPECT_NE(j["power"]["reason"].get<std::string>().find("reports no power sensor"), std::string::npos)
        << j["power"].dump();

    ASSERT_EQ(run_command(bench(" --device cpu --frames 1 --warmup 0", "128x128"), &out, &err), 0) << err;
    for (const char* text : {"single-frame", "pipelined", "FPS", "p99", "power", "GOP/frame", "planner"})
        EXPECT_NE(out.find(text), std::string::npos) << text << "\n" << out;
}

TEST(BenchCli, GoldenTwinCountsAreReportedAndAFaultIsLocated) {
    std::string out, err;
    // Frames 0, 2, 4 of 6 (2 single-frame, 2 pipelined, 2 warm-up) are verified; layer 0 (a conv of
    // every model here) gets a bit flipped in its first tile, channel 1.
    const std::string run = " --device emu:flip=0/1/0/3 --frames 2 --warmup 2 --verify-every 2 --json";
    ASSERT_EQ(run_command(bench(run, "128x128"), &out, &err), 0) << err;
    const nlohmann::json twin = nlohmann::json::parse(out)["golden_twin"];
    EXPECT_EQ(twin["every"], 2);
    EXPECT_EQ(twin["frames_verified"], 3);
    EXPECT_EQ(twin["mismatches"], 3);
    EXPECT_EQ(twin["fell_back"], false);
    const std::string first = twin["first_mismatch"].get<std::string>();
    EXPECT_NE(first.find("frame 0: layer 0 (convolutional)"), std::string::npos) << first;
    EXPECT_NE(first.find("channel 1, row 0, column 0"), std::string::npos) << first;
    EXPECT_NE(first.find("output tile 0"), std::string::npos) << first;
    EXPECT_NE(err.find("golden twin: frame 0: layer 0"), std::string::npos) << err;

    ASSERT_EQ(run_command(bench(" --device emu --frames 1 --warmup 0", "128x128"), &out, &err), 0) << err;
    EXPECT_NE(out.find("golden twin  off"), std::string::npos) << out;
    EXPECT_NE(run_command(bench(" --device emu --on-mismatch cpu", "128x128"), &out, &err), 0);
    EXPECT_NE(err.find("--on-mismatch"), std::string::npos) << err;
}

TEST(BenchCli, HelpOffersEveryDeviceDriverAndPrecision) {
    std::string out;
    ASSERT_EQ(run_command(app_path("bench", "fpgacnn-bench") + " --help", &out), 0);
    fpgacnn::test::expect_help_lists_devices_and_precisions(out, "fpgacnn-bench");
}

TEST(BenchCli, BadArgumentsExitTwoWithAMessage) {
    const std::string dir = scratch_dir("bench_bad_args");
    struct Case {
        std::string arguments;
        std::string message;
    };
    const Case cases[] = {
        {" --frames 0", "--frames"},
        {" --plot " + dir + "/chart.jpg", ".png"},
        {" --precision float --quantized " + darknet_file("cfg/yolov2.cfg"), "--quantized needs"},
        {" --csv " + dir + "/missing/layers.csv", "does not exist"},
        {" --precision double", "--precision"},
        {" --no-such-flag", "no-such-flag"},
    };
    for (const Case& c : cases) {
        std::string out, err;
        EXPECT_EQ(run_command(bench(c.arguments), &out, &err), 2) << c.arguments;
        EXPECT_NE(err.find(c.message), std::string::npos) << c.arguments << ": " << err;
    }
    EXPECT_TRUE(folder_is_empty(dir));
}

TEST(BenchCli, FailingRunLeavesNoFiles) {
    const std::string dir = scratch_dir("bench_failure");
    const std::string weights = dir + "/truncated.weights";
    std::ofstream(weights) << "not darknet weights";
    const std::string cfg = darknet_file("cfg/yolov2-tiny.cfg");
    std::string out, err;
    const int rc =
        run_command(app_path("bench", "fpgacnn-bench") + " -q --cfg " + cfg + " --weights " + weights +
                        " --frames 1 --csv " + dir + "/layers.csv --plot " + dir + "/chart.png",
                    &out, &err);
    EXPECT_EQ(rc, 1);
    EXPECT_NE(err.find("truncated.weights"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir + "/layers.csv"));
    EXPECT_FALSE(fs::exists(dir + "/chart.png"));
    EXPECT_FALSE(fs::exists(dir + "/chart.png.partial"));
    EXPECT_FALSE(fs::exists(dir + "/layers.csv.partial"));
    // An unknown device fails before any frame, with the valid values.
    EXPECT_EQ(run_command(bench(" --device fpga9 --frames 1"), &out, &err), 1);
    EXPECT_NE(err.find("valid values"), std::string::npos) << err;
}

}  // namespace

// Without --weights the tool fills synthetic weights; a cfg with batch-norm layers must then be folded
// like a loaded model (found when ../shared was absent: every run of yolov2-tiny failed).
TEST(BenchCli, SyntheticWeightsOnABatchNormCfgRun) {
    std::string out, err;
    const int rc =
        run_command(app_path("bench", "fpgacnn-bench") + " --cfg " + darknet_file("cfg/yolov2-tiny.cfg") +
                        " --input 64x64 -q --device cpu --precision float --frames 1 --warmup 0 --json",
                    &out, &err);
    ASSERT_EQ(rc, 0) << err;
    EXPECT_EQ(nlohmann::json::parse(out)["weights"], "synthetic");
}
