// fpgacnn-detect end to end, as a user runs it: output formats, files written, and error handling.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "device_help_check.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using fpgacnn::test::app_path;
using fpgacnn::test::darknet_file;
using fpgacnn::test::expect_help_lists_devices_and_precisions;
using fpgacnn::test::run_command;
using fpgacnn::test::scratch_dir;
using fpgacnn::test::shared_model_file;

namespace {

struct Model {
    std::string cfg;
    std::string weights;
    std::string names;
    bool trained = false;
};

// YOLO-LITE VOC when shared/ is present; otherwise yolov2-tiny with synthetic weights, so the CLI is
// still exercised end to end on machines without the trained models.
const Model& test_model() {
    static const Model model = [] {
        Model m;
        const std::string cfg = shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg");
        if (!cfg.empty() && fs::exists(cfg)) {
            m.cfg = cfg;
            m.weights = shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights");
            m.names = shared_model_file("yolo-lite-voc", "voc.names");
            m.trained = true;
            return m;
        }
        const std::string dir = scratch_dir("detect_cli_model");
        m.cfg = darknet_file("cfg/yolov2-tiny.cfg");
        m.weights = dir + "/synthetic.weights";
        m.names = darknet_file("data/coco.names");
        std::string out;
        const int rc = run_command(app_path("synth-weights", "fpgacnn-synth-weights") + " --cfg " + m.cfg +
                                       " --input 224x224 --seed 7 --out " + m.weights,
                                   &out);
        EXPECT_EQ(rc, 0);
        return m;
    }();
    return model;
}

std::string detect_command(const std::string& arguments) {
    const Model& m = test_model();
    std::string command = app_path("detect", "fpgacnn-detect") + " --cfg " + m.cfg + " --weights " +
                          m.weights + " --names " + m.names + " -q";
    if (!m.trained) command += " --input 224x224";
    return command + " " + arguments;
}

std::vector<nlohmann::json> parse_json_lines(const std::string& text) {
    std::vector<nlohmann::json> objects;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.empty()) objects.push_back(nlohmann::json::parse(line));
    }
    return objects;
}

std::vector<std::string> leftover_partial_files(const std::string& dir) {
    std::vector<std::string> partial;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (entry.path().string().find(".partial") != std::string::npos) partial.push_back(entry.path());
    }
    return partial;
}

}  // namespace

TEST(DetectCli, JsonHasOneObjectPerImageWithTheDocumentedFields) {
    std::string out;
    ASSERT_EQ(run_command(detect_command("--json --thresh 0.25 " + darknet_file("data/dog.jpg") + " " +
                                         darknet_file("data/person.jpg")),
                          &out),
              0);
    const auto objects = parse_json_lines(out);
    ASSERT_EQ(objects.size(), 2u);
    EXPECT_EQ(objects[0]["image"], darknet_file("data/dog.jpg"));
    EXPECT_EQ(objects[0]["width"], 768);
    EXPECT_EQ(objects[0]["height"], 576);
    EXPECT_EQ(objects[1]["width"], 640);
    EXPECT_GT(objects[0]["ms"].get<double>(), 0.0);
    for (const auto& object : objects) {
        for (const auto& d : object["detections"]) {
            EXPECT_GE(d["prob"].get<double>(), 0.25);
            EXPECT_LE(d["left"].get<int>(), d["right"].get<int>());
            EXPECT_LE(d["top"].get<int>(), d["bottom"].get<int>());
            EXPECT_TRUE(d.contains("class") && d.contains("class_id"));
        }
    }
    if (test_model().trained) {
        // darknet's own detections for YOLO-LITE VOC on dog.jpg (shared/models/yolo-lite-voc/SOURCE.md).
        std::multiset<std::string> classes;
        for (const auto& d : objects[0]["detections"]) classes.insert(d["class"].get<std::string>());
        EXPECT_EQ(classes, (std::multiset<std::string>{"dog", "car", "car", "bicycle"}));
    }
}

TEST(DetectCli, OutputFolderGetsAnnotatedImagesAndNoPartialFiles) {
    const std::string dir = scratch_dir("detect_cli_output");
    std::string out;
    ASSERT_EQ(run_command(detect_command("--output " + dir + " " + darknet_file("data/dog.jpg")), &out), 0);
    const cv::Mat annotated = cv::imread(dir + "/dog.jpg");
    ASSERT_FALSE(annotated.empty());
    EXPECT_EQ(annotated.cols, 768);
    EXPECT_EQ(annotated.rows, 576);
    const cv::Mat original = cv::imread(darknet_file("data/dog.jpg"));
    if (test_model().trained) {
        EXPECT_GT(cv::norm(annotated, original, cv::NORM_L1), 0.0) << "boxes drawn";
    }
    EXPECT_TRUE(leftover_partial_files(dir).empty());
}

TEST(DetectCli, DumpsHaveDarknetSizes) {
    const std::string dir = scratch_dir("detect_cli_dumps");
    std::string out;
    ASSERT_EQ(run_command(detect_command("--dump-region " + dir + "/region.bin --dump-layers " + dir +
                                         "/layers " + darknet_file("data/dog.jpg")),
                          &out),
              0);
    // 7x7 grid x 5 anchors x (20 classes + 5) for YOLO-LITE; 7x7x5x85 for yolov2-tiny at 224.
    const std::uintmax_t region_floats = test_model().trained ? 7 * 7 * 125 : 7 * 7 * 425;
    EXPECT_EQ(fs::file_size(dir + "/region.bin"), region_floats * 4);
    EXPECT_TRUE(fs::exists(dir + "/layers/layer_00.bin"));
    // The last layer dump is the region buffer itself.
    std::size_t layer_files = 0;
    for (const auto& entry : fs::directory_iterator(dir + "/layers")) {
        (void)entry;
        ++layer_files;
    }
    const std::string last =
        dir + "/layers/layer_" + (layer_files - 1 < 10 ? "0" : "") + std::to_string(layer_files - 1) + ".bin";
    EXPECT_EQ(fs::file_size(last), region_floats * 4);
}

TEST(DetectCli, FolderInputRunsEveryImageAndReportsTheBrokenOne) {
    const std::string dir = scratch_dir("detect_cli_folder");
    fs::copy_file(darknet_file("data/dog.jpg"), dir + "/a.jpg");
    fs::copy_file(darknet_file("data/person.jpg"), dir + "/b.jpg");
    std::ofstream(dir + "/c.jpg") << "this is not a jpeg";
    std::ofstream(dir + "/notes.txt") << "ignored: not an image";
    std::string out, err;
    EXPECT_EQ(run_command(detect_command("--json " + dir), &out, &err), 1);
    EXPECT_EQ(parse_json_lines(out).size(), 2u);
    EXPECT_NE(err.find("c.jpg"), std::string::npos) << err;
}

TEST(DetectCli, VideoFramesAreDetectedAndAnnotatedVideoWritten) {
    const std::string dir = scratch_dir("detect_cli_video");
    const std::string video = dir + "/clip.avi";
    {
        const cv::Mat frame = cv::imread(darknet_file("data/dog.jpg"));
        cv::VideoWriter writer(video, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 5.0, frame.size());
        ASSERT_TRUE(writer.isOpened());
        for (int i = 0; i < 3; ++i) writer.write(frame);
    }
    std::string out;
    ASSERT_EQ(run_command(detect_command("--json --output " + dir + "/out " + video), &out), 0);
    const auto objects = parse_json_lines(out);
    ASSERT_EQ(objects.size(), 3u);
    EXPECT_EQ(objects[2]["image"], video + "#2");
    cv::VideoCapture annotated(dir + "/out/clip.annotated.avi");
    EXPECT_TRUE(annotated.isOpened());
    EXPECT_TRUE(leftover_partial_files(dir).empty());
}

// A frame OpenCV throws on (a damaged file) fails the run naming the frame, after the frames before it
// were reported, and leaves no annotated video: it is not taken for the end of a shorter video.
TEST(DetectCli, VideoFrameThatFailsToDecodeIsAnErrorNamingTheFrame) {
    const std::string dir = scratch_dir("detect_cli_video_error");
    const std::string video = dir + "/clip.avi";
    std::ofstream(video) << "the plugin below ignores the file's bytes";
    const std::string failing_plugin =
        std::string("FPGACNN_MEDIA_PLUGIN_DIR=") + FAILING_VIDEO_PLUGIN_DIR + " ";
    std::string out, err;
    EXPECT_EQ(
        run_command(failing_plugin + detect_command("--json --output " + dir + "/out " + video), &out, &err),
        1);
    EXPECT_EQ(parse_json_lines(out).size(), 2u) << out;
    EXPECT_NE(err.find(video + "#2"), std::string::npos) << err;
    EXPECT_NE(err.find("injected decoder failure"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir + "/out/clip.annotated.avi"));
    EXPECT_TRUE(leftover_partial_files(dir).empty());
}

// OpenCV's imgcodecs and videoio come from plugins loaded on first use (runtime/src/media): the
// program does not load them at start, JPEG input needs neither, and a missing plugin is an error that
// says where it was looked for and leaves no output file.
TEST(DetectCli, LoadsNoOpenCvCodecsAtStart) {
    std::string out;
    ASSERT_EQ(run_command("LD_TRACE_LOADED_OBJECTS=1 " + app_path("detect", "fpgacnn-detect"), &out), 0);
    EXPECT_NE(out.find("libfpgacnn.so"), std::string::npos) << out;
    EXPECT_NE(out.find("libopencv_core"), std::string::npos) << out;
    EXPECT_EQ(out.find("libopencv_imgcodecs"), std::string::npos) << out;
    EXPECT_EQ(out.find("libopencv_videoio"), std::string::npos) << out;
}

TEST(DetectCli, MissingMediaPluginIsAClearErrorAndJpegNeedsNone) {
    const std::string dir = scratch_dir("detect_cli_no_plugin");
    const std::string empty = dir + "/no-plugins";
    fs::create_directories(empty);
    const std::string png = dir + "/dog.png";
    ASSERT_TRUE(cv::imwrite(png, cv::imread(darknet_file("data/dog.jpg"))));
    const std::string without_plugins = "FPGACNN_MEDIA_PLUGIN_DIR=" + empty + " ";
    std::string out, err;
    EXPECT_EQ(
        run_command(without_plugins + detect_command("--json " + darknet_file("data/dog.jpg")), &out, &err),
        0)
        << err;
    EXPECT_EQ(parse_json_lines(out).size(), 1u);

    EXPECT_EQ(run_command(without_plugins + detect_command("--json " + png), &out, &err), 1);
    EXPECT_NE(err.find("dog.png"), std::string::npos) << err;
    EXPECT_NE(err.find("image codecs plugin"), std::string::npos) << err;
    EXPECT_NE(err.find(empty + "/opencv_image_codecs.so: not there"), std::string::npos) << err;
    EXPECT_NE(err.find("FPGACNN_MEDIA_PLUGIN_DIR"), std::string::npos) << err;

    // Annotated output needs the encoder: refused, nothing written.
    const std::string annotated = dir + "/out";
    EXPECT_EQ(run_command(without_plugins +
                              detect_command("--output " + annotated + " " + darknet_file("data/dog.jpg")),
                          &out, &err),
              1);
    EXPECT_NE(err.find("image codecs plugin"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(annotated + "/dog.jpg"));
    EXPECT_TRUE(leftover_partial_files(dir).empty());
}

TEST(DetectCli, BadInputsGiveClearErrorsAndExitCodes) {
    std::string out, err;
    EXPECT_EQ(run_command(detect_command("/no/such/image.jpg"), &out, &err), 1);
    EXPECT_NE(err.find("/no/such/image.jpg"), std::string::npos) << err;

    const std::string dir = scratch_dir("detect_cli_errors");
    std::ofstream(dir + "/broken.cfg") << "[net]\nwidth=224\nheight=224\n[convolutional]\nfilters=0\n";
    EXPECT_EQ(run_command(app_path("detect", "fpgacnn-detect") + " --cfg " + dir + "/broken.cfg --weights " +
                              test_model().weights + " " + darknet_file("data/dog.jpg"),
                          &out, &err),
              1);
    EXPECT_NE(err.find("broken.cfg:"), std::string::npos) << err;

    {
        std::ifstream full(test_model().weights, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(full)), std::istreambuf_iterator<char>());
        std::ofstream(dir + "/truncated.weights", std::ios::binary).write(bytes.data(), 1000);
    }
    std::string model_args = " --cfg " + test_model().cfg + (test_model().trained ? "" : " --input 224x224");
    EXPECT_EQ(run_command(app_path("detect", "fpgacnn-detect") + model_args + " --weights " + dir +
                              "/truncated.weights " + darknet_file("data/dog.jpg"),
                          &out, &err),
              1);
    EXPECT_NE(err.find("truncated.weights"), std::string::npos) << err;
    EXPECT_NE(err.find("expected"), std::string::npos) << err;

    EXPECT_EQ(run_command(detect_command("--dump-region " + dir + "/r.bin " + darknet_file("data/dog.jpg") +
                                         " " + darknet_file("data/person.jpg")),
                          &out, &err),
              2);  // a command-line contradiction: one dump, several images
    EXPECT_FALSE(fs::exists(dir + "/r.bin"));

    EXPECT_EQ(run_command(detect_command("--no-such-flag x.jpg"), &out, &err), 2);
    EXPECT_EQ(run_command(app_path("detect", "fpgacnn-detect") + " --help", &out, &err), 0);
    EXPECT_NE(out.find("--dump-layers"), std::string::npos);
    expect_help_lists_devices_and_precisions(out, "fpgacnn-detect");
}

namespace {

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

// The product's promise: switching --device does not change the results. The emu device runs the FPGA
// kernel's C++; the CPU int16 backend is independent code; every layer must agree bit for bit.
TEST(DetectCli, EmuDeviceEqualsCpuInt16LayerByLayer) {
    const std::string dir = scratch_dir("detect_cli_emu");
    std::string cpu_json, emu_json;
    ASSERT_EQ(
        run_command(detect_command("--json --thresh 0.25 --device cpu --precision int16 --dump-layers " +
                                   dir + "/cpu " + darknet_file("data/dog.jpg")),
                    &cpu_json),
        0);
    ASSERT_EQ(run_command(detect_command("--json --thresh 0.25 --device emu --dump-layers " + dir + "/emu " +
                                         darknet_file("data/dog.jpg")),
                          &emu_json),
              0);
    std::size_t compared = 0;
    for (const auto& entry : fs::directory_iterator(dir + "/cpu")) {
        const fs::path twin = fs::path(dir) / "emu" / entry.path().filename();
        ASSERT_TRUE(fs::exists(twin)) << twin;
        EXPECT_EQ(read_bytes(entry.path()), read_bytes(twin)) << entry.path().filename();
        ++compared;
    }
    EXPECT_GE(compared, 9u);
    auto detections = [](const std::string& json) { return parse_json_lines(json).at(0)["detections"]; };
    EXPECT_EQ(detections(cpu_json), detections(emu_json));
    if (test_model().trained) {
        EXPECT_EQ(detections(emu_json).size(), 4u);  // dog, car, car, bicycle
    }
}

TEST(DetectCli, ImpossibleDevicePrecisionPairsAreRefused) {
    std::string out, err;
    EXPECT_EQ(run_command(detect_command("--device emu --precision float " + darknet_file("data/dog.jpg")),
                          &out, &err),
              1);
    EXPECT_NE(err.find("int16"), std::string::npos) << err;
    EXPECT_EQ(run_command(detect_command("--device fpga9 " + darknet_file("data/dog.jpg")), &out, &err), 1);
    EXPECT_NE(err.find("valid values"), std::string::npos) << err;
}
