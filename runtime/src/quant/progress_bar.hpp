// A one-line progress bar on stderr for long steps (calibration, accuracy runs). On a terminal the
// line is redrawn in place; when stderr is a file or pipe only the final summary line is written,
// so logs stay readable.
#pragma once

#include <chrono>
#include <string>

namespace fpgacnn {

class ProgressBar {
public:
    /// enabled = false: silent (library callers that did not ask for progress).
    ProgressBar(std::string label, int total, bool enabled);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    /// One more item done; `item` (e.g. the image name) is shown after the counter.
    void step(const std::string& item);
    /// Ends the line with a summary, e.g. "6 images"; called by the destructor if not before.
    void finish(const std::string& summary);

private:
    void draw(const std::string& item) const;

    std::string label_;
    int total_;
    int done_ = 0;
    bool enabled_;
    bool terminal_;
    bool finished_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace fpgacnn
