// The kernel build's fingerprint: what a bitstream was synthesised with (its maxima, data width,
// arithmetic contract version and whether it has the pair mode of 8-bit convolutions). A host reads it from
// the device itself with the identify command (op = kOpIdentify: the kernel writes kFingerprintWords int16
// words at output_offset of the feature-map arena and touches nothing else), so a plan made for other maxima
// is refused with a clear message instead of computing garbage. The xrt driver also finds it in the xclbin's
// metadata.
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn {
namespace kernel {

/// Layout version of the fingerprint words below.
static const int kFingerprintFormat = 1;

/// int16 words the identify command writes (a multiple of 16 elements = one 32-byte beat).
static const int kFingerprintWords = 16;

/// Word indices: a magic pair ("FC", "NN"), then the build's parameters.
enum FingerprintWord {
    kFpMagic0 = 0,  // 0x4643
    kFpMagic1 = 1,  // 0x4E4E
    kFpFormat = 2,
    kFpContract = 3,
    kFpDataBits = 4,
    kFpTm = 5,
    kFpTn = 6,
    kFpTr = 7,
    kFpTc = 8,
    kFpMaxK = 9,
    kFpMaxS = 10,
    kFpInt8Pairs = 11,  // 1: the build has the pair mode (FPGACNN_INT8_PAIRS); 0: it has not
    kFpPortBits = 12,   // data width of the word-wide masters (FPGACNN_PORT_BITS); 0 from older builds: 16
    /// 1: the build runs the upsample and shortcut ops (FPGACNN_UPSAMPLE_SHORTCUT, contract 7); 0: it has
    /// not (builds without them, the RTL twin, older builds), so hosts keep those layers on the CPU
    kFpUpsampleShortcut = 13,
};
static const int16_t kFingerprintMagic0 = 0x4643;
static const int16_t kFingerprintMagic1 = 0x4E4E;

/// The fingerprint of the build this translation unit sees (its -D maxima).
inline void fingerprint_words(int16_t words[kFingerprintWords]) {
    for (int i = 0; i < kFingerprintWords; ++i) words[i] = 0;
    words[kFpMagic0] = kFingerprintMagic0;
    words[kFpMagic1] = kFingerprintMagic1;
    words[kFpFormat] = static_cast<int16_t>(kFingerprintFormat);
    words[kFpContract] = static_cast<int16_t>(arith::kContractVersion);
    words[kFpDataBits] = static_cast<int16_t>(arith::kDataBits);
    words[kFpTm] = static_cast<int16_t>(kTm);
    words[kFpTn] = static_cast<int16_t>(kTn);
    words[kFpTr] = static_cast<int16_t>(kTr);
    words[kFpTc] = static_cast<int16_t>(kTc);
    words[kFpMaxK] = static_cast<int16_t>(kMaxK);
    words[kFpMaxS] = static_cast<int16_t>(kMaxS);
    words[kFpInt8Pairs] = static_cast<int16_t>(kInt8Pairs ? 1 : 0);
    words[kFpPortBits] = static_cast<int16_t>(kPortBits);
    words[kFpUpsampleShortcut] = static_cast<int16_t>(kUpsampleShortcut ? 1 : 0);
}

}  // namespace kernel
}  // namespace fpgacnn
