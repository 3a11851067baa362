// A model of the repository served by its pool of real Detectors (YOLO-LITE on the CPU and the emu
// device): the answers are the Detector's own, per-request thresholds apply to that request only,
// a failing device takes its instance out of rotation and its request completes on another, and
// deadlines and malformed inputs fail with their kind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "load_or_calibrate.hpp"
#include "model_pool.hpp"
#include "repository_core.hpp"
#include "serve_test_repository.hpp"
#include "test_paths.hpp"

namespace fpgacnn::serve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::uint8_t> file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ModelConfig yolo_lite(const std::vector<std::string>& devices, int instances) {
    ModelConfig config;
    config.name = "yolo-lite";
    config.folder = test::shared_model_file("yolo-lite-voc", "");
    config.cfg = test::shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg");
    config.weights = test::shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights");
    config.names = test::shared_model_file("yolo-lite-voc", "voc.names");
    config.devices = devices;
    config.precision = Precision::Int16;
    config.instances = instances;
    config.thresh = 0.25f;
    return config;
}

InferenceRequest encoded_request(const std::string& image_file, const std::string& id) {
    InferenceRequest request;
    request.model = "yolo-lite";
    request.id = id;
    request.image.form = ImageInput::Form::Encoded;
    const std::vector<std::uint8_t> file = file_bytes(image_file);
    request.image.hold(std::string(file.begin(), file.end()));
    return request;
}

/// The same model as a plain Detector, as fpgacnn-detect runs it.
std::vector<Detection> detector_answer(const ModelConfig& config, const Image& image, float thresh) {
    Network network = apps::load_model_files(config.cfg, config.weights);
    DetectorOptions options;
    options.backend = apps::resolve_backend_options(network, "cpu", Precision::Int16, "", false);
    options.thresh = thresh;
    options.nms = config.nms;
    Detector detector(network, load_class_names(config.names), options);
    return detector.detect(image).detections;
}

void expect_answer(const InferenceResponse& got, const std::vector<Detection>& expected,
                   const std::string& what) {
    ASSERT_EQ(got.scores.size(), expected.size()) << what;
    ASSERT_EQ(got.boxes.size(), 4 * expected.size()) << what;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const Detection& d = expected[i];
        EXPECT_EQ(got.boxes[4 * i], static_cast<float>(d.left)) << what << " " << i;
        EXPECT_EQ(got.boxes[4 * i + 1], static_cast<float>(d.top)) << what << " " << i;
        EXPECT_EQ(got.boxes[4 * i + 2], static_cast<float>(d.right)) << what << " " << i;
        EXPECT_EQ(got.boxes[4 * i + 3], static_cast<float>(d.bottom)) << what << " " << i;
        EXPECT_EQ(got.scores[i], d.prob) << what << " " << i;
        EXPECT_EQ(got.classes[i], d.class_id) << what << " " << i;
        EXPECT_EQ(got.labels[i], d.class_name) << what << " " << i;
    }
}

TEST(ModelPool, AnswersAreTheDetectorsForBothInputForms) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const ModelConfig config = yolo_lite({"cpu"}, 1);
    ModelPool pool(config, PoolOptions{});
    const std::string dog = test::darknet_file("data/dog.jpg");
    const InferenceResponse encoded = pool.infer(encoded_request(dog, "a"));
    EXPECT_EQ(encoded.id, "a");
    EXPECT_EQ(encoded.outputs, (std::vector<std::string>{"boxes", "scores", "classes", "labels"}));
    const std::vector<Detection> expected = detector_answer(config, load_image(dog), config.thresh);
    EXPECT_FALSE(expected.empty());
    expect_answer(encoded, expected, "encoded dog.jpg");

    // RGB pixels: what a client that decoded the file itself sends.
    const cv::Mat bgr = cv::imread(dog, cv::IMREAD_COLOR);
    InferenceRequest pixels;
    pixels.model = "yolo-lite";
    pixels.id = "b";
    pixels.image.form = ImageInput::Form::RgbPixels;
    pixels.image.height = bgr.rows;
    pixels.image.width = bgr.cols;
    std::string rgb;
    for (int y = 0; y < bgr.rows; ++y)
        for (int x = 0; x < bgr.cols; ++x) {
            const cv::Vec3b p = bgr.at<cv::Vec3b>(y, x);
            rgb += {static_cast<char>(p[2]), static_cast<char>(p[1]), static_cast<char>(p[0])};
        }
    pixels.image.hold(std::move(rgb));
    expect_answer(pool.infer(pixels), detector_answer(config, image_from_bgr(bgr), config.thresh),
                  "RGB pixels");
}

// YOLOv3-tiny (two [yolo] heads; Debian's cfg with synthetic weights, so the labels mean nothing) served
// at int16 on the emu device: the answers are the CPU Detector's (emu == CPU bit for bit), boxes from
// both heads' decode and one NMS over them. Needs no shared/models.
TEST(ModelPool, Yolov3TinyOnTheEmuDeviceAnswersAsTheCpuDetector) {
    const fs::path folder = test::scratch_dir("serve_yolov3_tiny");
    ModelConfig config;
    config.name = "yolov3-tiny";
    config.folder = folder.string();
    config.cfg = test::darknet_file("cfg/yolov3-tiny.cfg");
    config.weights = (folder / "yolov3-tiny-synthetic.weights").string();
    config.names = test::darknet_file("data/coco.names");
    Network network = load_darknet_cfg(config.cfg);
    fill_synthetic_weights(network, 2024);
    save_darknet_weights(network, config.weights);
    config.devices = {"emu"};
    config.precision = Precision::Int16;
    config.instances = 1;
    config.thresh = 0.6f;
    ModelPool pool(config, PoolOptions{});
    for (const char* image : {"data/dog.jpg", "data/person.jpg"}) {
        InferenceRequest request = encoded_request(test::darknet_file(image), image);
        request.model = config.name;
        const std::vector<Detection> expected =
            detector_answer(config, load_image(test::darknet_file(image)), config.thresh);
        EXPECT_FALSE(expected.empty()) << image;
        expect_answer(pool.infer(std::move(request)), expected, image);
    }
}

TEST(ModelPool, RequestThresholdsApplyToThatRequestOnly) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const ModelConfig config = yolo_lite({"cpu"}, 1);
    ModelPool pool(config, PoolOptions{});
    const std::string image = test::darknet_file("data/person.jpg");
    InferenceRequest loose = encoded_request(image, "loose");
    loose.thresh = 0.1f;
    expect_answer(pool.infer(loose), detector_answer(config, load_image(image), 0.1f), "thresh 0.1");
    expect_answer(pool.infer(encoded_request(image, "default")),
                  detector_answer(config, load_image(image), 0.25f), "the model's thresh");
}

TEST(ModelPool, AFailingDeviceLeavesRotationAndItsRequestCompletesElsewhere) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    // Instance 0 on an emu device that fails after 30 commands (two or three frames), instance 1 on the CPU.
    const ModelConfig config = yolo_lite({"emu:fail-after=30", "cpu"}, 2);
    ModelPool pool(config, PoolOptions{});
    ASSERT_TRUE(pool.ready());
    const std::string dog = test::darknet_file("data/dog.jpg");
    const std::vector<Detection> expected = detector_answer(config, load_image(dog), config.thresh);
    for (int i = 0; i < 8; ++i)
        expect_answer(pool.infer(encoded_request(dog, std::to_string(i))), expected,
                      "request " + std::to_string(i));
    const PoolStats stats = pool.stats();
    ASSERT_EQ(stats.instances.size(), 2u);
    EXPECT_FALSE(stats.instances[0].in_rotation) << "the emu instance failed and must be out of rotation";
    EXPECT_TRUE(stats.instances[1].in_rotation);
    EXPECT_EQ(stats.retried, 1u) << "only the request that met the failure is retried";
    EXPECT_EQ(stats.failures, 0u);
    EXPECT_EQ(stats.requests, 8u);
    EXPECT_TRUE(pool.ready()) << "one instance is still in rotation";
}

TEST(ModelPool, WithoutAnotherInstanceTheFailureIsUnavailable) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    ModelPool pool(yolo_lite({"emu:fail-after=0"}, 1), PoolOptions{});
    try {
        pool.infer(encoded_request(test::darknet_file("data/dog.jpg"), "x"));
        FAIL() << "the device fails at once";
    } catch (const ServeError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
        EXPECT_THAT(e.what(), HasSubstr("injected failure"));
    }
    EXPECT_FALSE(pool.ready());
}

TEST(ModelPool, MalformedInputsAndPassedDeadlinesFailWithTheirKind) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    ModelPool pool(yolo_lite({"cpu"}, 1), PoolOptions{});
    const auto kind_of = [&](InferenceRequest request) {
        try {
            pool.infer(request);
        } catch (const ServeError& e) {
            return e.kind();
        }
        return ErrorKind::Internal;  // answered: not what these requests expect
    };
    InferenceRequest garbage = encoded_request(test::darknet_file("data/dog.jpg"), "g");
    garbage.image.hold(std::string(100, '\x07'));
    EXPECT_EQ(kind_of(garbage), ErrorKind::InvalidArgument);
    InferenceRequest short_pixels;
    short_pixels.image.form = ImageInput::Form::RgbPixels;
    short_pixels.image.height = 4;
    short_pixels.image.width = 4;
    short_pixels.image.hold(std::string(47, '\0'));
    EXPECT_EQ(kind_of(short_pixels), ErrorKind::InvalidArgument);
    InferenceRequest bad_thresh = encoded_request(test::darknet_file("data/dog.jpg"), "t");
    bad_thresh.thresh = 1.5f;
    EXPECT_EQ(kind_of(bad_thresh), ErrorKind::InvalidArgument);
    InferenceRequest bad_output = encoded_request(test::darknet_file("data/dog.jpg"), "o");
    bad_output.requested_outputs = {"masks"};
    EXPECT_EQ(kind_of(bad_output), ErrorKind::InvalidArgument);
    InferenceRequest late = encoded_request(test::darknet_file("data/dog.jpg"), "late");
    late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    EXPECT_EQ(kind_of(late), ErrorKind::DeadlineExceeded);
    const PoolStats stats = pool.stats();
    EXPECT_EQ(stats.failures, 5u);
    EXPECT_EQ(stats.queue_depth, 0);
}

TEST(RepositoryCore, ServesTheRepositoryAndReportsMetrics) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const fs::path root = yolo_lite_repository("serve_core");
    fs::create_directories(root / "broken");
    std::ofstream(root / "broken" / "model.json") << "{";
    RepositoryCore core(root.string(), PoolOptions{}, test::scratch_dir("serve_core_no_power"));
    EXPECT_EQ(core.model_names(), std::vector<std::string>{"yolo-lite"});
    ASSERT_EQ(core.problems().size(), 1u);
    EXPECT_THAT(core.problems()[0], HasSubstr("broken"));
    EXPECT_TRUE(core.live());
    EXPECT_TRUE(core.ready());
    EXPECT_TRUE(core.model_ready("yolo-lite", ""));
    EXPECT_EQ(core.model_metadata("yolo-lite", "1").outputs.size(), 4u);
    try {
        core.model_metadata("nope", "");
        FAIL();
    } catch (const ServeError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    }
    InferenceRequest request = encoded_request(test::darknet_file("data/dog.jpg"), "m");
    EXPECT_FALSE(core.infer(request).scores.empty());
    const std::string metrics = core.metrics_text();
    EXPECT_THAT(metrics, HasSubstr("fpgacnn_requests_total{model=\"yolo-lite\"} 1\n"));
    EXPECT_THAT(metrics, HasSubstr("fpgacnn_queue_depth{model=\"yolo-lite\"} 0\n"));
    EXPECT_THAT(metrics, HasSubstr("fpgacnn_request_duration_seconds_count{model=\"yolo-lite\"} 1\n"));
    EXPECT_THAT(metrics, HasSubstr("# TYPE fpgacnn_request_duration_seconds histogram"));
    // The process's CPU so far: loading the model and one inference take well above 10 ms.
    const std::size_t cpu_at = metrics.find("\nprocess_cpu_seconds_total ");
    ASSERT_NE(cpu_at, std::string::npos) << metrics;
    EXPECT_GT(std::stod(metrics.substr(cpu_at + std::string("\nprocess_cpu_seconds_total ").size())), 0.01);
    EXPECT_THAT(
        metrics,
        HasSubstr("fpgacnn_instance_in_rotation{model=\"yolo-lite\",instance=\"0\",device=\"cpu\"} 1"));
    // No power sensor under the (empty) power root: said in a comment, no power metric.
    EXPECT_THAT(metrics, HasSubstr("# fpgacnn power metrics unavailable: "));
    EXPECT_THAT(metrics, Not(HasSubstr("fpgacnn_power_watts")));
    core.begin_shutdown();
    EXPECT_FALSE(core.live());
    EXPECT_FALSE(core.ready());
    try {
        core.infer(request);
        FAIL();
    } catch (const ServeError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    }
}

TEST(RepositoryCore, PowerMetricsComeFromTheHostsSensors) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const fs::path repository = yolo_lite_repository("serve_power");
    const fs::path power_root = test::scratch_dir("serve_power_sysfs");
    fs::remove_all(power_root);
    fs::create_directories(power_root / "sys/class/hwmon/hwmon0");
    std::ofstream(power_root / "sys/class/hwmon/hwmon0/name") << "ina260\n";
    std::ofstream(power_root / "sys/class/hwmon/hwmon0/power1_input") << "2000000\n";  // 2 W
    RepositoryCore core(repository.string(), PoolOptions{}, power_root.string());
    EXPECT_FALSE(core.infer(encoded_request(test::darknet_file("data/dog.jpg"), "p")).scores.empty());
    // The sampler reads once a second; wait (bounded) for its second sample.
    std::string metrics = core.metrics_text();
    for (int i = 0; i < 50 && metrics.find("fpgacnn_power_watts") == std::string::npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        metrics = core.metrics_text();
    }
    EXPECT_THAT(metrics, HasSubstr("fpgacnn_power_source_info{source=\"hwmon: "));
    EXPECT_THAT(metrics, HasSubstr("fpgacnn_power_watts 2\n"));
    EXPECT_THAT(metrics, HasSubstr("# TYPE fpgacnn_energy_joules_total counter"));
    EXPECT_THAT(metrics, HasSubstr("fpgacnn_energy_per_frame_joules "));
}

}  // namespace
}  // namespace fpgacnn::serve
