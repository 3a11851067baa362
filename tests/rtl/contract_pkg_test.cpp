// The SystemVerilog package the RTL reads (fpgacnn_contract_pkg.sv, printed at build time by
// kernels/rtl/gen/gen_contract_pkg.cpp) states the same contract as the C++ headers: every register
// offset, the command layout, op codes, arithmetic constants and the fingerprint layout.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/kernel/register_map.hpp"

namespace fpgacnn::test {
namespace {

namespace regs = kernel::regs;

/// localparam name -> value (decimal, or 'h hexadecimal).
std::map<std::string, long long> read_package() {
    std::ifstream file(FPGACNN_RTL_CONTRACT_PKG);
    EXPECT_TRUE(file.good()) << FPGACNN_RTL_CONTRACT_PKG;
    const std::regex line_pattern(R"(^\s*localparam int (\w+) = ('h)?(-?[0-9A-Fa-f]+);)");
    std::map<std::string, long long> values;
    std::string line;
    while (std::getline(file, line)) {
        std::smatch m;
        if (std::regex_search(line, m, line_pattern))
            values[m[1]] = std::stoll(m[3], nullptr, m[2].matched ? 16 : 10);
    }
    return values;
}

std::string upper(const char* name) {
    std::string text(name);
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

TEST(RtlContractPackage, StatesTheHeadersContract) {
    const std::map<std::string, long long> pkg = read_package();
    const auto value = [&](const std::string& name) {
        const auto it = pkg.find(name);
        EXPECT_NE(it, pkg.end()) << name;
        return it == pkg.end() ? -999999 : it->second;
    };
    EXPECT_EQ(value("CONTRACT_VERSION"), arith::kContractVersion);
    EXPECT_EQ(value("DATA_BITS"), arith::kDataBits);
    EXPECT_EQ(value("NARROW_BITS"), arith::kNarrowBits);
    EXPECT_EQ(value("PAIR_SHIFT"), arith::kPairShift);
    EXPECT_EQ(value("LEAKY_MULTIPLIER"), arith::kLeakyMultiplier);
    EXPECT_EQ(value("LEAKY_SHIFT"), arith::kLeakyShift);
    EXPECT_EQ(value("EXACT_MIN_OUTPUT_SHIFT"), arith::kExactMinOutputShift);
    EXPECT_EQ(value("EXACT_MAX_OUTPUT_SHIFT"), arith::kExactMaxOutputShift);
    EXPECT_EQ(value("EXACT_MAX_BIAS_SHIFT"), arith::kExactMaxBiasShift);
    EXPECT_EQ(value("MAX_DIMENSION"), kernel::kMaxDimension);
    EXPECT_EQ(value("MAX_CHANNELS"), kernel::kMaxChannels);
    EXPECT_EQ(value("OP_CONV"), kernel::kOpConv);
    EXPECT_EQ(value("OP_MAXPOOL"), kernel::kOpMaxPool);
    EXPECT_EQ(value("OP_REORG"), kernel::kOpReorg);
    EXPECT_EQ(value("OP_IDENTIFY"), kernel::kOpIdentify);
    EXPECT_EQ(value("OP_UPSAMPLE"), kernel::kOpUpsample);
    EXPECT_EQ(value("OP_SHORTCUT"), kernel::kOpShortcut);
    EXPECT_EQ(value("COMMAND_WORDS"), kernel::kCommandWords);
    EXPECT_EQ(value("REG_CONTROL"), regs::kControl);
    EXPECT_EQ(value("REG_GIE"), regs::kGlobalInterruptEnable);
    EXPECT_EQ(value("REG_IER"), regs::kInterruptEnable);
    EXPECT_EQ(value("REG_ISR"), regs::kInterruptStatus);
    EXPECT_EQ(1ll << value("AP_DONE_BIT"), regs::kApDone);
    EXPECT_EQ(1ll << value("AP_IDLE_BIT"), regs::kApIdle);
    for (int i = 0; i < kernel::kCommandWords; ++i) {
        EXPECT_EQ(value("CMD_" + upper(regs::kCommandNames[i])), i) << regs::kCommandNames[i];
        EXPECT_EQ(value("REG_" + upper(regs::kCommandNames[i])), regs::kCommandOffsets[i])
            << regs::kCommandNames[i];
    }
    for (int p = 0; p < regs::kPointerCount; ++p) {
        const std::string name = upper(regs::kPointerNames[p]);
        EXPECT_EQ(value("PTR_" + name), p);
        EXPECT_EQ(value("REG_" + name + "_ADDR64"),
                  regs::pointer_offset(static_cast<regs::Pointer>(p), true));
        EXPECT_EQ(value("REG_" + name + "_ADDR32"),
                  regs::pointer_offset(static_cast<regs::Pointer>(p), false));
    }
    EXPECT_EQ(value("FINGERPRINT_WORDS"), kernel::kFingerprintWords);
    EXPECT_EQ(value("FINGERPRINT_MAGIC0"), kernel::kFingerprintMagic0);
    EXPECT_EQ(value("FINGERPRINT_MAGIC1"), kernel::kFingerprintMagic1);
    EXPECT_EQ(value("FP_TM"), kernel::kFpTm);
    EXPECT_EQ(value("FP_INT8_PAIRS"), kernel::kFpInt8Pairs);
    EXPECT_EQ(value("FP_UPSAMPLE_SHORTCUT"), kernel::kFpUpsampleShortcut);
}

}  // namespace
}  // namespace fpgacnn::test
