#include "train_tool_fixture.hpp"
#include "training_cfg_text.hpp"

#include <fstream>
#include <iterator>

#include <opencv2/imgcodecs.hpp>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "test_paths.hpp"

namespace fpgacnn::train_tool::test {

std::string tiny_cfg_text() {
    return fpgacnn::test::training_net_section(4, 2, 16, R"(max_batches=3
policy=steps
steps=2
scales=.5
hue=.1
saturation=1.5
exposure=1.5
)") + R"([convolutional]
batch_normalize=1
filters=8
size=3
pad=1
activation=leaky
[maxpool]
size=2
stride=2
[convolutional]
batch_normalize=1
filters=16
size=3
pad=1
activation=leaky
[maxpool]
size=2
stride=2
)" + fpgacnn::test::two_class_region_head("jitter=.2\n");
}

std::string tiny_yolo_cfg_text() {
    const std::string head =
        "[convolutional]\nfilters=21\nsize=1\nactivation=linear\n"
        "[yolo]\nanchors=2,2,3,4,5,5,6,8,9,7,12,12\nnum=6\nclasses=2\njitter=.2\nignore_thresh=.5\nmask=";
    std::string cfg = tiny_cfg_text();
    cfg = cfg.substr(0, cfg.find("[convolutional]\nfilters=14"));  // the trunk, layers 0..3
    return cfg + head + "3,4,5\n" +
           "[route]\nlayers=-3\n"
           "[convolutional]\nfilters=8\nsize=1\nactivation=leaky\n"
           "[upsample]\nstride=2\n"
           "[route]\nlayers=-1,2\n" +
           head + "0,1,2\n";
}

namespace {

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

}  // namespace

TinyTrainingSet make_tiny_training_set(const std::string& name, int image_size, const std::string& cfg_text) {
    TinyTrainingSet set;
    set.dir = fpgacnn::test::scratch_dir(name);
    set.cfg = set.dir + "/tiny.cfg";
    write_text(set.cfg, cfg_text.empty() ? tiny_cfg_text() : cfg_text);
    Network network = load_darknet_cfg(set.cfg);
    fill_synthetic_weights(network, 3);
    set.weights = set.dir + "/tiny.weights";
    save_darknet_weights(network, set.weights);
    // Its own generator: cv::randu draws from cv::theRNG(), the thread's, whose state depends on the
    // tests that ran before, which made the images (and the QAT losses) depend on the test order.
    cv::RNG random(5);
    const char* const labels[] = {"1 0.3 0.6 0.25 0.3\n", "0 0.7 0.2 0.4 0.35\n1 0.5 0.5 0.2 0.2\n"};
    std::string list;
    for (int i = 0; i < 2; ++i) {
        cv::Mat image(image_size, image_size + 4 * i, CV_8UC3);
        random.fill(image, cv::RNG::UNIFORM, 0, 255);
        const std::string stem = set.dir + "/image" + std::to_string(i);
        cv::imwrite(stem + ".png", image);
        write_text(stem + ".txt", labels[i]);
        list += "image" + std::to_string(i) + ".png\n";  // relative to the list's folder
    }
    set.list = set.dir + "/train.txt";
    write_text(set.list, list);
    return set;
}

TrainOptions tiny_options(const TinyTrainingSet& set, const std::string& stem, int max_batches) {
    TrainOptions options;
    options.cfg = set.cfg;
    options.weights = set.weights;
    options.data = set.list;
    options.out = set.dir + "/" + stem + ".weights";
    options.log = set.dir + "/" + stem + ".jsonl";
    options.max_batches = max_batches;
    options.quiet = true;
    return options;
}

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

TrainOutcome train(const TrainOptions& options) {
    const std::atomic<bool> stop{false};
    return run_training(options, stop);
}

ResumeRuns train_whole_and_resumed(int iterations, int half,
                                   const std::function<TrainOptions(const std::string&, int)>& options_of) {
    ResumeRuns runs;
    runs.whole = options_of("whole", iterations);
    runs.whole_outcome = train(runs.whole);
    runs.first_half = options_of("half", half);
    train(runs.first_half);
    runs.resumed = options_of("resumed", iterations);
    runs.resumed.resume = runs.first_half.checkpoint_path();
    runs.resumed_outcome = train(runs.resumed);
    return runs;
}

std::string training_error(const TrainOptions& options) {
    try {
        train(options);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace fpgacnn::train_tool::test
