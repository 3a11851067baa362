// Float reference engine, the int16 and int8 CPU backend and the emu device vs OpenCV DNN (its own CPU
// backend) on the same darknet models and the same input blob: yolov2, yolov2-tiny, yolov3-tiny and
// yolov3 at 416x416 (synthetic weights, written to a temporary .weights file so both read identical
// parameters) and YOLO-LITE (trained weights, if the shared models folder exists).
//
//   bench_float_vs_opencv [benchmark flags] [--darknet_cfg_dir=DIR] [--shared_dir=DIR]
//
// Defaults: /usr/share/darknet/cfg (Debian package darknet) and $FPGACNN_SHARED_DIR or /work/shared.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include "../runtime/src/core/thread_pool.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/float_engine.hpp"
#include "fpgacnn/network.hpp"

namespace fs = std::filesystem;

namespace {

struct BenchModel {
    std::string name;
    std::string cfg_path;      // what OpenCV reads (input size already patched in)
    std::string weights_path;  // trained, or synthetic written to the scratch folder
    fpgacnn::Network network;  // what the float engine runs
    std::vector<float> input;  // CHW, 0..1
    std::shared_ptr<const fpgacnn::QuantizedNetwork> quantized;   // calibrated on darknet's sample images
    std::shared_ptr<const fpgacnn::QuantizedNetwork> quantized8;  // the same, conv layers at 8 bits
};

fs::path scratch_folder() {
    static const fs::path folder = [] {
        fs::path path = fs::temp_directory_path() / ("fpgacnn-bench-float-" + std::to_string(::getpid()));
        fs::create_directories(path);
        return path;
    }();
    return folder;
}

// OpenCV has no input-size override: copy the cfg with [net] width/height replaced.
std::string cfg_with_input_size(const std::string& cfg_path, int width, int height, const std::string& name) {
    std::ifstream in(cfg_path);
    if (!in) throw std::runtime_error("cannot read " + cfg_path);
    std::ostringstream patched;
    std::string line;
    bool in_net_section = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '[')
            in_net_section = line.rfind("[net]", 0) == 0 || line.rfind("[network]", 0) == 0;
        if (in_net_section && line.rfind("width", 0) == 0) line = "width=" + std::to_string(width);
        if (in_net_section && line.rfind("height", 0) == 0) line = "height=" + std::to_string(height);
        patched << line << '\n';
    }
    const fs::path out_path = scratch_folder() / (name + ".cfg");
    std::ofstream(out_path) << patched.str();
    return out_path.string();
}

std::vector<float> image_like_input(const fpgacnn::TensorShape& shape) {
    std::mt19937 generator(2024);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::vector<float> input(shape.size());
    for (float& v : input) v = pixel(generator);
    return input;
}

std::unique_ptr<BenchModel> prepare(const std::string& name, const std::string& cfg,
                                    const std::string& weights, int side) {
    auto model = std::make_unique<BenchModel>();
    model->name = name;
    const fpgacnn::InputSizeOverride size{side, side};
    model->cfg_path = cfg_with_input_size(cfg, side, side, name);
    model->weights_path = weights;
    if (weights.empty()) {
        fpgacnn::Network synthetic = fpgacnn::load_darknet_cfg(cfg, size);
        fpgacnn::fill_synthetic_weights(synthetic, 42);
        model->weights_path = (scratch_folder() / (name + ".weights")).string();
        fpgacnn::save_darknet_weights(synthetic, model->weights_path);
    }
    model->network = fpgacnn::load_darknet_model(cfg, model->weights_path, size);
    model->input = image_like_input(model->network.input);
    fpgacnn::CalibrationOptions calibration;
    calibration.progress = false;
    const fpgacnn::Calibration statistics(model->network, fpgacnn::default_calibration_images(), calibration);
    model->quantized = std::make_shared<fpgacnn::QuantizedNetwork>(statistics.quantize({}).quantized);
    model->quantized8 = std::make_shared<fpgacnn::QuantizedNetwork>(
        statistics.quantize(fpgacnn::uniform_conv_widths(model->network, 8)).quantized);
    return model;
}

void set_gops_counter(benchmark::State& state, const fpgacnn::Network& network) {
    state.SetItemsProcessed(state.iterations());
    state.counters["GOP/s"] = benchmark::Counter(
        2.0 * static_cast<double>(network.conv_macs()) * 1e-9 * static_cast<double>(state.iterations()),
        benchmark::Counter::kIsRate);
    // fpgacnn's CPU backends run on the one thread pool (OpenBLAS single-threaded on its threads).
    state.counters["threads"] = static_cast<double>(fpgacnn::ThreadPool::shared().size());
}

void bench_float_engine(benchmark::State& state, const BenchModel* model) {
    fpgacnn::FloatEngine engine(model->network);
    engine.run(model->input.data());  // first touch of the buffers
    for (auto _ : state) {
        benchmark::DoNotOptimize(engine.run(model->input.data()).data());
    }
    set_gops_counter(state, model->network);
}

// The fixed-point paths through the detector's Backend: input quantization, the layers, and the region
// layer dequantized and activated, i.e. everything between letterbox and decode. `int8`: every conv
// layer at 8 bits (the VNNI vpdpbusd path where the CPU has it).
void bench_backend(benchmark::State& state, const BenchModel* model, const char* device, bool int8) {
    fpgacnn::BackendOptions options;
    options.device = device;
    options.precision = int8 ? fpgacnn::Precision::Int8 : fpgacnn::Precision::Int16;
    options.quantized = int8 ? model->quantized8 : model->quantized;
    const auto backend = fpgacnn::make_backend(model->network, options);
    backend->run(model->input.data());
    for (auto _ : state) {
        benchmark::DoNotOptimize(backend->run(model->input.data()).data());
    }
    set_gops_counter(state, model->network);
}

void bench_opencv_dnn(benchmark::State& state, const BenchModel* model) {
    cv::setNumThreads(cv::getNumberOfCPUs());
    cv::dnn::Net net = cv::dnn::readNetFromDarknet(model->cfg_path, model->weights_path);
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    const fpgacnn::TensorShape& shape = model->network.input;
    const int dims[] = {1, shape.c, shape.h, shape.w};
    const cv::Mat blob(4, dims, CV_32F, const_cast<float*>(model->input.data()));
    net.setInput(blob);
    net.forward();  // OpenCV allocates and fuses layers on the first forward
    for (auto _ : state) {
        net.setInput(blob);
        cv::Mat output = net.forward();
        benchmark::DoNotOptimize(output.data);
    }
    set_gops_counter(state, model->network);
    state.counters["threads"] = static_cast<double>(cv::getNumThreads());
}

std::string flag_value(int& argc, char** argv, const std::string& flag, const std::string& fallback) {
    const std::string prefix = "--" + flag + "=";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind(prefix, 0) != 0) continue;
        for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
        --argc;
        return arg.substr(prefix.size());
    }
    return fallback;
}

}  // namespace

int main(int argc, char** argv) {
    const char* shared_env = std::getenv("FPGACNN_SHARED_DIR");
    const fs::path cfg_dir = flag_value(argc, argv, "darknet_cfg_dir", "/usr/share/darknet/cfg");
    const fs::path shared_dir =
        flag_value(argc, argv, "shared_dir", shared_env ? shared_env : "/work/shared");
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

    std::vector<std::unique_ptr<BenchModel>> models;
    try {
        models.push_back(prepare("yolov2-416", (cfg_dir / "yolov2.cfg").string(), "", 416));
        models.push_back(prepare("yolov2-tiny-416", (cfg_dir / "yolov2-tiny.cfg").string(), "", 416));
        models.push_back(prepare("yolov3-tiny-416", (cfg_dir / "yolov3-tiny.cfg").string(), "", 416));
        models.push_back(prepare("yolov3-416", (cfg_dir / "yolov3.cfg").string(), "", 416));
        const fs::path lite = shared_dir / "models" / "yolo-lite-voc";
        if (fs::exists(lite / "tiny-yolov2-trial3-noBatch.weights")) {
            models.push_back(prepare("yolo-lite-voc-224", (lite / "tiny-yolov2-trial3-noBatch.cfg").string(),
                                     (lite / "tiny-yolov2-trial3-noBatch.weights").string(), 224));
        } else {
            std::cerr << "note: " << lite.string() << " not found, skipping YOLO-LITE\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "cannot prepare the benchmark models: " << e.what() << '\n';
        return 1;
    }
    for (const auto& model : models) {
        benchmark::RegisterBenchmark(("float_engine/" + model->name).c_str(), bench_float_engine, model.get())
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("opencv_dnn/" + model->name).c_str(), bench_opencv_dnn, model.get())
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("int16_cpu/" + model->name).c_str(), bench_backend, model.get(), "cpu",
                                     false)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("int8_cpu/" + model->name).c_str(), bench_backend, model.get(), "cpu",
                                     true)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        // The emu device runs the FPGA kernel's C++ (a functional model, not a performance one).
        benchmark::RegisterBenchmark(("int16_emu/" + model->name).c_str(), bench_backend, model.get(), "emu",
                                     false)
            ->Unit(benchmark::kMillisecond)
            ->Iterations(2)
            ->UseRealTime();
    }
    benchmark::AddCustomContext("hardware_threads", std::to_string(std::thread::hardware_concurrency()));
    benchmark::AddCustomContext("fpgacnn_pool_threads", std::to_string(fpgacnn::ThreadPool::shared().size()));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    std::error_code ignored;
    fs::remove_all(scratch_folder(), ignored);
    return 0;
}
