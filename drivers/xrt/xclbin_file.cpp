#include "xrt/xclbin_file.hpp"

#include <xrt/xclbin.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "fpgacnn/error.hpp"

namespace fpgacnn::xrt_driver {

namespace {

const axlf& top_of(const std::vector<char>& bytes) { return *reinterpret_cast<const axlf*>(bytes.data()); }

const axlf_section_header& section_header(const std::vector<char>& bytes, std::uint32_t i) {
    return *reinterpret_cast<const axlf_section_header*>(bytes.data() + offsetof(axlf, m_sections) +
                                                         i * sizeof(axlf_section_header));
}

/// Thrown for every structural defect: names the file, the defect and the fix.
[[noreturn]] void invalid(const std::string& path, const std::string& defect) {
    throw DeviceError("xclbin '" + path + "' is not a valid xclbin: " + defect +
                      "; rebuild it with kernels/hls/vitis/Makefile or copy it again");
}

[[noreturn]] void section_outside(const std::string& path, std::uint32_t index, std::uint32_t kind) {
    invalid(path, "section " + std::to_string(index) + " (kind " + std::to_string(kind) +
                      ") lies outside the file");
}

[[noreturn]] void table_overflow(const std::string& path, const char* table, std::int32_t count,
                                 std::size_t bytes) {
    invalid(path, std::string("its ") + table + " section claims " + std::to_string(count) +
                      " entries but has " + std::to_string(bytes) + " bytes");
}

}  // namespace

XclbinFile::XclbinFile(const std::string& path) : path_(path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw DeviceError("xclbin '" + path + "': cannot open it (" + std::strerror(errno) +
                          "); give xrt:<device>@<path.xclbin> or set FPGACNN_XCLBIN to the file built by "
                          "kernels/hls/vitis/Makefile");
    }
    bytes_.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (bytes_.size() < sizeof(axlf) || std::memcmp(bytes_.data(), "xclbin2", 8) != 0) {
        invalid(path, "no 'xclbin2' header (" + std::to_string(bytes_.size()) + " bytes)");
    }
    const axlf& top = top_of(bytes_);
    if (top.m_header.m_length != bytes_.size()) {
        invalid(path, "its header says " + std::to_string(top.m_header.m_length) +
                          " bytes but the file has " + std::to_string(bytes_.size()) +
                          " (truncated or corrupt)");
    }
    const std::uint64_t sections = top.m_header.m_numSections;
    const std::uint64_t table_end = offsetof(axlf, m_sections) + sections * sizeof(axlf_section_header);
    if (sections == 0 || sections > XCLBIN_MAX_NUM_SECTION || table_end > bytes_.size()) {
        invalid(path, "implausible section count " + std::to_string(sections));
    }
    for (std::uint32_t i = 0; i < sections; ++i) {
        const axlf_section_header& h = section_header(bytes_, i);
        if (h.m_sectionOffset > bytes_.size() || h.m_sectionSize > bytes_.size() - h.m_sectionOffset) {
            section_outside(path, i, h.m_sectionKind);
        }
    }
    // XRT indexes these tables by their count without checking it against the section size.
    struct Table {
        std::uint32_t kind;
        const char* name;
        std::size_t array_offset;
        std::size_t record;
    };
    const Table tables[] = {
        {IP_LAYOUT, "IP_LAYOUT", offsetof(ip_layout, m_ip_data), sizeof(ip_data)},
        {MEM_TOPOLOGY, "MEM_TOPOLOGY", offsetof(mem_topology, m_mem_data), sizeof(mem_data)},
        {CONNECTIVITY, "CONNECTIVITY", offsetof(connectivity, m_connection), sizeof(connection)}};
    for (const Table& t : tables) {
        const std::optional<std::string> payload = section(t.kind);
        if (!payload) continue;
        std::int32_t count = -1;
        if (payload->size() >= sizeof(count)) std::memcpy(&count, payload->data(), sizeof(count));
        if (count < 0 || t.array_offset + static_cast<std::size_t>(count) * t.record > payload->size()) {
            table_overflow(path, t.name, count, payload->size());
        }
    }
}

std::optional<std::string> XclbinFile::section(std::uint32_t kind) const {
    const axlf& top = top_of(bytes_);
    for (std::uint32_t i = 0; i < top.m_header.m_numSections; ++i) {
        const axlf_section_header& h = section_header(bytes_, i);
        if (h.m_sectionKind != kind) continue;
        const char* begin = bytes_.data() + h.m_sectionOffset;
        std::string payload(begin, begin + h.m_sectionSize);
        return payload;
    }
    return std::nullopt;
}

}  // namespace fpgacnn::xrt_driver
