#include "quant/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace fpgacnn {

namespace {
constexpr int kBarWidth = 30;
}

ProgressBar::ProgressBar(std::string label, int total, bool enabled)
    : label_(std::move(label)),
      total_(total),
      enabled_(enabled),
      terminal_(isatty(fileno(stderr)) == 1),
      start_(std::chrono::steady_clock::now()) {
    if (enabled_ && terminal_) draw("");
}

ProgressBar::~ProgressBar() {
    if (!finished_) finish(fmt::format("{} of {} done", done_, total_));
}

void ProgressBar::step(const std::string& item) {
    ++done_;
    if (enabled_ && terminal_) draw(item);
}

void ProgressBar::draw(const std::string& item) const {
    const int filled = total_ > 0 ? done_ * kBarWidth / total_ : kBarWidth;
    const std::string bar = std::string(filled, '#') + std::string(kBarWidth - filled, '.');
    // \33[K clears what a longer previous item name left on the line.
    std::fprintf(stderr, "\r%s [%s] %d/%d %s\33[K", label_.c_str(), bar.c_str(), done_, total_, item.c_str());
    std::fflush(stderr);
}

void ProgressBar::finish(const std::string& summary) {
    if (finished_) return;
    finished_ = true;
    if (!enabled_) return;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string line = fmt::format("{}: {} in {:.1f} s", label_, summary, seconds);
    if (terminal_) {
        std::fprintf(stderr, "\r%s\33[K\n", line.c_str());
    } else {
        std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
}

}  // namespace fpgacnn
