// Checks of the tools' output paths (--output, --dump-layers, --dump-region, --csv, --plot, --out),
// run after the command line is parsed and before any model loads, so a typo or an unwritable folder
// is reported at once and not after minutes of loading or calibration. Exit codes (exit_codes.hpp):
// a path that can never be an output is a CommandLineError (2); a folder we cannot write is an Error (1).
#pragma once

#include <string>

namespace fpgacnn::apps {

/// A file output written to a temporary sibling and renamed: its folder must exist and be writable,
/// and the path must not be a folder or a non-regular file (the rename would replace a device or FIFO).
void check_output_file(const std::string& path, const std::string& flag);

/// A folder output, created when missing: the path must not be a file, and the closest existing
/// folder on its way must be writable.
void check_output_folder(const std::string& path, const std::string& flag);

}  // namespace fpgacnn::apps
