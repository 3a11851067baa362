// A one-line progress bar on stderr for long steps (calibration, accuracy runs, fpgacnn-bench's
// modes). On a terminal the line is redrawn in place and ends as a summary line. When stderr is a
// file or pipe, a run of 50 items or more gets a line per 10 % and every run its summary line, so
// logs stay short yet show that a long run is moving.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// The bar described above for one run of `total` items. Not thread-safe: one thread steps it.
class FPGACNN_API ProgressBar {
public:
    /// enabled = false (library callers that did not ask for progress, -q) or total <= 0: silent.
    /// `out` is stderr except in tests.
    ProgressBar(std::string label, int total, bool enabled, std::FILE* out = stderr);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    /// One more item done; `item` (e.g. the image name) is shown after the counter on a terminal.
    void step(const std::string& item = "");
    /// Ends with the summary line "<label>: <summary> in <seconds> s", e.g. summary "6 images";
    /// the destructor ends with "<done> of <total> done" if it was not called.
    void finish(const std::string& summary);

private:
    void draw(const std::string& item) const;

    std::string label_;
    int total_;
    std::FILE* out_;
    bool enabled_;
    bool terminal_;
    int done_ = 0;
    int last_decile_ = -1;
    bool finished_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace fpgacnn
