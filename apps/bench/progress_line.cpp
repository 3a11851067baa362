#include "progress_line.hpp"

#include <unistd.h>

#include <cstdio>

namespace fpgacnn::bench {

namespace {
constexpr int kLongRun = 50;  // frames from which a non-terminal gets progress lines
constexpr int kWidth = 30;
}  // namespace

ProgressLine::ProgressLine(std::string label, int total, bool enabled)
    : label_(std::move(label)), total_(total), terminal_(::isatty(STDERR_FILENO) == 1) {
    enabled_ = enabled && total_ > 0 && (terminal_ || total_ >= kLongRun);
}

ProgressLine::~ProgressLine() {
    if (enabled_ && terminal_ && drawn_) std::fputc('\n', stderr);
}

void ProgressLine::advance(int done) {
    if (!enabled_) return;
    if (terminal_) {
        const int filled = done * kWidth / total_;
        std::fprintf(stderr, "\r%s [%.*s%*s] %d/%d", label_.c_str(), filled, "##############################",
                     kWidth - filled, "", done, total_);
        drawn_ = true;
    } else {
        const int decile = done * 10 / total_;
        if (decile == last_decile_) return;
        last_decile_ = decile;
        std::fprintf(stderr, "%s: %d/%d frames\n", label_.c_str(), done, total_);
    }
    std::fflush(stderr);
}

}  // namespace fpgacnn::bench
