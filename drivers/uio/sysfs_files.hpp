// Small attribute files (sysfs, procfs, their simulated twins): read whole, write whole, numbers in
// the formats the kernel prints ("0x38000000", "1048576"). Paths are joined under a root prefix so
// a test tree can stand in for /.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fpgacnn::uio {

/// root + "/" + path with one separator ("/" + "sys/class/uio" = "/sys/class/uio").
std::string under_root(const std::string& root, const std::string& path);

/// The file's text without the trailing newline; nullopt when it cannot be read.
std::optional<std::string> read_attribute(const std::string& path);
/// Same, throwing Error naming the file and `what` it is for.
std::string require_attribute(const std::string& path, const std::string& what);
/// Parses decimal or 0x-hex; throws Error naming the file on anything else.
std::uint64_t parse_number(const std::string& text, const std::string& path);
/// Writes `value` (sysfs semantics: one write of the whole value). Throws Error naming the file.
void write_attribute(const std::string& path, const std::string& value);

bool path_exists(const std::string& path);

}  // namespace fpgacnn::uio
