// One comparable row per printed detection, whichever side produced it (fpgacnn's Detector, the
// darknet harness, or a reference listing), and the comparison of two such lists.
#pragma once

#include <string>
#include <vector>

#include "darknet_reference.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn::crosscheck {

struct DetectionRow {
    std::string class_name;
    float prob = 0;
    Box box;  // relative
    int left = 0;
    int top = 0;
    int right = 0;
    int bottom = 0;
};

struct DetectionTolerance {
    float prob;
    float box;   // on each relative coordinate x, y, w, h
    int pixels;  // on each edge
};

std::vector<DetectionRow> rows_of(const std::vector<Detection>& detections);
std::vector<DetectionRow> rows_of(const std::vector<ReferenceDetection>& detections,
                                  const std::vector<std::string>& class_names);

/// Largest differences between two lists matched row by row (in order), for the test log.
struct RowsDiff {
    float prob = 0;
    float box = 0;
    int pixels = 0;
};
RowsDiff max_differences(const std::vector<DetectionRow>& ours, const std::vector<DetectionRow>& expected);

/// Empty when both lists have the same length and each row matches its counterpart (same class,
/// same position in the print order) within the tolerance; otherwise both lists, side by side,
/// with every mismatch named.
std::string mismatches(const std::vector<DetectionRow>& ours, const std::vector<DetectionRow>& expected,
                       const DetectionTolerance& tolerance, const std::string& expected_name);

}  // namespace fpgacnn::crosscheck
