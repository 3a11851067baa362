#include "plot_panel.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace fpgacnn::plot {

double Panel::tx(double x) const {
    const double f =
        log_x ? (std::log10(x) - std::log10(x0)) / (std::log10(x1) - std::log10(x0)) : (x - x0) / (x1 - x0);
    return area.x + f * area.width;
}
double Panel::ty(double y) const {
    const double f =
        log_y ? (std::log10(y) - std::log10(y0)) / (std::log10(y1) - std::log10(y0)) : (y - y0) / (y1 - y0);
    return area.y + area.height - f * area.height;
}

void text(cv::Mat& img, const std::string& s, cv::Point p, double scale, const cv::Scalar& c) {
    cv::putText(img, s, p, cv::FONT_HERSHEY_SIMPLEX, scale, c, 1, cv::LINE_AA);
}

namespace {

// Three significant digits at most below 100: ticks of a linear axis over an arbitrary range.
std::string tick_label(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

}  // namespace

void axes(cv::Mat& img, const Panel& p, const std::string& title, const std::string& xlabel,
          const std::string& ylabel) {
    cv::rectangle(img, p.area, kBlack, 1);
    auto ticks = [](double a, double b, bool log) {
        std::vector<double> t;
        if (log) {
            for (double d = std::pow(10.0, std::floor(std::log10(a))); d <= b * 1.0001; d *= 10) {
                for (double m : {1.0, 2.0, 5.0}) {
                    if (d * m >= a * 0.9999 && d * m <= b * 1.0001) t.push_back(d * m);
                }
            }
        } else {
            for (int i = 0; i <= 5; ++i) t.push_back(a + (b - a) * i / 5);
        }
        return t;
    };
    for (double x : p.category_x ? std::vector<double>{} : ticks(p.x0, p.x1, p.log_x)) {
        const cv::Point q = p.at(x, p.y0);
        cv::line(img, q, {q.x, p.area.y}, cv::Scalar(235, 235, 235), 1);
        text(img, tick_label(x), {q.x - 10, q.y + 16}, 0.38);
    }
    for (double y : ticks(p.y0, p.y1, p.log_y)) {
        const cv::Point q = p.at(p.x0, y);
        cv::line(img, q, {p.area.x + p.area.width, q.y}, cv::Scalar(235, 235, 235), 1);
        text(img, tick_label(y), {q.x - 44, q.y + 4}, 0.38);
    }
    cv::rectangle(img, p.area, kBlack, 1);
    text(img, title, {p.area.x, p.area.y - 12}, 0.5);
    text(img, xlabel, {p.area.x + p.area.width / 2 - 60, p.area.y + p.area.height + 36});
    text(img, ylabel, {p.area.x - 60, p.area.y - 30 + 0});
}

}  // namespace fpgacnn::plot
