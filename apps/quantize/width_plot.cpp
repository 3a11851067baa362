#include "width_plot.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "plot_panel.hpp"

namespace fpgacnn::quantize {

namespace {

using namespace plot;

double reproduced(const WidthPoint& p) { return 100.0 - p.loss_percent; }

// One panel: reproduced % against `x` of every point; front points blue, the chosen one circled.
template <typename X>
void accuracy_panel(cv::Mat& img, const WidthExploration& e, const cv::Rect& area, const std::string& title,
                    const std::string& xlabel, X x) {
    double x0 = 1e300, x1 = 0, y0 = 100;
    for (const WidthPoint& p : e.points) {
        x0 = std::min(x0, x(p)), x1 = std::max(x1, x(p)), y0 = std::min(y0, reproduced(p));
    }
    // Bounds on a round step so that the ticks are short numbers.
    const double step = std::pow(10.0, std::floor(std::log10(std::max(1e-9, x1 - x0)))) / 2;
    const double left = std::max(0.0, std::floor(x0 / step - 1) * step);
    const double right = std::ceil(x1 / step + 1) * step;
    const Panel panel{area, left, right, std::max(0.0, std::floor(y0 / 10) * 10 - 5), 102, false, false};
    axes(img, panel, title, xlabel, fmt::format("% reproduced at {:g}", e.options.thresh));
    const double limit = 100.0 - e.options.max_loss_percent;
    if (limit > panel.y0) {
        cv::line(img, panel.at(panel.x0, limit), panel.at(panel.x1, limit), kGreen, 1, cv::LINE_AA);
        text(img, fmt::format("--max-loss {:g} %", e.options.max_loss_percent),
             {panel.at(panel.x0, limit).x + 4, panel.at(panel.x0, limit).y - 4}, 0.4, kGreen);
    }
    for (const WidthPoint& p : e.points) {
        const cv::Point q = panel.at(x(p), reproduced(p));
        cv::circle(img, q, p.on_front ? 5 : 3, p.on_front ? kBlue : kGrey, cv::FILLED, cv::LINE_AA);
        text(img, std::to_string(p.moves.size()), {q.x + 6, q.y - 4}, 0.35, p.on_front ? kBlue : kGrey);
    }
    const WidthPoint& chosen = e.points[e.chosen];
    cv::circle(img, panel.at(x(chosen), reproduced(chosen)), 10, kRed, 2, cv::LINE_AA);
}

// The sensitivity study: each tensor alone (x, in layer order) at 8 bits and at each study width, and
// the region output's SQNR against float that it leaves (y): which layers can go narrower than 8 bits.
// The rows come kStudyRowsPerMove per move, the widths in the same order in every group.
void study_panel(cv::Mat& img, const WidthExploration& e, const cv::Rect& area) {
    const std::size_t moves = e.study.size() / kStudyRowsPerMove;
    double low = 1e300, high = -1e300;
    for (const StudyRow& row : e.study) {
        if (std::isfinite(row.region_sqnr_db))
            low = std::min(low, row.region_sqnr_db), high = std::max(high, row.region_sqnr_db);
    }
    if (moves == 0 || low > high) return;
    const Panel panel{area,
                      -0.5,
                      static_cast<double>(moves) - 0.5,
                      std::floor(low / 10) * 10,
                      (std::floor(high / 10) + 1) * 10,
                      false,
                      false,
                      true};
    axes(img, panel,
         fmt::format("sensitivity study: each tensor alone at {}, {} and {} bits", e.study[0].bits,
                     e.study[1].bits, e.study[2].bits),
         "", "region SQNR dB");
    for (std::size_t m = 0; m < moves; ++m) {
        const cv::Point q = panel.at(static_cast<double>(m), panel.y0);
        text(img, move_tag(e.study[m * kStudyRowsPerMove].move), {q.x - 8, q.y + 16}, 0.38);
    }
    const cv::Scalar colours[kStudyRowsPerMove] = {kBlue, kGreen, kRed};
    for (std::size_t w = 0; w < kStudyRowsPerMove; ++w) {
        std::optional<cv::Point> previous;
        for (std::size_t m = 0; m < moves; ++m) {
            const StudyRow& row = e.study[m * kStudyRowsPerMove + w];
            if (!std::isfinite(row.region_sqnr_db)) {
                previous.reset();
                continue;
            }
            const cv::Point q = panel.at(static_cast<double>(m), row.region_sqnr_db);
            if (previous) cv::line(img, *previous, q, colours[w], 1, cv::LINE_AA);
            cv::circle(img, q, 4, colours[w], cv::FILLED, cv::LINE_AA);
            previous = q;
        }
        text(img, fmt::format("{} bits", e.study[w].bits),
             {area.x + area.width - 70, area.y + 20 + 18 * static_cast<int>(w)}, 0.45, colours[w]);
    }
}

}  // namespace

cv::Mat draw_width_plot(const WidthExploration& e, const std::string& model_name) {
    cv::Mat img(1000, 1200, CV_8UC3, cv::Scalar(255, 255, 255));
    accuracy_panel(img, e, cv::Rect(90, 70, 470, 400),
                   fmt::format("{}: {} width choices", model_name, e.points.size()), "weight KiB",
                   [](const WidthPoint& p) { return static_cast<double>(p.weight_bytes) / 1024.0; });
    accuracy_panel(img, e, cv::Rect(690, 70, 470, 400), fmt::format("CPU time per frame ({})", e.cpu), "ms",
                   [](const WidthPoint& p) { return p.cpu_ms; });
    const WidthPoint& chosen = e.points[e.chosen];
    text(img, "label: tensors at 8 bits; blue: Pareto front (loss, weight bytes, CPU time)", {90, 530}, 0.45);
    text(img,
         fmt::format("red: chosen ({}), {:.1f} % reproduced, {:.0f} KiB, {:.2f} ms", chosen.label,
                     reproduced(chosen), chosen.weight_bytes / 1024.0, chosen.cpu_ms),
         {90, 555}, 0.45, kRed);
    study_panel(img, e, cv::Rect(90, 640, 1070, 320));
    return img;
}

}  // namespace fpgacnn::quantize
