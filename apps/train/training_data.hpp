// The images a run trains on and their boxes (from label files or a model's own detections), and the
// batches made of them in a reproducible order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "darknet_augment.hpp"
#include "label_file.hpp"

namespace fpgacnn::train_tool {

struct LabelledImage {
    std::string path;
    std::vector<LabelBox> boxes;
};

/// --data LIST: one image path a line (relative paths from the list's folder; blank lines and
/// "#" comments skipped), each image's labels read now so a bad one stops the run before training.
/// Throws Error naming LIST:line for a missing image, and the label file's errors.
std::vector<LabelledImage> read_training_list(const std::string& list_path, int classes);

/// --distill DIR: every image of the folder (not recursive, sorted) labelled with the float model's
/// own detections at `thresh` (cfg + weights, batch-norm folded, darknet's letterbox and NMS).
/// Throws Error when the folder has no image.
std::vector<LabelledImage> distill_labels(const std::string& folder, const std::string& cfg_path,
                                          const std::string& weights_path, float thresh);

/// Batches in list order, cycling; with augmentation each image prepared by darknet's
/// load_data_detection from a generator seeded once. Its state (images taken, the generator) is
/// what a checkpoint saves so a resumed run takes the batches an uninterrupted one would.
class BatchSource {
public:
    BatchSource(std::vector<LabelledImage> images, int width, int height, bool augment,
                AugmentOptions options, std::uint64_t seed);

    /// `batch` images into input (batch * 3 * width * height floats) and truth (batch *
    /// kMaxTruthBoxes * kTruthFloats). Throws Error naming an image that no longer loads.
    void next_batch(int batch, float* input, float* truth);

    std::size_t size() const { return images_.size(); }
    /// The position and generator as text (checkpoints); restore() takes it back.
    std::string state() const;
    void restore(const std::string& state);

private:
    std::vector<LabelledImage> images_;
    int width_;
    int height_;
    bool augment_;
    AugmentOptions options_;
    AugmentRandom random_;
    std::uint64_t taken_ = 0;
};

}  // namespace fpgacnn::train_tool
