// darknet's training-image preparation for a detector (load_data_detection in pjreddie's data.c, read
// there, re-written here): jitter of the aspect ratio by the last [region]'s or [yolo]'s `jitter`, a random
// placement in the input with 0.5 fill, hue / saturation / exposure from [net], a horizontal flip half the
// time, and the truth boxes moved, flipped and clipped with the image (fill_truth_detection, correct_boxes).
// The draws come from a seeded generator of our own (not darknet's rand()), so a seed reproduces a
// run on any machine, but not darknet's own draws.
#pragma once

#include <cstdint>
#include <istream>
#include <random>
#include <string>
#include <vector>

#include "fpgacnn/vision.hpp"
#include "label_file.hpp"
#include "model/cfg_parser.hpp"
#include "train/truth_boxes.hpp"

namespace fpgacnn::train_tool {

/// The cfg's augmentation options, darknet's defaults when absent.
struct AugmentOptions {
    float jitter = 0.2f;  ///< the last [region]'s or [yolo]'s jitter (darknet's default .2)
    float hue = 0;        ///< [net] hue
    float saturation = 1;
    float exposure = 1;
    /// load_data_detection's num_boxes: the last layer's `max` ([region] 30, [yolo] 90 by default),
    /// the boxes kept of an image's shuffled labels before the tiny ones are dropped.
    int max_boxes = train::kRegionTruthBoxes;
};

/// Reads [net] hue / saturation / exposure and the last [region]'s or [yolo]'s jitter and max. Throws
/// Error naming file:line for a value that is not a number or a max above what the layer's truths hold.
AugmentOptions read_augment_options(const model::CfgFile& cfg);

/// darknet's rand_uniform / rand()%2 on a std::mt19937 (the same numbers on every machine).
class AugmentRandom {
public:
    explicit AugmentRandom(std::uint64_t seed) : engine_(static_cast<std::mt19937::result_type>(seed)) {}
    /// Uniform in [min, max] (the bounds swapped when max < min, as darknet does).
    float uniform(float min, float max);
    bool coin() { return (engine_() >> 31) != 0; }
    std::mt19937& engine() { return engine_; }
    /// The generator's state as text (std::mt19937's operator<<), for checkpoints.
    std::string engine_state() const;
    /// Reads engine_state()'s text back; false when it does not parse.
    bool set_engine_state(std::istream& in);

private:
    std::mt19937 engine_;
};

/// One training image of w x h: `pixels` (3 * w * h floats, CHW) and `truth` (kMaxTruthBoxes * 5
/// floats, x y w h class, zero after the last box; at most AugmentOptions::max_boxes boxes).
struct PreparedImage {
    std::vector<float> pixels;
    std::vector<float> truth;
};

/// load_data_detection's preparation of one image, draws from `random`.
PreparedImage augment_image(const Image& original, std::vector<LabelBox> labels, int w, int h,
                            const AugmentOptions& options, AugmentRandom& random);

/// --no-augment: darknet's resize_image to w x h (no jitter, placement, colour or flip); the boxes as
/// fill_truth_detection leaves them with no change of place (clipped to the image, tiny ones dropped).
PreparedImage resize_only(const Image& original, const std::vector<LabelBox>& labels, int w, int h,
                          int max_boxes);

}  // namespace fpgacnn::train_tool
