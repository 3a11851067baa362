#include "axi_memory.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>

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

bool AxiMemory::covers_beats(uint64_t address, uint64_t bytes, unsigned beat_bytes) const {
    // One range holds a byte of the first beat and a byte of the last (so every beat between).
    auto it = ranges_.upper_bound(address + beat_bytes - 1);
    if (it == ranges_.begin()) return false;
    --it;
    const uint64_t start = it->first, end = it->first + it->second.bytes;
    return end > address && start < address + beat_bytes && end > address + bytes - beat_bytes &&
           start < address + bytes;
}

uint8_t* AxiMemory::resolve(uint64_t address, uint64_t bytes) const {
    auto it = ranges_.upper_bound(address);
    if (it == ranges_.begin()) return nullptr;
    --it;
    const uint64_t start = it->first;
    if (address - start + bytes > it->second.bytes) return nullptr;
    return it->second.host + (address - start);
}

void AxiMemory::read_beat(uint64_t address, unsigned bytes, uint8_t* out) const {
    if (const uint8_t* host = resolve(address, bytes)) {
        std::memcpy(out, host, bytes);
        return;
    }
    for (unsigned b = 0; b < bytes; ++b) {
        const uint8_t* host = resolve(address + b, 1);
        out[b] = host != nullptr ? *host : 0;
    }
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
    } else if (!covers_beats(address, bytes, element_bytes)) {
        rule = "nothing is mapped at (all of) it";
    }
    if (rule == nullptr) return "";
    char text[256];
    std::snprintf(text, sizeof text, "%s: %s burst of %u beats at 0x%" PRIx64 ": %s", master,
                  write ? "write" : "read", beats, address, rule);
    return text;
}

}  // namespace fpgacnn::rtl
