// libFuzzer harness: the quantized model file reader (envelope, layer table, parameters and the
// arithmetic contract) on the harness network (tests/fuzz/data/tiny.cfg), cfg only so the weights
// fingerprint is not what stops every input. When the input's first byte is even the harness fixes
// the size field and the checksum trailer first, so mutations reach the checks behind them.
#include <cstdint>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "fuzz_support.hpp"

namespace {

// quantized_file_layout.hpp: u64 file size at byte 16, FNV-1a 64 of the rest in the last 8 bytes.
void reseal(std::vector<std::uint8_t>& bytes) {
    constexpr std::size_t kHeader = 56;
    if (bytes.size() < kHeader + 8) return;
    const std::uint64_t size = bytes.size();
    for (int i = 0; i < 8; ++i) bytes[16 + i] = static_cast<std::uint8_t>(size >> (8 * i));
    std::uint64_t hash = 14695981039346656037ull;
    for (std::size_t i = 0; i + 8 < bytes.size(); ++i) {
        hash ^= bytes[i];
        hash *= 1099511628211ull;
    }
    for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<std::uint8_t>(hash >> (8 * i));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fpgacnn::fuzz::setup_process();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fpgacnn::fuzz::FileHarness& harness = fpgacnn::fuzz::file_harness();
    std::vector<std::uint8_t> bytes(data, data + size);
    if (size > 0 && data[0] % 2 == 0) reseal(bytes);
    try {
        const fpgacnn::QuantizedNetwork loaded =
            fpgacnn::load_quantized_network(harness.file.hold(bytes.data(), bytes.size()), harness.cfg_only);
        fpgacnn::validate_quantized_network(loaded, "fuzz");  // what loaded must pass again
    } catch (const fpgacnn::Error&) {
    }
    return 0;
}
