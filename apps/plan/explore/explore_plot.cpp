// Drawn with OpenCV's primitives on a white canvas: two log-scaled panels.
#include "explore_plot.hpp"

#include "plot_panel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace fpgacnn::explore {

namespace {

using namespace plot;

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
