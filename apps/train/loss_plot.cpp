#include "loss_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include <opencv2/imgproc.hpp>

#include "../common/plot_panel.hpp"
#include "../detect/result_writers.hpp"

namespace fpgacnn::train_tool {

void write_loss_plot(const std::string& path, const std::vector<IterationRecord>& records,
                     const std::string& title) {
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
    cv::Mat img(540, 820, CV_8UC3, cv::Scalar(255, 255, 255));
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
    detect::write_image_file(path, img, "the loss plot");
}

}  // namespace fpgacnn::train_tool
