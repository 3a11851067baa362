#include "loss_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include <opencv2/imgproc.hpp>

#include "../common/plot_panel.hpp"
#include "../detect/result_writers.hpp"

namespace fpgacnn::train_tool {

namespace {

double percent(int kept, int of) { return of == 0 ? 100.0 : 100.0 * kept / of; }

// The validation panel: % of the float detections kept at each scoring, sharing the loss's x axis.
void draw_validation(cv::Mat& img, const plot::Panel& loss_panel, const std::vector<ValidationScore>& scores,
                     const std::optional<ValidationScore>& kept) {
    using namespace plot;
    double low = 100;
    for (const ValidationScore& s : scores) {
        low =
            std::min({low, percent(s.kept, s.float_detections), percent(s.kept_low, s.float_detections_low)});
    }
    low = std::max(0.0, std::floor(low / 10) * 10);
    // The first scoring is at the start (the iteration before the loss's first point).
    const double x0 = std::min(loss_panel.x0, static_cast<double>(scores.front().iteration));
    const Panel panel{cv::Rect(90, 560, 690, 260), x0, loss_panel.x1, low, 100, false, false};
    axes(img, panel, "--qat-validate: float detections kept on the validation images", "iteration", "kept %");
    const auto series = [&](bool at_half, const cv::Scalar& colour) {
        std::optional<cv::Point> previous;
        for (const ValidationScore& s : scores) {
            const double y =
                at_half ? percent(s.kept, s.float_detections) : percent(s.kept_low, s.float_detections_low);
            const cv::Point q = panel.at(static_cast<double>(s.iteration), y);
            if (previous) cv::line(img, *previous, q, colour, 2, cv::LINE_AA);
            cv::circle(img, q, 3, colour, cv::FILLED, cv::LINE_AA);
            previous = q;
        }
    };
    series(true, kRed);
    series(false, kGreen);
    if (kept) {
        const cv::Point q =
            panel.at(static_cast<double>(kept->iteration), percent(kept->kept, kept->float_detections));
        cv::circle(img, q, 8, kBlack, 2, cv::LINE_AA);
    }
    text(img, "red: at thresh 0.5; green: at 0.25; circled: the iteration whose weights were written",
         {90, 878}, 0.42);
}

}  // namespace

void write_loss_plot(const std::string& path, const std::vector<IterationRecord>& records,
                     const std::string& title, const std::vector<ValidationScore>& validation,
                     const std::optional<ValidationScore>& kept) {
    if (records.empty()) return;
    using namespace plot;
    double low = records.front().loss;
    double high = low;
    for (const IterationRecord& record : records) {
        low = std::min(low, record.loss);
        high = std::max(high, record.loss);
    }
    const bool log_y = low > 0;
    if (log_y) {
        low = std::pow(10.0, std::floor(std::log10(low)));
        high = std::pow(10.0, std::ceil(std::log10(high)));
    } else if (high <= low) {
        high = low + 1;
    }
    if (high <= low) high = low * 10;
    const double first = static_cast<double>(records.front().iteration);
    const double last = std::max(first + 1, static_cast<double>(records.back().iteration));
    cv::Mat img(validation.empty() ? 540 : 890, 820, CV_8UC3, cv::Scalar(255, 255, 255));
    const Panel panel{cv::Rect(90, 50, 690, 400), first, last, low, high, false, log_y};
    axes(img, panel, fmt::format("{}: training loss", title), "iteration", "loss");
    std::optional<cv::Point> previous;
    std::optional<cv::Point> previous_average;
    double average = records.front().loss;
    for (const IterationRecord& record : records) {
        average = 0.9 * average + 0.1 * record.loss;  // darknet prints the same running average
        const cv::Point q = panel.at(static_cast<double>(record.iteration), record.loss);
        const cv::Point a = panel.at(static_cast<double>(record.iteration), average);
        if (previous) cv::line(img, *previous, q, kGrey, 1, cv::LINE_AA);
        if (previous_average) cv::line(img, *previous_average, a, kBlue, 2, cv::LINE_AA);
        previous = q;
        previous_average = a;
    }
    text(img, "grey: loss of each iteration; blue: running average (0.9 avg + 0.1 loss, as darknet prints)",
         {90, 520}, 0.42);
    if (!validation.empty()) draw_validation(img, panel, validation, kept);
    detect::write_image_file(path, img, "the loss plot");
}

}  // namespace fpgacnn::train_tool
