// Reading an .xclbin file defensively before XRT sees it: XRT trusts the section table, so a
// truncated or corrupt file would make it read past the buffer. XclbinFile checks the axlf header
// and every section's bounds, and finds sections by kind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fpgacnn::xrt_driver {

class XclbinFile {
public:
    /// Reads and validates `path`; throws Error naming the file and what is wrong with it.
    explicit XclbinFile(const std::string& path);

    const std::string& path() const { return path_; }
    const std::vector<char>& bytes() const { return bytes_; }
    /// The payload of the first section of `kind` (axlf_section_kind), if any.
    std::optional<std::string> section(std::uint32_t kind) const;

private:
    std::string path_;
    std::vector<char> bytes_;
};

}  // namespace fpgacnn::xrt_driver
