// The progress bar when stderr is a file or pipe (tests have no terminal): a long run gets a line
// per 10 %, a short one only its summary, and a disabled bar writes nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "fpgacnn/progress_bar.hpp"

namespace fpgacnn {
namespace {

// Runs `steps` steps of a bar over `total` items into a temporary file and returns what it wrote.
std::string written(int total, int steps, bool enabled, bool call_finish) {
    std::FILE* file = std::tmpfile();
    EXPECT_NE(file, nullptr);
    {
        ProgressBar bar("frames", total, enabled, file);
        for (int i = 0; i < steps; ++i) bar.step("item");
        if (call_finish) bar.finish("all of them");
    }
    std::string text(static_cast<std::size_t>(std::ftell(file)), '\0');
    std::rewind(file);
    EXPECT_EQ(std::fread(text.data(), 1, text.size(), file), text.size());
    std::fclose(file);
    return text;
}

int lines_in(const std::string& text) {
    int lines = 0;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    return lines;
}

TEST(ProgressBar, LongRunOnAPipeWritesALinePerTenPercentThenTheSummary) {
    const std::string text = written(100, 100, true, true);
    EXPECT_EQ(text.find('\r'), std::string::npos) << text;
    EXPECT_NE(text.find("frames: 1/100\n"), std::string::npos) << text;
    EXPECT_NE(text.find("frames: 50/100\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("frames: 100/100\n"), std::string::npos) << text;  // the summary says it
    EXPECT_NE(text.find("frames: all of them in "), std::string::npos) << text;
    EXPECT_EQ(lines_in(text), 10 + 1) << text;
}

TEST(ProgressBar, ShortRunOnAPipeWritesOnlyTheSummaryAndTheDestructorWritesOne) {
    EXPECT_EQ(lines_in(written(6, 6, true, true)), 1);
    const std::string unfinished = written(6, 4, true, false);
    EXPECT_NE(unfinished.find("frames: 4 of 6 done in "), std::string::npos) << unfinished;
    EXPECT_EQ(lines_in(unfinished), 1);
}

TEST(ProgressBar, DisabledOrEmptyBarWritesNothing) {
    EXPECT_EQ(written(100, 100, false, true), "");
    EXPECT_EQ(written(0, 0, true, true), "");
}

}  // namespace
}  // namespace fpgacnn
