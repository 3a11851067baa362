// A progress bar on stderr for long runs: redrawn in place on a terminal; on a pipe or file a line
// every 10 % (only for runs long enough to need it), so logs stay short.
#pragma once

#include <string>

namespace fpgacnn::bench {

class ProgressLine {
public:
    ProgressLine(std::string label, int total, bool enabled);
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;
    void advance(int done);

private:
    std::string label_;
    int total_;
    bool terminal_;
    bool enabled_;
    int last_decile_ = -1;
    bool drawn_ = false;
};

}  // namespace fpgacnn::bench
