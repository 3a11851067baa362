// The HLS build scripts cannot run here (no Xilinx tools), so this checks what can go stale without
// them: every file they name exists, they all name the top function that accel_top.cpp defines, the
// link configs map exactly the top's AXI master arguments, and the register map header follows the
// top function's argument order.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fpgacnn/kernel/register_map.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

namespace fs = std::filesystem;

fs::path kernels_dir() { return fs::path(source_dir()) / "kernels"; }

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "cannot read " << path;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> all_matches(const std::string& text, const std::string& pattern, int group = 1) {
    std::vector<std::string> found;
    const std::regex re(pattern);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        found.push_back((*it)[group].str());
    return found;
}

struct TopSignature {
    std::string name;
    std::vector<std::string> parameters;  // in order
    std::vector<std::string> pointers;    // the parameters declared as pointers
};

TopSignature parse_top() {
    const std::string source = read_text(kernels_dir() / "src" / "accel_top.cpp");
    std::smatch m;
    TopSignature top;
    const std::regex signature(R"re(extern\s+"C"\s+void\s+(\w+)\s*\(([^)]*)\))re");
    if (!std::regex_search(source, m, signature)) return top;
    top.name = m[1].str();
    const std::string params = m[2].str();
    for (const std::string& p : all_matches(params, R"(([^,]+))")) {
        const std::vector<std::string> words = all_matches(p, R"((\w+)\s*$)");
        if (words.empty()) continue;
        top.parameters.push_back(words.back());
        if (p.find('*') != std::string::npos) top.pointers.push_back(words.back());
    }
    return top;
}

const std::vector<std::string> kScripts = {
    "hls/vitis/Makefile",   "hls/vitis/compile.cfg",   "hls/vitis/u50.cfg",          "hls/vitis/u250.cfg",
    "hls/vitis/zcu104.cfg", "hls/vivado/build_ip.tcl", "hls/vivado/block_design.tcl"};

TEST(HlsScripts, TopFunctionIsTheAcceleratorEntryPoint) {
    const TopSignature top = parse_top();
    EXPECT_EQ(top.name, "fpgacnn_accel");
    EXPECT_EQ(top.pointers,
              (std::vector<std::string>{"fm_read", "fm_write", "params", "fm8_read", "fm8_write"}));
}

TEST(HlsScripts, EveryNamedFileExists) {
    int named = 0;
    for (const std::string& script : kScripts) {
        const fs::path path = kernels_dir() / script;
        ASSERT_TRUE(fs::exists(path)) << path;
        const std::string text = read_text(path);
        // Paths are written relative to the script's directory (Tcl: $here/...).
        for (std::string file :
             all_matches(text, R"(((?:\$here/)?(?:\.\./)*[A-Za-z0-9_/.-]*\.(?:cpp|hpp|cfg|tcl))\b)")) {
            if (file.rfind("$here/", 0) == 0) file = file.substr(6);
            if (file.find('/') == std::string::npos && file.rfind("fpgacnn", 0) != 0 &&
                fs::path(file).extension() != ".cfg") {
                continue;  // a bare word such as a generated file name, not an input
            }
            ++named;
            // Usage comments name files from the repository root ("kernels/hls/...").
            const fs::path base =
                file.rfind("kernels/", 0) == 0 ? fs::path(source_dir()) : path.parent_path();
            EXPECT_TRUE(fs::exists(base / file)) << script << " names " << file << ", which does not exist";
        }
    }
    EXPECT_GE(named, 8) << "the scripts should name the kernel source, the testbench and the configs";
}

TEST(HlsScripts, ScriptsNameTheTopFunction) {
    const std::string top = parse_top().name;
    ASSERT_FALSE(top.empty());
    EXPECT_NE(read_text(kernels_dir() / "hls/vitis/Makefile").find("TOP := " + top), std::string::npos);
    EXPECT_NE(read_text(kernels_dir() / "hls/vitis/compile.cfg").find("kernel=" + top), std::string::npos);
    EXPECT_NE(read_text(kernels_dir() / "hls/vitis/compile.cfg").find(":" + top), std::string::npos);
    EXPECT_NE(read_text(kernels_dir() / "hls/vivado/build_ip.tcl").find("set_top " + top), std::string::npos);
    EXPECT_NE(read_text(kernels_dir() / "hls/vivado/build_ip.tcl").find("src/accel_top.cpp"),
              std::string::npos);
    EXPECT_NE(read_text(kernels_dir() / "hls/vivado/block_design.tcl").find(":" + top + ":"),
              std::string::npos);
    EXPECT_NE(read_text(kernels_dir() / "hls/vitis/Makefile").find("../../src/accel_top.cpp"),
              std::string::npos);
}

TEST(HlsScripts, LinkConfigsConnectExactlyTheTopsAxiMasters) {
    const TopSignature top = parse_top();
    const std::set<std::string> pointers(top.pointers.begin(), top.pointers.end());
    for (const char* cfg : {"hls/vitis/u50.cfg", "hls/vitis/u250.cfg", "hls/vitis/zcu104.cfg"}) {
        const std::string text = read_text(kernels_dir() / cfg);
        EXPECT_EQ(all_matches(text, R"(nk=(\w+):)"), std::vector<std::string>{top.name}) << cfg;
        const std::vector<std::string> mapped = all_matches(text, R"(sp=\w+\.(\w+):)");
        EXPECT_EQ(std::set<std::string>(mapped.begin(), mapped.end()), pointers) << cfg;
        EXPECT_EQ(mapped.size(), pointers.size()) << cfg << " maps an argument twice";
    }
    // The block design wires each master by its bundle name.
    const std::string bd = read_text(kernels_dir() / "hls/vivado/block_design.tcl");
    for (const std::string& p : top.pointers) EXPECT_NE(bd.find("m_axi_gmem_" + p), std::string::npos) << p;
}

TEST(HlsScripts, EveryArgumentHasItsInterfacePragma) {
    const std::string source = read_text(kernels_dir() / "src" / "accel_top.cpp");
    const TopSignature top = parse_top();
    for (const std::string& p : top.parameters) {
        EXPECT_NE(source.find("s_axilite port = " + p + " bundle = control"), std::string::npos) << p;
    }
    for (const std::string& p : top.pointers) {
        EXPECT_NE(source.find("m_axi port = " + p + " offset = slave bundle = gmem_" + p), std::string::npos)
            << p;
    }
    EXPECT_NE(source.find("s_axilite port = return bundle = control"), std::string::npos);
}

TEST(RegisterMap, FollowsTheTopFunctionsArgumentOrder) {
    const TopSignature top = parse_top();
    ASSERT_EQ(top.parameters.size(),
              static_cast<std::size_t>(kernel::kCommandWords + kernel::regs::kPointerCount));
    for (int i = 0; i < kernel::kCommandWords; ++i) {
        EXPECT_EQ(top.parameters[i], kernel::regs::kCommandNames[i]) << "argument " << i;
        EXPECT_EQ(kernel::regs::kCommandOffsets[i], kernel::regs::kFirstArgument + 8u * i)
            << "argument " << i;
    }
    for (int i = 0; i < kernel::regs::kPointerCount; ++i) {
        EXPECT_EQ(top.parameters[kernel::kCommandWords + i], kernel::regs::kPointerNames[i]);
    }
    EXPECT_EQ(kernel::kCommandWords, 24);
    EXPECT_EQ(kernel::regs::kOutputBits, 0xA8u);
    EXPECT_EQ(kernel::regs::kWeightBits, 0xB0u);
    EXPECT_EQ(kernel::regs::kInputBits, 0xB8u);
    EXPECT_EQ(kernel::regs::kErrorOffset, 0xC0u);
    EXPECT_EQ(kernel::regs::kBatch, 0xC8u);
    EXPECT_EQ(kernel::regs::kCommandOffsets[kernel::kCommandWords - 3], kernel::regs::kInputBits);
    EXPECT_EQ(kernel::regs::kCommandOffsets[kernel::kCommandWords - 2], kernel::regs::kErrorOffset);
    EXPECT_EQ(kernel::regs::kCommandOffsets[kernel::kCommandWords - 1], kernel::regs::kBatch);
    // Contract 6's two training registers follow the scalars, so the pointers moved up by 0x10.
    using kernel::regs::pointer_offset;
    EXPECT_EQ(pointer_offset(kernel::regs::kFmRead, true), 0xD0u);
    EXPECT_EQ(pointer_offset(kernel::regs::kFmWrite, true), 0xDCu);
    EXPECT_EQ(pointer_offset(kernel::regs::kParams, true), 0xE8u);
    EXPECT_EQ(pointer_offset(kernel::regs::kFmRead, false), 0xD0u);
    EXPECT_EQ(pointer_offset(kernel::regs::kFmWrite, false), 0xD8u);
    EXPECT_EQ(pointer_offset(kernel::regs::kParams, false), 0xE0u);
    EXPECT_EQ(pointer_offset(kernel::regs::kFm8Read, true), 0xF4u);
    EXPECT_EQ(pointer_offset(kernel::regs::kFm8Write, true), 0x100u);
    EXPECT_EQ(pointer_offset(kernel::regs::kFm8Read, false), 0xE8u);
    EXPECT_EQ(pointer_offset(kernel::regs::kFm8Write, false), 0xF0u);
    EXPECT_EQ(kernel::regs::register_space_bytes(true), 0x200u);
    EXPECT_EQ(kernel::regs::register_space_bytes(false), 0x100u);
}

TEST(RegisterMap, CommandWordsRoundTripInFieldOrder) {
    static_assert(sizeof(kernel::LayerCommand) == kernel::kCommandWords * sizeof(uint32_t));
    kernel::LayerCommand distinct{};
    distinct.op = 1, distinct.input_offset = 2, distinct.output_offset = 3, distinct.weight_offset = 4;
    distinct.bias_offset = 5, distinct.in_c = 6, distinct.in_h = 7, distinct.in_w = 8, distinct.out_c = 9;
    distinct.out_h = 10, distinct.out_w = 11, distinct.kernel_size = 12, distinct.stride = 13,
    distinct.pad = 14;
    distinct.leaky = 15, distinct.bias_shift = 16, distinct.output_shift = -17, distinct.tile_rows = 18;
    distinct.tile_cols = 19, distinct.output_bits = 20, distinct.weight_bits = 21, distinct.input_bits = 22;
    distinct.error_offset = 23, distinct.batch = 24;
    uint32_t words[kernel::kCommandWords];
    kernel::regs::command_words(distinct, words);
    for (int i = 0; i < kernel::kCommandWords; ++i) {
        EXPECT_EQ(words[i], i == 16 ? static_cast<uint32_t>(-17) : static_cast<uint32_t>(i + 1)) << i;
    }
    const kernel::LayerCommand back = kernel::regs::command_from_words(words);
    uint32_t again[kernel::kCommandWords];
    kernel::regs::command_words(back, again);
    EXPECT_TRUE(std::equal(words, words + kernel::kCommandWords, again));
    EXPECT_EQ(back.output_shift, -17);
    EXPECT_EQ(back.tile_cols, 19u);
    EXPECT_EQ(back.output_bits, 20u);
    EXPECT_EQ(back.weight_bits, 21u);
    EXPECT_EQ(back.input_bits, 22u);
    EXPECT_EQ(back.error_offset, 23u);
    EXPECT_EQ(back.batch, 24u);
}

}  // namespace
}  // namespace fpgacnn::test
