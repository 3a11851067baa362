#include "roofline_plot.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

namespace fpgacnn::bench {
namespace {

const cv::Scalar kBackground(255, 255, 255);
const cv::Scalar kInk(30, 30, 30);
const cv::Scalar kGrid(225, 225, 225);
const cv::Scalar kMeasured(180, 110, 30);  // BGR: blue
const cv::Scalar kPlanner(40, 150, 240);   // orange
const cv::Scalar kRoof(40, 40, 200);       // red
constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

void text(cv::Mat& image, const std::string& s, cv::Point at, double scale = 0.45,
          const cv::Scalar& color = kInk, int thickness = 1) {
    cv::putText(image, s, at, kFont, scale, color, thickness, cv::LINE_AA);
}

void right_aligned(cv::Mat& image, const std::string& s, cv::Point at, double scale = 0.4) {
    int baseline = 0;
    const cv::Size size = cv::getTextSize(s, kFont, scale, 1, &baseline);
    text(image, s, {at.x - size.width, at.y}, scale);
}

std::string short_type(const std::string& type) {
    if (type == "convolutional") return "conv";
    return type;
}

// Left: one row per layer, measured time bar and the planner's estimate as a thin bar under it.
void draw_time_bars(cv::Mat& image, const BenchResult& r, cv::Rect area) {
    text(image, "time per layer (ms)", {area.x, area.y - 12}, 0.55, kInk, 1);
    double longest = 0;
    for (const LayerRow& row : r.layers) longest = std::max({longest, row.ms, row.planner_ms.value_or(0.0)});
    if (longest <= 0) longest = 1;
    const int label_w = 80;
    const int x0 = area.x + label_w;
    const int width = area.width - label_w - 60;
    const double row_h = static_cast<double>(area.height) / std::max<std::size_t>(1, r.layers.size());
    for (int tick = 0; tick <= 4; ++tick) {
        const int x = x0 + width * tick / 4;
        cv::line(image, {x, area.y}, {x, area.y + area.height}, kGrid, 1);
        text(image, fmt::format("{:.3g}", longest * tick / 4), {x - 10, area.y + area.height + 16}, 0.4);
    }
    for (std::size_t i = 0; i < r.layers.size(); ++i) {
        const LayerRow& row = r.layers[i];
        const int y = area.y + static_cast<int>(i * row_h);
        const int bar_h = std::max(2, static_cast<int>(row_h * 0.55));
        right_aligned(image, fmt::format("{} {}", row.index, short_type(row.type)), {x0 - 6, y + bar_h},
                      0.38);
        const int w = static_cast<int>(width * row.ms / longest);
        cv::rectangle(image, cv::Rect(x0, y + 1, std::max(1, w), bar_h), kMeasured, cv::FILLED);
        if (row.planner_ms) {
            const int pw = static_cast<int>(width * *row.planner_ms / longest);
            cv::rectangle(image, cv::Rect(x0, y + 1 + bar_h, std::max(1, pw), std::max(1, bar_h / 3)),
                          kPlanner, cv::FILLED);
        }
        if (row.percent >= 1.0)
            text(image, fmt::format("{:.0f}%", row.percent), {x0 + w + 4, y + bar_h}, 0.35);
    }
    cv::line(image, {x0, area.y}, {x0, area.y + area.height}, kInk, 1);
}

struct LogAxis {
    double lo, hi;  // decades
    int p0, p1;     // pixels
    int map(double v) const {
        const double t = (std::log10(std::max(v, 1e-12)) - lo) / (hi - lo);
        return static_cast<int>(std::lround(p0 + t * (p1 - p0)));
    }
};

// Right: roofs and one dot per layer that computes.
void draw_roofline(cv::Mat& image, const BenchResult& r, cv::Rect area) {
    text(image, "roofline: GOP/s vs operations per byte (log-log)", {area.x, area.y - 12}, 0.55);
    double x_min = 1e9, x_max = 0, y_min = 1e9, y_max = r.roofs.peak_gops;
    for (const LayerRow& row : r.layers) {
        if (row.macs == 0 || row.ms <= 0 || row.bytes == 0) continue;
        x_min = std::min(x_min, row.ops_per_byte());
        x_max = std::max(x_max, row.ops_per_byte());
        y_min = std::min(y_min, row.gops());
        y_max = std::max(y_max, row.gops());
    }
    if (x_max <= 0) x_min = 1, x_max = 10, y_min = 1;
    const double ridge = r.roofs.bandwidth_gbs > 0 ? r.roofs.peak_gops / r.roofs.bandwidth_gbs : 1;
    x_min = std::min(x_min, ridge);
    x_max = std::max(x_max, ridge);
    LogAxis x{std::floor(std::log10(x_min)), std::ceil(std::log10(x_max)) + (x_max == x_min ? 1 : 0), area.x,
              area.x + area.width};
    LogAxis y{std::floor(std::log10(std::max(y_min, 1e-3))), std::ceil(std::log10(std::max(y_max, 1e-3) * 2)),
              area.y + area.height, area.y};
    if (y.hi <= y.lo) y.hi = y.lo + 1;
    for (double d = x.lo; d <= x.hi; d += 1) {
        const int px = x.map(std::pow(10.0, d));
        cv::line(image, {px, area.y}, {px, area.y + area.height}, kGrid, 1);
        text(image, fmt::format("{:g}", std::pow(10.0, d)), {px - 10, area.y + area.height + 16}, 0.4);
    }
    for (double d = y.lo; d <= y.hi; d += 1) {
        const int py = y.map(std::pow(10.0, d));
        cv::line(image, {area.x, py}, {area.x + area.width, py}, kGrid, 1);
        right_aligned(image, fmt::format("{:g}", std::pow(10.0, d)), {area.x - 6, py + 4});
    }
    cv::rectangle(image, area, kInk, 1);
    text(image, "operations per byte", {area.x + area.width / 2 - 70, area.y + area.height + 36}, 0.45);
    text(image, "GOP/s", {area.x + 6, area.y + 18}, 0.45);

    // Roofs: bandwidth * intensity up to the ridge point, the compute peak after it.
    const double left = std::pow(10.0, x.lo);
    const double right = std::pow(10.0, x.hi);
    if (r.roofs.bandwidth_gbs > 0 && r.roofs.peak_gops > 0) {
        const double start = std::max(left, std::pow(10.0, y.lo) / r.roofs.bandwidth_gbs);
        cv::line(image, {x.map(start), y.map(r.roofs.bandwidth_gbs * start)},
                 {x.map(ridge), y.map(r.roofs.peak_gops)}, kRoof, 2, cv::LINE_AA);
        cv::line(image, {x.map(ridge), y.map(r.roofs.peak_gops)}, {x.map(right), y.map(r.roofs.peak_gops)},
                 kRoof, 2, cv::LINE_AA);
        text(image, fmt::format("peak {:.1f} GOP/s", r.roofs.peak_gops),
             {x.map(ridge) + 6, y.map(r.roofs.peak_gops) - 8}, 0.42, kRoof);
        text(image, fmt::format("{:.1f} GB/s", r.roofs.bandwidth_gbs),
             {x.map(start) + 4, y.map(r.roofs.bandwidth_gbs * start) - 8}, 0.42, kRoof);
    }
    for (const LayerRow& row : r.layers) {
        if (row.macs == 0 || row.ms <= 0 || row.bytes == 0) continue;
        const cv::Point p{x.map(row.ops_per_byte()), y.map(row.gops())};
        cv::circle(image, p, 5, kMeasured, cv::FILLED, cv::LINE_AA);
        text(image, std::to_string(row.index), {p.x + 6, p.y - 4}, 0.35);
    }
}

void draw_legend(cv::Mat& image, cv::Point at) {
    cv::rectangle(image, cv::Rect(at.x, at.y - 9, 18, 9), kMeasured, cv::FILLED);
    text(image, "measured (bars: ms, dots: a layer's GOP/s)", {at.x + 24, at.y}, 0.42);
    cv::rectangle(image, cv::Rect(at.x + 340, at.y - 6, 18, 4), kPlanner, cv::FILLED);
    text(image, "planner's estimate for the kernel", {at.x + 364, at.y}, 0.42);
    cv::line(image, {at.x + 640, at.y - 4}, {at.x + 660, at.y - 4}, kRoof, 2);
    text(image, "roofs (compute peak, memory bandwidth)", {at.x + 666, at.y}, 0.42);
}

}  // namespace

cv::Mat draw_bench_plot(const BenchResult& r) {
    const int rows = static_cast<int>(r.layers.size());
    const int height = std::max(560, 150 + rows * 18);
    cv::Mat image(height, 1400, CV_8UC3, kBackground);
    text(image,
         fmt::format("fpgacnn-bench: {} {}x{} on {} ({}), {:.2f} FPS pipelined, {:.2f} GOP/frame",
                     r.cfg.substr(r.cfg.find_last_of('/') + 1), r.input_w, r.input_h, r.device_name,
                     precision_name(r.precision), r.pipelined.fps, r.gop_per_frame),
         {20, 28}, 0.55, kInk, 1);
    draw_legend(image, {20, 54});
    draw_time_bars(image, r, cv::Rect(20, 90, 620, height - 150));
    draw_roofline(image, r, cv::Rect(760, 90, 600, height - 150));
    text(image, "roofs: " + r.roofs.basis, {20, height - 14}, 0.38);
    return image;
}

}  // namespace fpgacnn::bench
