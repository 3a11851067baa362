// Helpers shared by the model tests: writing small cfg/weights files and catching error messages.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fpgacnn/error.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

/// A small but complete YOLOv2-style cfg: conv (BN, leaky) -> maxpool -> conv (linear) -> region.
/// Line numbers matter to the tests: [convolutional] is on line 6, [maxpool] on 15,
/// the second [convolutional] on 19, [region] on 24.
inline const char* small_cfg_text() {
    return "[net]\n"              // 1
           "width=32\n"           // 2
           "height=32\n"          // 3
           "channels=3\n"         // 4
           "\n"                   // 5
           "[convolutional]\n"    // 6
           "batch_normalize=1\n"  // 7
           "filters=8\n"          // 8
           "size=3\n"             // 9
           "stride=1\n"           // 10
           "pad=1\n"              // 11
           "activation=leaky\n"   // 12
           "\n"                   // 13
           "# pool\n"             // 14
           "[maxpool]\n"          // 15
           "size=2\n"             // 16
           "stride=2\n"           // 17
           "\n"                   // 18
           "[convolutional]\n"    // 19
           "filters=30\n"         // 20
           "size=1\n"             // 21
           "activation=linear\n"  // 22
           "\n"                   // 23
           "[region]\n"           // 24
           "anchors = 1,1, 2,2, 3,3, 4,4, 5,5\n"
           "classes=1\n"
           "coords=4\n"
           "num=5\n"
           "softmax=1\n";
}

inline std::string write_text_file(const std::string& dir, const std::string& name, const std::string& text) {
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

inline void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<unsigned char> read_bytes(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

inline void append_u32(std::vector<unsigned char>& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(value >> (8 * i)));
}

inline void append_float(std::vector<unsigned char>& out, float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    append_u32(out, bits);
}

/// Runs `action` and returns the fpgacnn::Error message it throws ("<no error>" if none).
template <typename Action>
std::string error_message(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return "<no error>";
}

}  // namespace fpgacnn::test
