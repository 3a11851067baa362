// The accelerator's compile-time maxima: the parallelism (Tm x Tn multipliers) and the on-chip
// buffer sizes (Tr x Tc output tiles, kernel size and stride). A bitstream is built for one set;
// the planner tiles every layer to fit it and re-orders the weights for its Tm x Tn.
// Override with -D macros (e.g. -DFPGACNN_TM=16 -DFPGACNN_TN=8) to build another variant; the HLS
// scripts pass the same macros to the HLS compiler. One mode is a build choice too: the pair mode of
// 8-bit convolutions (FPGACNN_INT8_PAIRS).
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/export.hpp"

// The reference build: what the macros default to and what a default Maxima holds.
#define FPGACNN_REFERENCE_TM 32    // output maps computed in parallel (adder trees)
#define FPGACNN_REFERENCE_TN 4     // input maps per adder tree
#define FPGACNN_REFERENCE_TR 26    // output rows per tile
#define FPGACNN_REFERENCE_TC 26    // output columns per tile
#define FPGACNN_REFERENCE_MAX_K 3  // largest conv / pool window
#define FPGACNN_REFERENCE_MAX_S 2  // largest stride
// The pair mode of 8-bit convolutions (conv_layer.hpp conv_compute_pairs: two MACs per multiplier).
// 0 leaves its logic out of a bitstream for int16-only models or a DSP whose pre-adder is too narrow
// for the packed operand (arith::kPairOperandBits); 8-bit layers then take one MAC per multiplier
// and compute the same bits.
#define FPGACNN_REFERENCE_INT8_PAIRS 1
// Data width of the word-wide AXI masters (fm_read, fm_write, params) in bits: 16 moves one int16 a
// beat, 64 four. The byte-wide masters of 8-bit tensors (fm8_read, fm8_write) are half as wide, so
// every feature-map master moves kPortBits / 16 elements a beat at either storage width. A power of
// two from 16 to 128. Only the cycles depend on it: the arena layout, the commands and the results
// are the same at every width (rows may start and end anywhere inside a beat).
#define FPGACNN_REFERENCE_PORT_BITS 16
// The upsample and shortcut ops (contract 7: kOpUpsample, kOpShortcut; upsample_shortcut_layer.hpp).
// 0 leaves them out of a build; hosts then run those layers on the CPU between the device's commands
// (the fingerprint tells them), as they do for a build that predates them.
#define FPGACNN_REFERENCE_UPSAMPLE_SHORTCUT 1

#ifndef FPGACNN_TM
#define FPGACNN_TM FPGACNN_REFERENCE_TM
#endif
#ifndef FPGACNN_TN
#define FPGACNN_TN FPGACNN_REFERENCE_TN
#endif
#ifndef FPGACNN_TR
#define FPGACNN_TR FPGACNN_REFERENCE_TR
#endif
#ifndef FPGACNN_TC
#define FPGACNN_TC FPGACNN_REFERENCE_TC
#endif
#ifndef FPGACNN_MAX_K
#define FPGACNN_MAX_K FPGACNN_REFERENCE_MAX_K
#endif
#ifndef FPGACNN_MAX_S
#define FPGACNN_MAX_S FPGACNN_REFERENCE_MAX_S
#endif
#ifndef FPGACNN_INT8_PAIRS
#define FPGACNN_INT8_PAIRS FPGACNN_REFERENCE_INT8_PAIRS
#endif
#ifndef FPGACNN_PORT_BITS
#define FPGACNN_PORT_BITS FPGACNN_REFERENCE_PORT_BITS
#endif
#ifndef FPGACNN_UPSAMPLE_SHORTCUT
#define FPGACNN_UPSAMPLE_SHORTCUT FPGACNN_REFERENCE_UPSAMPLE_SHORTCUT
#endif

namespace fpgacnn {
/// The accelerator kernel as host and HLS source share it (kernels/include): the build's maxima, the
/// layer command and its checks, the weight layout, the fingerprint and the register map.
namespace kernel {

/// This translation unit's build (the FPGACNN_* macros above): output channels computed in parallel (Tm).
static const int kTm = FPGACNN_TM;
/// Input channels computed in parallel (Tn).
static const int kTn = FPGACNN_TN;
/// Output rows per tile, at most (Tr).
static const int kTr = FPGACNN_TR;
/// Output columns per tile, at most (Tc).
static const int kTc = FPGACNN_TC;
/// Largest conv / maxpool window K.
static const int kMaxK = FPGACNN_MAX_K;
/// Largest stride S.
static const int kMaxS = FPGACNN_MAX_S;
/// The build has the pair mode of 8-bit convolutions (FPGACNN_INT8_PAIRS).
static const bool kInt8Pairs = FPGACNN_INT8_PAIRS != 0;
/// Data width of the word-wide AXI masters, bits (FPGACNN_PORT_BITS).
static const int kPortBits = FPGACNN_PORT_BITS;
/// The build runs the upsample and shortcut ops (FPGACNN_UPSAMPLE_SHORTCUT).
static const bool kUpsampleShortcut = FPGACNN_UPSAMPLE_SHORTCUT != 0;
/// Feature-map elements one beat of a feature-map master carries (either storage width).
static const int kPortElements = kPortBits / 16;
static_assert(kPortBits >= 16 && kPortBits <= 128 && (kPortBits & (kPortBits - 1)) == 0,
              "FPGACNN_PORT_BITS is a power of two from 16 to 128");

/// The input tile that an output tile of Tr x Tc needs at the largest stride and window (the halo).
static const int kInputTileRows = (kTr - 1) * kMaxS + kMaxK;
/// Columns of that input tile (see kInputTileRows).
static const int kInputTileCols = (kTc - 1) * kMaxS + kMaxK;

/// Largest height / width / channel count a command may carry (keeps every on-chip index in 16 bits
/// and every address computation far from 32-bit overflow).
static const int kMaxDimension = 8192;
/// Largest channel count a command may carry (see kMaxDimension).
static const int kMaxChannels = 32768;

/// The maxima of one kernel build as plain data: what a bitstream's fingerprint reports, what the
/// planner tiles for and what the drivers check commands against (the host's KernelMaxima), and its
/// one mode. Default: the reference build.
struct Maxima {
    int tm = FPGACNN_REFERENCE_TM;             ///< Tm: output channels computed in parallel
    int tn = FPGACNN_REFERENCE_TN;             ///< Tn: input channels computed in parallel
    int tr = FPGACNN_REFERENCE_TR;             ///< Tr: output rows per tile, at most
    int tc = FPGACNN_REFERENCE_TC;             ///< Tc: output columns per tile, at most
    int max_kernel = FPGACNN_REFERENCE_MAX_K;  ///< largest conv / maxpool window K
    int max_stride = FPGACNN_REFERENCE_MAX_S;  ///< largest stride S
    /// The build has the pair mode (FPGACNN_INT8_PAIRS): only the planner's cycle counts depend on it,
    /// never a command, a tile or a result.
    bool int8_pairs = FPGACNN_REFERENCE_INT8_PAIRS != 0;
    /// Data width of the word-wide masters (FPGACNN_PORT_BITS): like int8_pairs, only the planner's
    /// cycle counts depend on it.
    int port_bits = FPGACNN_REFERENCE_PORT_BITS;
    /// The build runs the upsample and shortcut ops (FPGACNN_UPSAMPLE_SHORTCUT, contract 7): the planner
    /// puts those layers on the device only then, else on the host between the device's commands.
    bool upsample_shortcut = FPGACNN_REFERENCE_UPSAMPLE_SHORTCUT != 0;
};

/// The maxima this translation unit is compiled with (its FPGACNN_* values): what the kernel code
/// enforces. Hosts ask native_build_maxima() instead.
inline Maxima compiled_maxima() {
    Maxima m;
    m.tm = kTm, m.tn = kTn, m.tr = kTr, m.tc = kTc;
    m.max_kernel = kMaxK, m.max_stride = kMaxS;
    m.int8_pairs = kInt8Pairs;
    m.port_bits = kPortBits;
    m.upsample_shortcut = kUpsampleShortcut;
    return m;
}

/// The maxima the native kernel object (fpgacnn_kernel, used by the emu device) was compiled with.
/// Defined out of line so that a translation unit built with other -D values cannot disagree.
FPGACNN_API Maxima native_build_maxima();

}  // namespace kernel
}  // namespace fpgacnn
