// FPGACNN_API, the export macro of libfpgacnn's public API (docs/api-stability.md, "Exported
// symbols"); defined with the kernel's headers, which use it too.
#pragma once

#include "fpgacnn/kernel/export.hpp"
