// One darknet training step of the float trainer (runtime/src/train: forward in training mode,
// backward, SGD) against the inference FloatEngine's forward on the same network, per image:
// yolov2-tiny-voc (Debian's darknet cfg, synthetic weights) at 416x416 and 224x224, batch 2.
//
//   bench_float_training [benchmark flags] [--darknet_cfg_dir=DIR]   (default /usr/share/darknet/cfg)
#include <benchmark/benchmark.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/float_engine.hpp"
#include "model/cfg_parser.hpp"
#include "train/float_trainer.hpp"
#include "train/region_loss.hpp"

namespace {

std::string g_cfg_dir = "/usr/share/darknet/cfg";
constexpr int kBatch = 2;

/// The cfg's text with [net]'s batch and subdivisions set to one pass of kBatch images.
std::string cfg_text_with_batch(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read " + path +
                                 " (install Debian's darknet or pass --darknet_cfg_dir)");
    std::ostringstream out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("batch=", 0) == 0) line = "batch=" + std::to_string(kBatch);
        if (line.rfind("subdivisions=", 0) == 0) line = "subdivisions=1";
        out << line << '\n';
    }
    return out.str();
}

fpgacnn::Network synthetic_network(const std::string& text, int size) {
    fpgacnn::Network network =
        fpgacnn::parse_darknet_cfg(text, "yolov2-tiny-voc.cfg", fpgacnn::InputSizeOverride{size, size});
    fpgacnn::fill_synthetic_weights(network, 1);
    return network;
}

std::vector<float> random_input(std::size_t count) {
    std::mt19937 random(1);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::vector<float> input(count);
    for (float& v : input) v = pixel(random);
    return input;
}

void BM_TrainStep(benchmark::State& state) {
    const int size = static_cast<int>(state.range(0));
    const std::string text = cfg_text_with_batch(g_cfg_dir + "/yolov2-tiny-voc.cfg");
    fpgacnn::train::FloatTrainer trainer(
        synthetic_network(text, size),
        fpgacnn::train::read_training_options(fpgacnn::model::parse_cfg_text(text, "yolov2-tiny-voc.cfg")));
    const std::vector<float> input = random_input(trainer.network().input.size() * kBatch);
    std::vector<float> truth(kBatch * fpgacnn::train::kMaxTruthBoxes * fpgacnn::train::kTruthFloats, 0.0f);
    const float boxes[kBatch][5] = {{0.3f, 0.6f, 0.25f, 0.3f, 1}, {0.7f, 0.2f, 0.4f, 0.35f, 7}};
    for (int b = 0; b < kBatch; ++b) {
        std::memcpy(truth.data() + b * fpgacnn::train::kMaxTruthBoxes * fpgacnn::train::kTruthFloats,
                    boxes[b], sizeof boxes[b]);
    }
    for (auto _ : state) benchmark::DoNotOptimize(trainer.train_batch(input.data(), truth.data()));
    state.SetItemsProcessed(state.iterations() * kBatch);
}

void BM_InferenceForward(benchmark::State& state) {
    const int size = static_cast<int>(state.range(0));
    fpgacnn::Network network =
        synthetic_network(cfg_text_with_batch(g_cfg_dir + "/yolov2-tiny-voc.cfg"), size);
    fpgacnn::fold_batchnorm(network);
    fpgacnn::FloatEngine engine(network);
    const std::vector<float> input = random_input(network.input.size());
    for (auto _ : state) benchmark::DoNotOptimize(engine.run(input.data()).data());
    state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_TrainStep)->Arg(224)->Arg(416)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_InferenceForward)->Arg(224)->Arg(416)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--darknet_cfg_dir=", 0) == 0)
            g_cfg_dir = arg.substr(std::strlen("--darknet_cfg_dir="));
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
