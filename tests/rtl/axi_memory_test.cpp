// The simulation's bus rules (kernels/rtl/sim/axi_memory.cpp): every AXI4 rule a burst can break is
// reported with the master, the address and the rule, and only a burst that keeps them all passes.
#include "axi_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fpgacnn::test {
namespace {

using rtl::AxiMemory;

class AxiRules : public ::testing::Test {
protected:
    void SetUp() override {
        std::string error;
        ASSERT_TRUE(memory.map(0x10000, host.data(), host.size(), error)) << error;
    }
    /// check_burst of a 16-bit master (size 1, INCR).
    std::string check(uint64_t address, unsigned beats, unsigned size = 1, unsigned burst = 1) {
        return memory.check_burst("fm_read", false, address, beats - 1, size, burst, 2);
    }
    std::vector<uint8_t> host = std::vector<uint8_t>(3 * 4096);
    AxiMemory memory;
};

TEST_F(AxiRules, ABurstInsideOneMappedRangeAndOne4KiBPagePasses) {
    EXPECT_EQ(check(0x10000, 256), "");
    EXPECT_EQ(check(0x10FFE, 1), "");
    EXPECT_EQ(memory.resolve(0x10004, 2), host.data() + 4);
}

TEST_F(AxiRules, EveryBrokenRuleIsNamed) {
    EXPECT_NE(check(0x10F00, 129).find("crosses a 4 KiB boundary"), std::string::npos);
    EXPECT_NE(check(0x10001, 1).find("not aligned"), std::string::npos);
    EXPECT_NE(check(0x20000, 4).find("nothing is mapped"), std::string::npos);
    EXPECT_EQ(check(0x12FFE, 1), "");                                           // the last word of the range
    EXPECT_NE(check(0x13000, 1).find("nothing is mapped"), std::string::npos);  // one past the end
    EXPECT_NE(check(0x10000, 1, 0).find("data width"), std::string::npos);
    EXPECT_NE(check(0x10000, 1, 1, 2).find("not INCR"), std::string::npos);
    const std::string text = memory.check_burst("fm8_write", true, 0x10000, 256, 0, 1, 1);
    EXPECT_NE(text.find("longer than 256 beats"), std::string::npos) << text;
    EXPECT_NE(text.find("fm8_write: write burst of 257 beats at 0x10000"), std::string::npos) << text;
}

TEST_F(AxiRules, RangesMustNotOverlap) {
    std::vector<uint8_t> other(64);
    std::string error;
    EXPECT_FALSE(memory.map(0x12FC0, other.data(), other.size(), error));
    EXPECT_NE(error.find("overlaps"), std::string::npos);
    EXPECT_TRUE(memory.map(0x13000, other.data(), other.size(), error)) << error;
    EXPECT_TRUE(memory.unmap(0x13000));
    EXPECT_FALSE(memory.unmap(0x13000));
}

}  // namespace
}  // namespace fpgacnn::test
