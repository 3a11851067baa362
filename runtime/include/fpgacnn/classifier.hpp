// Image classification with darknet's classifier cfgs (darknet19, resnet50, alexnet, ...): the image
// letterboxed to the network input (as darknet's predict_classifier does), the backend's forward pass
// (float, or fixed point with the [softmax] in float on the host), the top-k classes as darknet's top_k
// picks them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/export.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

/// One of the most probable classes of an image.
struct FPGACNN_API Classification {
    int class_id = 0;       ///< index into the [softmax] output
    std::string label;      ///< the labels file's line class_id, or "class_<id>" without one
    float probability = 0;  ///< the softmax output, 0..1
};

/// What a Classifier is configured with. Read once by the constructor.
struct FPGACNN_API ClassifierOptions {
    /// Where and in what arithmetic the network runs (make_backend).
    BackendOptions backend;
    int top = 5;  ///< classes classify() returns (darknet's predict_classifier prints 5)
};

/// One image's classes and where its time went.
struct FPGACNN_API ClassificationResult {
    std::vector<Classification> top;  ///< the `top` most probable, most probable first
    double milliseconds = 0;          ///< letterbox + forward + top-k
    double pre_ms = 0;                ///< letterbox
    double device_ms = 0;             ///< Backend::run
};

/// The `k` largest of `probabilities`, largest first, as darknet's top_k orders them (of equal values
/// the lower index first); `labels` name them (a missing one: "class_<id>"). k is capped at the count.
FPGACNN_API std::vector<Classification> top_classes(const std::vector<float>& probabilities, int k,
                                                    const std::vector<std::string>& labels);

/// Classifies images with a classifier network (Network::is_classifier()), one at a time on the
/// caller's thread. One classify() at a time: a Classifier is used by one thread.
class FPGACNN_API Classifier {
public:
    /// The network must have weights loaded and batch-norm folded, except for fixed point with
    /// options.backend.quantized (its shapes are enough). Builds the backend now (make_backend): throws
    /// Error when the network is not a classifier (a detector: use Detector), has no weights and no
    /// quantized model, when options.top < 1, or what make_backend throws.
    Classifier(Network network, std::vector<std::string> labels, ClassifierOptions options);
    ~Classifier();
    Classifier(const Classifier&) = delete;
    Classifier& operator=(const Classifier&) = delete;

    /// The most probable classes of `image` (float RGB, 0..1, any size: letterboxed to the network
    /// input). Throws what the backend throws.
    ClassificationResult classify(const Image& image);
    /// Every class's probability from the last classify() (the [softmax] output).
    const std::vector<float>& probabilities() const { return probabilities_; }
    /// Layer i's output of the last classify() (needs keep_layer_outputs on a device).
    std::vector<float> layer_output(int i) const;
    /// The network as given to the constructor.
    const Network& network() const { return network_; }
    /// The backend's name, e.g. "cpu (int16, avx2)".
    std::string device_name() const;

private:
    Network network_;
    std::vector<std::string> labels_;
    ClassifierOptions options_;
    std::unique_ptr<Backend> backend_;
    std::vector<float> probabilities_;
};

}  // namespace fpgacnn
