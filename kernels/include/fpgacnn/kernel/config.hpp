// The accelerator's compile-time maxima: the parallelism (Tm x Tn multipliers) and the on-chip
// buffer sizes (Tr x Tc output tiles, kernel size and stride). A bitstream is built for one set;
// the planner tiles every layer to fit it and re-orders the weights for its Tm x Tn.
// Override with -D macros (e.g. -DFPGACNN_TM=16 -DFPGACNN_TN=8) to build another variant; the HLS
// scripts pass the same macros to the HLS compiler.
#pragma once

#include <stdint.h>

#ifndef FPGACNN_TM
#define FPGACNN_TM 32  // output maps computed in parallel (adder trees)
#endif
#ifndef FPGACNN_TN
#define FPGACNN_TN 4  // input maps per adder tree
#endif
#ifndef FPGACNN_TR
#define FPGACNN_TR 26  // output rows per tile
#endif
#ifndef FPGACNN_TC
#define FPGACNN_TC 26  // output columns per tile
#endif
#ifndef FPGACNN_MAX_K
#define FPGACNN_MAX_K 3  // largest conv / pool window
#endif
#ifndef FPGACNN_MAX_S
#define FPGACNN_MAX_S 2  // largest stride
#endif

namespace fpgacnn {
namespace kernel {

static const int kTm = FPGACNN_TM;
static const int kTn = FPGACNN_TN;
static const int kTr = FPGACNN_TR;
static const int kTc = FPGACNN_TC;
static const int kMaxK = FPGACNN_MAX_K;
static const int kMaxS = FPGACNN_MAX_S;

/// The input tile that an output tile of Tr x Tc needs at the largest stride and window (the halo).
static const int kInputTileRows = (kTr - 1) * kMaxS + kMaxK;
static const int kInputTileCols = (kTc - 1) * kMaxS + kMaxK;

/// Largest height / width / channel count a command may carry (keeps every on-chip index in 16 bits
/// and every address computation far from 32-bit overflow).
static const int kMaxDimension = 8192;
static const int kMaxChannels = 32768;

/// Shift limits: round_shift() and the leaky product stay exact in int64 within these.
static const int kMaxBiasShift = 30;
static const int kMinOutputShift = -16;
static const int kMaxOutputShift = 46;

/// The maxima as plain data, for hosts that must match a bitstream or the emu build.
struct Maxima {
    int tm;
    int tn;
    int tr;
    int tc;
    int max_kernel;
    int max_stride;
};

/// The maxima the native kernel object (fpgacnn_kernel, used by the emu device) was compiled with.
/// Defined out of line so that a translation unit built with other -D values cannot disagree.
Maxima native_build_maxima();

}  // namespace kernel
}  // namespace fpgacnn
