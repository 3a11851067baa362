#include "fpgacnn/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace fpgacnn {

namespace {
constexpr int kBarWidth = 30;
constexpr int kLongRun = 50;  // items from which a file or pipe gets a line per 10 %
}  // namespace

ProgressBar::ProgressBar(std::string label, int total, bool enabled, std::FILE* out)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      enabled_(enabled && total > 0),
      terminal_(isatty(fileno(out)) == 1),
      start_(std::chrono::steady_clock::now()) {
    if (enabled_ && terminal_) draw("");
}

ProgressBar::~ProgressBar() {
    if (!finished_) finish(fmt::format("{} of {} done", done_, total_));
}

void ProgressBar::step(const std::string& item) {
    ++done_;
    if (!enabled_) return;
    if (terminal_) {
        draw(item);
        return;
    }
    // The last step's line would only repeat the summary that follows.
    if (total_ < kLongRun || done_ >= total_) return;
    const int decile = done_ * 10 / total_;
    if (decile == last_decile_) return;
    last_decile_ = decile;
    std::fprintf(out_, "%s: %d/%d\n", label_.c_str(), done_, total_);
    std::fflush(out_);
}

void ProgressBar::draw(const std::string& item) const {
    const int filled = std::min(done_, total_) * kBarWidth / total_;
    const std::string bar = std::string(filled, '#') + std::string(kBarWidth - filled, '.');
    // \33[K clears what a longer previous item name left on the line.
    std::fprintf(out_, "\r%s [%s] %d/%d %s\33[K", label_.c_str(), bar.c_str(), done_, total_, item.c_str());
    std::fflush(out_);
}

void ProgressBar::finish(const std::string& summary) {
    if (finished_) return;
    finished_ = true;
    if (!enabled_) return;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string line = fmt::format("{}: {} in {:.1f} s", label_, summary, seconds);
    if (terminal_) {
        std::fprintf(out_, "\r%s\33[K\n", line.c_str());
    } else {
        std::fprintf(out_, "%s\n", line.c_str());
    }
    std::fflush(out_);
}

}  // namespace fpgacnn
