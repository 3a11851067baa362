#include "fpgacnn/classifier.hpp"

#include <algorithm>
#include <chrono>

#include "fpgacnn/error.hpp"
#include "pipeline/detection_steps.hpp"

namespace fpgacnn {

using pipeline_detail::milliseconds_since;

std::vector<Classification> top_classes(const std::vector<float>& probabilities, int k,
                                        const std::vector<std::string>& labels) {
    const int n = static_cast<int>(probabilities.size());
    k = std::max(0, std::min(k, n));
    // darknet's top_k: an insertion that moves a value ahead only when strictly larger.
    std::vector<int> index(static_cast<std::size_t>(k), -1);
    for (int i = 0; i < n; ++i) {
        int current = i;
        for (int& slot : index) {
            if (slot < 0 || probabilities[static_cast<std::size_t>(current)] >
                                probabilities[static_cast<std::size_t>(slot)]) {
                std::swap(current, slot);
                if (current < 0) break;
            }
        }
    }
    std::vector<Classification> top;
    for (const int id : index) {
        const auto i = static_cast<std::size_t>(id);
        top.push_back({id, i < labels.size() ? labels[i] : "class_" + std::to_string(id), probabilities[i]});
    }
    return top;
}

Classifier::Classifier(Network network, std::vector<std::string> labels, ClassifierOptions options)
    : network_(std::move(network)), labels_(std::move(labels)), options_(std::move(options)) {
    if (!network_.is_classifier()) {
        throw Error(network_.cfg_path +
                    " is not a classifier (no [softmax] output layer, or a [region] / [yolo] one): detect "
                    "with Detector (fpgacnn/detector.hpp) or fpgacnn-detect");
    }
    if (!network_.weights_loaded && !options_.backend.quantized) {
        throw Error(network_.cfg_path +
                    ": the network has no weights loaded: load its .weights, or run fixed point with a "
                    "quantized model (BackendOptions::quantized)");
    }
    if (options_.top < 1) throw Error("ClassifierOptions::top must be at least 1");
    backend_ = make_backend(network_, options_.backend);
}

Classifier::~Classifier() = default;

ClassificationResult Classifier::classify(const Image& image) {
    const auto start = std::chrono::steady_clock::now();
    ClassificationResult result;
    const Image boxed = pipeline_detail::prepare_input(network_, image);
    result.pre_ms = milliseconds_since(start);
    const auto forward = std::chrono::steady_clock::now();
    probabilities_ = backend_->run(boxed.data.data());
    result.device_ms = milliseconds_since(forward);
    result.top = top_classes(probabilities_, options_.top, labels_);
    result.milliseconds = milliseconds_since(start);
    return result;
}

std::vector<float> Classifier::layer_output(int i) const { return backend_->layer_output(i); }

std::string Classifier::device_name() const { return backend_->name(); }

}  // namespace fpgacnn
