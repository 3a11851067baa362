#include "detection_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace fpgacnn::crosscheck {
namespace {

std::string format_row(const DetectionRow& r) {
    char text[200];
    std::snprintf(text, sizeof text, "%-12s prob=%.4f box=(%.4f,%.4f,%.4f,%.4f) px=(%d,%d,%d,%d)",
                  r.class_name.c_str(), r.prob, r.box.x, r.box.y, r.box.w, r.box.h, r.left, r.top, r.right,
                  r.bottom);
    return text;
}

float box_difference(const Box& a, const Box& b) {
    return std::max({std::fabs(a.x - b.x), std::fabs(a.y - b.y), std::fabs(a.w - b.w), std::fabs(a.h - b.h)});
}

int pixel_difference(const DetectionRow& a, const DetectionRow& b) {
    return std::max({std::abs(a.left - b.left), std::abs(a.top - b.top), std::abs(a.right - b.right),
                     std::abs(a.bottom - b.bottom)});
}

}  // namespace

std::vector<DetectionRow> rows_of(const std::vector<Detection>& detections) {
    std::vector<DetectionRow> rows;
    for (const Detection& d : detections)
        rows.push_back({d.class_name, d.prob, d.box, d.left, d.top, d.right, d.bottom});
    return rows;
}

std::vector<DetectionRow> rows_of(const std::vector<ReferenceDetection>& detections,
                                  const std::vector<std::string>& class_names) {
    std::vector<DetectionRow> rows;
    for (const ReferenceDetection& d : detections) {
        const std::string name = d.class_id < static_cast<int>(class_names.size())
                                     ? class_names[d.class_id]
                                     : "class_" + std::to_string(d.class_id);
        rows.push_back({name, d.prob, Box{d.x, d.y, d.w, d.h}, d.left, d.top, d.right, d.bottom});
    }
    return rows;
}

RowsDiff max_differences(const std::vector<DetectionRow>& ours, const std::vector<DetectionRow>& expected) {
    RowsDiff diff;
    for (std::size_t i = 0; i < std::min(ours.size(), expected.size()); ++i) {
        diff.prob = std::max(diff.prob, std::fabs(ours[i].prob - expected[i].prob));
        diff.box = std::max(diff.box, box_difference(ours[i].box, expected[i].box));
        diff.pixels = std::max(diff.pixels, pixel_difference(ours[i], expected[i]));
    }
    return diff;
}

std::string mismatches(const std::vector<DetectionRow>& ours, const std::vector<DetectionRow>& expected,
                       const DetectionTolerance& tolerance, const std::string& expected_name) {
    std::ostringstream problems;
    if (ours.size() != expected.size())
        problems << "  count: ours " << ours.size() << ", " << expected_name << " " << expected.size()
                 << "\n";
    for (std::size_t i = 0; i < std::min(ours.size(), expected.size()); ++i) {
        const DetectionRow& a = ours[i];
        const DetectionRow& b = expected[i];
        if (a.class_name != b.class_name) problems << "  row " << i << ": class differs\n";
        if (!(std::fabs(a.prob - b.prob) <= tolerance.prob)) problems << "  row " << i << ": prob differs\n";
        if (!(box_difference(a.box, b.box) <= tolerance.box)) problems << "  row " << i << ": box differs\n";
        if (pixel_difference(a, b) > tolerance.pixels) problems << "  row " << i << ": pixel edge differs\n";
    }
    if (problems.str().empty()) return {};

    std::ostringstream report;
    report << problems.str() << "ours:\n";
    for (const DetectionRow& r : ours) report << "  " << format_row(r) << "\n";
    report << expected_name << ":\n";
    for (const DetectionRow& r : expected) report << "  " << format_row(r) << "\n";
    return report.str();
}

}  // namespace fpgacnn::crosscheck
