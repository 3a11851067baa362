// Drawn with OpenCV's primitives on a white canvas: two log-scaled panels.
#include "explore_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace fpgacnn::explore {

namespace {

const cv::Scalar kBlack(0, 0, 0), kGrey(170, 170, 170), kBlue(180, 90, 20), kRed(40, 40, 210),
    kGreen(60, 150, 60);

/// One panel: a data rectangle on the canvas with (optionally logarithmic) axes.
struct Panel {
    cv::Rect area;
    double x0, x1, y0, y1;
    bool log_x, log_y;
    double tx(double x) const {
        const double f = log_x ? (std::log10(x) - std::log10(x0)) / (std::log10(x1) - std::log10(x0))
                               : (x - x0) / (x1 - x0);
        return area.x + f * area.width;
    }
    double ty(double y) const {
        const double f = log_y ? (std::log10(y) - std::log10(y0)) / (std::log10(y1) - std::log10(y0))
                               : (y - y0) / (y1 - y0);
        return area.y + area.height - f * area.height;
    }
    cv::Point at(double x, double y) const {
        return {static_cast<int>(std::lround(tx(x))), static_cast<int>(std::lround(ty(y)))};
    }
};

void text(cv::Mat& img, const std::string& s, cv::Point p, double scale = 0.45,
          const cv::Scalar& c = kBlack) {
    cv::putText(img, s, p, cv::FONT_HERSHEY_SIMPLEX, scale, c, 1, cv::LINE_AA);
}

std::string tick_label(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v); }

/// Frame, decade (log) or five (linear) ticks, axis titles.
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
    for (double x : ticks(p.x0, p.x1, p.log_x)) {
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

void roofline(cv::Mat& img, const ExploreResult& r, const cv::Rect& area) {
    const Build& b = r.best;
    const double roof = r.compute_roof_gops(b), bw = r.options.board.bandwidth_gbs;
    double cmin = 1e9, cmax = 0, gmin = 1e9;
    for (const LayerPoint& l : r.best_layers) {
        if (l.ctc <= 0 || l.gops <= 0) continue;
        cmin = std::min(cmin, l.ctc), cmax = std::max(cmax, l.ctc), gmin = std::min(gmin, l.gops);
    }
    if (cmax <= 0) cmin = 1, cmax = 100, gmin = roof / 10;
    cmin = std::min(cmin, roof / bw);
    cmax = std::max(cmax, roof / bw);
    Panel p{area,
            std::pow(10.0, std::floor(std::log10(cmin / 2))),
            std::pow(10.0, std::ceil(std::log10(cmax * 2))),
            std::pow(10.0, std::floor(std::log10(std::min(gmin, roof) / 2))),
            std::pow(10.0, std::ceil(std::log10(roof * 1.5))),
            true,
            true};
    axes(img, p,
         fmt::format("roofline of Tm={} Tn={} Tr={} Tc={} on {} ({:.0f} MHz, {:.1f} GB/s)", b.maxima.tm,
                     b.maxima.tn, b.maxima.tr, b.maxima.tc, r.options.board.name, r.options.clock_mhz, bw),
         "operations per byte of DDR traffic (CTC)", "GOP/s");
    // The roofs: min(computational roof, CTC x bandwidth).
    const double knee = roof / bw;
    cv::line(img, p.at(p.x0, std::max(p.y0, p.x0 * bw)), p.at(knee, roof), kBlue, 2, cv::LINE_AA);
    cv::line(img, p.at(knee, roof), p.at(p.x1, roof), kBlue, 2, cv::LINE_AA);
    text(img, fmt::format("computational roof {:.1f} GOP/s", roof),
         {p.at(knee, roof).x + 6, p.at(knee, roof).y - 6}, 0.42, kBlue);
    for (const LayerPoint& l : r.best_layers) {
        if (l.ctc <= 0 || l.gops <= 0) continue;
        const cv::Point q = p.at(l.ctc, l.gops);
        const cv::Scalar c = l.type == LayerType::Convolutional ? kRed : kGreen;
        cv::circle(img, q, 4, c, cv::FILLED, cv::LINE_AA);
        text(img, std::to_string(l.index), {q.x + 5, q.y - 3}, 0.33, c);
    }
    text(img, "red: conv layers, green: maxpool / reorg (layer index)",
         {p.area.x + 6, p.area.y + p.area.height - 8}, 0.4);
}

void front(cv::Mat& img, const ExploreResult& r, const cv::Rect& area) {
    double msmin = 1e18, msmax = 0;
    int dmax = 1, bmin = 1 << 30, bmax = 0;
    for (const Build& b : r.builds) {
        msmin = std::min(msmin, b.milliseconds), msmax = std::max(msmax, b.milliseconds);
        dmax = std::max(dmax, b.resources.dsp);
    }
    for (const Build& b : r.front)
        bmin = std::min(bmin, b.resources.bram_18k), bmax = std::max(bmax, b.resources.bram_18k);
    Panel p{area,
            0,
            static_cast<double>(std::max(dmax, r.dsp_budget)) * 1.05,
            std::pow(10.0, std::floor(std::log10(msmin))),
            std::pow(10.0, std::ceil(std::log10(msmax))),
            false,
            true};
    axes(img, p,
         fmt::format("{} builds fit, Pareto front of {} (latency, DSP, BRAM)", r.builds.size(),
                     r.front.size()),
         "DSP slices", "ms/frame");
    const std::size_t step = std::max<std::size_t>(1, r.builds.size() / 4000);
    for (std::size_t i = 0; i < r.builds.size(); i += step) {
        cv::circle(img, p.at(r.builds[i].resources.dsp, r.builds[i].milliseconds), 1, kGrey, cv::FILLED);
    }
    for (const Build& b : r.front) {
        const double f = bmax > bmin ? static_cast<double>(b.resources.bram_18k - bmin) / (bmax - bmin) : 0.0;
        const cv::Scalar c(255 * (1 - f), 60, 255 * f);  // blue (little BRAM) .. red (much)
        cv::circle(img, p.at(b.resources.dsp, b.milliseconds), 4, c, cv::FILLED, cv::LINE_AA);
    }
    const cv::Point best = p.at(r.best.resources.dsp, r.best.milliseconds);
    cv::circle(img, best, 9, kBlack, 2, cv::LINE_AA);
    text(img,
         fmt::format("best: Tm={} Tn={} Tr={} Tc={}, {:.1f} ms, {} DSP, {} BRAM_18K", r.best.maxima.tm,
                     r.best.maxima.tn, r.best.maxima.tr, r.best.maxima.tc, r.best.milliseconds,
                     r.best.resources.dsp, r.best.resources.bram_18k),
         {p.area.x + 6, p.area.y + 18}, 0.42);
    text(img,
         fmt::format("front colour: BRAM_18K {} (blue) .. {} (red); grey: every fitting build", bmin, bmax),
         {p.area.x + 6, p.area.y + 36}, 0.4);
    const int budget_x = static_cast<int>(std::lround(p.tx(r.dsp_budget)));
    cv::line(img, {budget_x, p.area.y}, {budget_x, p.area.y + p.area.height}, kRed, 1, cv::LINE_AA);
    text(img, "DSP budget", {budget_x - 80, p.area.y + p.area.height - 8}, 0.4, kRed);
}

}  // namespace

cv::Mat draw_explore_plot(const ExploreResult& r) {
    cv::Mat img(620, 1500, CV_8UC3, cv::Scalar(255, 255, 255));
    roofline(img, r, cv::Rect(90, 60, 600, 480));
    front(img, r, cv::Rect(850, 60, 600, 480));
    text(img,
         fmt::format("fpgacnn-plan --explore: {} on {}, {}", r.workload.name, r.options.board.name,
                     data_type_name(r.options.type)),
         {10, 20}, 0.5);
    return img;
}

}  // namespace fpgacnn::explore
