// FPGACNN_API marks what libfpgacnn exports: the library is compiled with -fvisibility=hidden and
// -fvisibility-inlines-hidden, so only declarations carrying this macro (classes, free functions and
// global variables of the installed headers) are in its dynamic symbol table. The rule for applying
// it: docs/api-stability.md, "Exported symbols". Defined here, with the kernel's headers, because the
// installed kernel headers declare a few functions libfpgacnn exports and must not include the runtime's
// headers (the HLS flows compile kernels/ alone); fpgacnn/export.hpp includes this file.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define FPGACNN_API __attribute__((visibility("default")))
#else
#define FPGACNN_API
#endif
