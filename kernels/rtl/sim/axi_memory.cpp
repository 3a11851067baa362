#include "axi_memory.hpp"

#include <cinttypes>
#include <cstdio>

namespace fpgacnn::rtl {

bool AxiMemory::map(uint64_t address, void* host, uint64_t bytes, std::string& error) {
    if (bytes == 0 || host == nullptr) {
        error = "cannot map an empty range";
        return false;
    }
    for (const auto& [start, range] : ranges_) {
        if (address < start + range.bytes && start < address + bytes) {
            char text[160];
            std::snprintf(text, sizeof text,
                          "bus range 0x%" PRIx64 "+%" PRIu64 " overlaps the range mapped at 0x%" PRIx64,
                          address, bytes, start);
            error = text;
            return false;
        }
    }
    ranges_[address] = Range{static_cast<uint8_t*>(host), bytes};
    return true;
}

bool AxiMemory::unmap(uint64_t address) { return ranges_.erase(address) == 1; }

uint8_t* AxiMemory::resolve(uint64_t address, uint64_t bytes) const {
    auto it = ranges_.upper_bound(address);
    if (it == ranges_.begin()) return nullptr;
    --it;
    const uint64_t start = it->first;
    if (address - start + bytes > it->second.bytes) return nullptr;
    return it->second.host + (address - start);
}

std::string AxiMemory::check_burst(const char* master, bool write, uint64_t address, unsigned len,
                                   unsigned size, unsigned burst, unsigned element_bytes) const {
    const unsigned beats = len + 1;
    const uint64_t bytes = static_cast<uint64_t>(beats) << size;
    const char* rule = nullptr;
    if (burst != 1) {
        rule = "the burst type is not INCR";
    } else if ((1u << size) != element_bytes) {
        rule = "the beat size is not the master's data width";
    } else if (beats > 256) {
        rule = "the burst is longer than 256 beats";
    } else if (address % element_bytes != 0) {
        rule = "the address is not aligned to the master's data width";
    } else if ((address & 0xFFFu) + bytes > 0x1000u) {
        rule = "the burst crosses a 4 KiB boundary";
    } else if (resolve(address, bytes) == nullptr) {
        rule = "nothing is mapped at (all of) it";
    }
    if (rule == nullptr) return "";
    char text[256];
    std::snprintf(text, sizeof text, "%s: %s burst of %u beats at 0x%" PRIx64 ": %s", master,
                  write ? "write" : "read", beats, address, rule);
    return text;
}

}  // namespace fpgacnn::rtl
