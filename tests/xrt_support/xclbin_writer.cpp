// The axlf container, section by section. Layout (xclbin.h): struct axlf (magic, header, the first
// section header), the remaining section headers, then each section's bytes at an 8-byte aligned
// file offset.
#include "xclbin_writer.hpp"

#include <xrt/xclbin.h>

#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "fpgacnn/kernel/register_map.hpp"

namespace fpgacnn::test {

namespace {

namespace regs = kernel::regs;

constexpr std::uint64_t kFirstCuAddress = 0x1800000;
constexpr std::uint64_t kCuAddressStride = 0x10000;
constexpr std::uint64_t kBankKilobytes = 256 * 1024;  // 256 MiB per bank
constexpr std::uint64_t kBankAddressStride = 0x10000000;
constexpr int kPortDataBits = 256;  // the kernel's AXI master width (kernels/, 16 int16 lanes)

std::string cu_name(const XclbinSpec& spec, int cu) {
    return spec.kernel_name + "_" + std::to_string(cu + 1);
}

std::string hex(std::uint64_t value) {
    std::ostringstream s;
    s << "0x" << std::hex << value;
    return s.str();
}

template <typename T>
void append_raw(std::vector<char>& out, const T& value) {
    const auto* bytes = reinterpret_cast<const char*>(&value);
    out.insert(out.end(), bytes, bytes + sizeof(T));
}

void copy_name(unsigned char* dst, std::size_t capacity, const std::string& name) {
    if (name.size() >= capacity) throw std::runtime_error("xclbin writer: name too long: " + name);
    std::memcpy(dst, name.c_str(), name.size() + 1);
}

/// A section of `count` fixed-size records after an int32 count (ip_layout, mem_topology,
/// connectivity all share this shape: the record array starts at the struct's 8-byte aligned offset).
template <typename Record>
std::vector<char> counted_section(const std::vector<Record>& records, std::size_t array_offset) {
    std::vector<char> out(array_offset, 0);
    const auto count = static_cast<std::int32_t>(records.size());
    std::memcpy(out.data(), &count, sizeof(count));
    for (const Record& r : records) append_raw(out, r);
    return out;
}

std::vector<char> ip_layout_section(const XclbinSpec& spec) {
    std::vector<ip_data> ips;
    for (int cu = 0; cu < spec.compute_units; ++cu) {
        ip_data ip{};
        ip.m_type = IP_KERNEL;
        // interrupt enabled, interrupt id = cu, ap_ctrl_hs
        ip.properties = IP_INT_ENABLE_MASK |
                        ((static_cast<std::uint32_t>(cu) << IP_INTERRUPT_ID_SHIFT) & IP_INTERRUPT_ID_MASK) |
                        (static_cast<std::uint32_t>(AP_CTRL_HS) << IP_CONTROL_SHIFT);
        ip.m_base_address = kFirstCuAddress + kCuAddressStride * static_cast<std::uint64_t>(cu);
        copy_name(ip.m_name, sizeof(ip.m_name), spec.kernel_name + ":" + cu_name(spec, cu));
        ips.push_back(ip);
    }
    return counted_section(ips, offsetof(ip_layout, m_ip_data));
}

std::vector<char> mem_topology_section(const XclbinSpec& spec) {
    std::vector<mem_data> mems;
    for (std::size_t i = 0; i < spec.banks.size(); ++i) {
        mem_data m{};
        m.m_type = spec.banks[i].rfind("HBM", 0) == 0 ? MEM_HBM : MEM_DDR4;
        m.m_used = 1;
        m.m_size = kBankKilobytes;
        m.m_base_address = kBankAddressStride * i;
        copy_name(m.m_tag, sizeof(m.m_tag), spec.banks[i]);
        mems.push_back(m);
    }
    return counted_section(mems, offsetof(mem_topology, m_mem_data));
}

std::vector<char> connectivity_section(const XclbinSpec& spec) {
    std::vector<connection> links;
    for (int cu = 0; cu < spec.compute_units; ++cu) {
        for (int p = 0; p < regs::kPointerCount; ++p) {
            connection c{};
            c.arg_index = kernel::kCommandWords + p;
            c.m_ip_layout_index = cu;
            c.mem_data_index = p == regs::kParams ? spec.parameter_bank : spec.feature_map_bank;
            links.push_back(c);
        }
    }
    return counted_section(links, offsetof(connectivity, m_connection));
}

/// The kernel description XRT reads argument offsets and sizes from (what v++ writes for an HLS
/// kernel: one s_axi_control slave port, one m_axi master port per pointer).
std::vector<char> embedded_metadata_section(const XclbinSpec& spec) {
    std::ostringstream x;
    const std::uint32_t control_range = regs::register_space_bytes(true);
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<project name=\"fpgacnn\">\n"
      << " <platform vendor=\"xilinx\" boardid=\"noop\" name=\"" << spec.platform
      << "\" featureRomTime=\"0\">\n"
      << "  <version major=\"1\" minor=\"0\"/>\n"
      << "  <device name=\"fpga0\" fpgaDevice=\"noop\" addrWidth=\"64\">\n"
      << "   <core name=\"OCL_REGION_0\" target=\"hw\" type=\"clc_region\" clockFreq=\"300MHz\" "
         "numComputeUnits=\""
      << spec.compute_units << "\">\n"
      << "    <kernel name=\"" << spec.kernel_name
      << "\" language=\"c\" vlnv=\"xilinx.com:hls:" << spec.kernel_name
      << ":1.0\" preferredWorkGroupSizeMultiple=\"0\" workGroupSize=\"1\" interrupt=\"true\" "
         "hwControlProtocol=\"ap_ctrl_hs\">\n"
      << "     <port name=\"s_axi_control\" mode=\"slave\" range=\"" << hex(control_range)
      << "\" dataWidth=\"32\" portType=\"addressable\" base=\"0x0\"/>\n";
    for (int p = 0; p < regs::kPointerCount; ++p) {
        x << "     <port name=\"m_axi_" << regs::kPointerNames[p]
          << "\" mode=\"master\" range=\"0xFFFFFFFFFFFFFFFF\" dataWidth=\"" << kPortDataBits
          << "\" portType=\"addressable\" base=\"0x0\"/>\n";
    }
    for (int i = 0; i < kernel::kCommandWords; ++i) {
        const bool is_signed = i == 15 || i == 16;  // bias_shift, output_shift are int32_t
        x << "     <arg name=\"" << regs::kCommandNames[i] << "\" addressQualifier=\"0\" id=\"" << i
          << "\" port=\"s_axi_control\" size=\"0x4\" offset=\"" << hex(regs::kCommandOffsets[i])
          << "\" hostOffset=\"0x0\" hostSize=\"0x4\" type=\"" << (is_signed ? "int" : "unsigned int")
          << "\"/>\n";
    }
    for (int p = 0; p < regs::kPointerCount; ++p) {
        x << "     <arg name=\"" << regs::kPointerNames[p] << "\" addressQualifier=\"1\" id=\""
          << kernel::kCommandWords + p << "\" port=\"m_axi_" << regs::kPointerNames[p]
          << "\" size=\"0x8\" offset=\"" << hex(regs::pointer_offset(static_cast<regs::Pointer>(p), true))
          << "\" hostOffset=\"0x0\" hostSize=\"0x8\" type=\"short*\"/>\n";
    }
    for (int cu = 0; cu < spec.compute_units; ++cu) {
        x << "     <instance name=\"" << cu_name(spec, cu) << "\">\n"
          << "      <addrRemap base=\""
          << hex(kFirstCuAddress + kCuAddressStride * static_cast<std::uint64_t>(cu)) << "\" range=\""
          << hex(control_range) << "\" port=\"s_axi_control\"/>\n"
          << "     </instance>\n";
    }
    x << "    </kernel>\n   </core>\n  </device>\n </platform>\n</project>\n";
    const std::string text = x.str();
    return {text.begin(), text.end()};
}

struct Section {
    axlf_section_kind kind;
    const char* name;
    std::vector<char> bytes;
};

std::size_t align8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

}  // namespace

std::vector<char> make_xclbin(const XclbinSpec& spec) {
    std::vector<Section> sections;
    sections.push_back({MEM_TOPOLOGY, "mem_topology", mem_topology_section(spec)});
    sections.push_back({IP_LAYOUT, "ip_layout", ip_layout_section(spec)});
    sections.push_back({CONNECTIVITY, "connectivity", connectivity_section(spec)});
    sections.push_back({EMBEDDED_METADATA, "metadata", embedded_metadata_section(spec)});
    if (spec.user_metadata) {
        sections.push_back(
            {USER_METADATA, "fpgacnn", {spec.user_metadata->begin(), spec.user_metadata->end()}});
    }

    const std::size_t header_bytes = sizeof(axlf) + (sections.size() - 1) * sizeof(axlf_section_header);
    std::vector<char> out(align8(header_bytes), 0);
    std::vector<axlf_section_header> headers;
    for (const Section& s : sections) {
        axlf_section_header h{};
        h.m_sectionKind = s.kind;
        std::strncpy(h.m_sectionName, s.name, sizeof(h.m_sectionName) - 1);
        h.m_sectionOffset = out.size();
        h.m_sectionSize = s.bytes.size();
        headers.push_back(h);
        out.insert(out.end(), s.bytes.begin(), s.bytes.end());
        out.resize(align8(out.size()), 0);
    }

    axlf top{};
    std::memcpy(top.m_magic, "xclbin2", 8);
    top.m_signature_length = -1;
    std::memset(top.reserved, 0xFF, sizeof(top.reserved));
    top.m_header.m_length = out.size();
    top.m_header.m_timeStamp = static_cast<std::uint64_t>(std::time(nullptr));
    top.m_header.m_versionMajor = 2;
    top.m_header.m_versionMinor = 13;
    top.m_header.m_mode = XCLBIN_FLAT;
    copy_name(top.m_header.m_platformVBNV, sizeof(top.m_header.m_platformVBNV), spec.platform);
    std::memcpy(top.m_header.uuid, spec.uuid.data(), spec.uuid.size());
    top.m_header.m_numSections = static_cast<std::uint32_t>(sections.size());
    top.m_sections[0] = headers[0];
    std::memcpy(out.data(), &top, sizeof(top));
    std::memcpy(out.data() + sizeof(top), headers.data() + 1,
                (headers.size() - 1) * sizeof(axlf_section_header));
    return out;
}

void write_xclbin(const std::string& path, const XclbinSpec& spec) {
    const std::vector<char> bytes = make_xclbin(spec);
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!file) throw std::runtime_error("xclbin writer: cannot write " + path);
}

}  // namespace fpgacnn::test
