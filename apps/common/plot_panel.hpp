// The tools' charts (fpgacnn-plan --explore --plot, fpgacnn-quantize --explore --plot): panels with
// linear or logarithmic axes drawn with OpenCV's primitives on a white canvas.
#pragma once

#include <cmath>
#include <string>

#include <opencv2/core.hpp>

namespace fpgacnn::plot {

inline const cv::Scalar kBlack(0, 0, 0), kGrey(170, 170, 170), kBlue(180, 90, 20), kRed(40, 40, 210),
    kGreen(60, 150, 60);

/// One panel: a data rectangle on the canvas with (optionally logarithmic) axes.
struct Panel {
    cv::Rect area;
    double x0, x1, y0, y1;
    bool log_x, log_y;
    bool category_x = false;  // x holds categories 0, 1, ...: no numeric x ticks (the caller labels them)
    double tx(double x) const;
    double ty(double y) const;
    cv::Point at(double x, double y) const {
        return {static_cast<int>(std::lround(tx(x))), static_cast<int>(std::lround(ty(y)))};
    }
};

void text(cv::Mat& img, const std::string& s, cv::Point p, double scale = 0.45, const cv::Scalar& c = kBlack);

/// Frame, decade (log) or five (linear) ticks, axis titles.
void axes(cv::Mat& img, const Panel& p, const std::string& title, const std::string& xlabel,
          const std::string& ylabel);

}  // namespace fpgacnn::plot
