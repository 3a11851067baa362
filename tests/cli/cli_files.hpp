// The files the CLI tests run the tools on: the fuzzers' toy network (16x16 input, every layer kind)
// with synthetic weights, an image, a two-frame video and a cfg that does not parse, so every tool
// runs in well under a second.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "fpgacnn/darknet.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

struct Files {
    std::string dir, cfg, weights, broken_cfg, image, video;
};

inline const Files& files() {
    static const Files f = [] {
        Files x;
        x.dir = scratch_dir("cli_exit_codes");
        x.cfg = x.dir + "/tiny.cfg";
        std::filesystem::copy_file(source_dir() + "/tests/fuzz/data/tiny.cfg", x.cfg);
        x.weights = x.dir + "/tiny.weights";
        fpgacnn::Network network = fpgacnn::load_darknet_cfg(x.cfg);
        fpgacnn::fill_synthetic_weights(network, 3);
        fpgacnn::save_darknet_weights(network, x.weights);
        x.broken_cfg = x.dir + "/broken.cfg";
        std::ofstream(x.broken_cfg) << "[net]\nwidth=16\nheight=16\n[convolutional]\nfilters=-4\n";
        x.image = darknet_file("data/dog.jpg");
        x.video = x.dir + "/clip.avi";
        const cv::Mat frame = cv::imread(x.image);
        cv::VideoWriter writer(x.video, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 5.0, frame.size());
        for (int i = 0; i < 2; ++i) writer.write(frame);
        return x;
    }();
    return f;
}

}  // namespace fpgacnn::test
