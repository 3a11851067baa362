// Small attribute files (sysfs, procfs, and the trees tests build in their place), shared by the
// power readers and the uio driver: read whole, write whole, numbers in the formats the kernel
// prints ("0x38000000", "1048576"). Paths are joined under a root prefix so a test tree can stand
// in for /.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include "fpgacnn/export.hpp"

/// Small attribute files read and written whole, under a root prefix (see the top of this file).
namespace fpgacnn::sysfs {

/// root + "/" + path with one separator ("/" + "sys/class/uio" = "/sys/class/uio"; a root of ""
/// or "/" leaves an absolute path as it is).
FPGACNN_API std::string under_root(const std::string& root, const std::string& path);

/// The file's text without trailing newlines and spaces; nullopt when it cannot be read (errno
/// says why).
FPGACNN_API std::optional<std::string> read_attribute(const std::string& path);
/// Same, throwing Error "cannot read <path> (<what>): <reason>".
FPGACNN_API std::string require_attribute(const std::string& path, const std::string& what);
/// The decimal integer in `path`; throws Error "<path>: permission denied (needs root)" and the
/// like, or "<path>: not a number: '<text>'".
FPGACNN_API long long read_integer(const std::string& path);
/// Parses decimal or 0x-hex; throws Error naming the file on anything else.
FPGACNN_API std::uint64_t parse_number(const std::string& text, const std::string& path);
/// Writes `value` (sysfs semantics: one write of the whole value). Throws Error naming the file.
FPGACNN_API void write_attribute(const std::string& path, const std::string& value);

/// Whether `path` exists (stat succeeds: a file, folder or device node); never throws.
FPGACNN_API bool path_exists(const std::string& path);

}  // namespace fpgacnn::sysfs
