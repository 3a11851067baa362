// Splitting a --device value into its fields (options after colons, values after slashes), shared by
// the drivers' spec parsers.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace fpgacnn {

/// `text` cut at every `separator`; an empty field stays (so "a::b" and a trailing separator are seen
/// and refused by the parsers, not silently dropped).
inline std::vector<std::string> split_spec_fields(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream stream(text);
    while (std::getline(stream, part, separator)) parts.push_back(part);
    if (!text.empty() && text.back() == separator) parts.emplace_back();
    return parts;
}

}  // namespace fpgacnn
