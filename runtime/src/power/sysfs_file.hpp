// Reading one number from a sysfs attribute with the reason when it cannot be read.
#pragma once

#include <string>

namespace fpgacnn::power_detail {

/// The integer in `path`; throws Error "path: permission denied (needs root)" and the like.
long long read_sysfs_integer(const std::string& path);
/// The first line of `path` without the newline; empty when unreadable.
std::string read_sysfs_text(const std::string& path);
/// `root` + an absolute sysfs path ("/" + "/sys/..." -> "/sys/...").
std::string under_root(const std::string& root, const std::string& path);

}  // namespace fpgacnn::power_detail
