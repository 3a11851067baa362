// darknet's detection labels: one "class x_center y_center width height" line a box, relative to the
// image, in a .txt found from the image's path.
#pragma once

#include <string>
#include <vector>

namespace fpgacnn::train_tool {

struct LabelBox {
    int class_id = 0;
    float x = 0;  ///< centre, relative
    float y = 0;
    float w = 0;
    float h = 0;
};

/// A regular file is at `path` (not a folder, FIFO or device).
bool is_regular_file(const std::string& path);

/// The label files tried for an image, in order: the .txt of the same name beside it, then darknet's
/// own rule (fill_truth_detection in data.c: the first "images", "JPEGImages" and "raw" in the path
/// each replaced by "labels", then the extension .jpg / .png / .JPG / .JPEG by .txt).
std::vector<std::string> label_path_candidates(const std::string& image_path);

/// The first existing candidate. Throws Error naming the image and every path tried when none exists.
std::string find_label_file(const std::string& image_path);

/// Reads a label file. Blank lines are skipped. Throws Error naming file:line for a line that is not
/// five numbers, a class outside [0, classes), a non-finite value or a box not inside [0, 1].
std::vector<LabelBox> read_label_file(const std::string& path, int classes);

}  // namespace fpgacnn::train_tool
