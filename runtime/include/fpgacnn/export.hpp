// FPGACNN_API, the export macro of libfpgacnn's public API (docs/api-stability.md, "Exported
// symbols"); defined with the kernel's headers, which use it too.
#pragma once

#include "fpgacnn/kernel/export.hpp"

/// \namespace fpgacnn
/// libfpgacnn's public API: everything the installed headers declare in this namespace and the ones
/// inside it (docs/api-stability.md says what is public and what its versions promise). Start with
/// fpgacnn::Detector (fpgacnn/detector.hpp).
