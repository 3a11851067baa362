// The bus addresses the kernel's masters see: host memory ranges mapped at bus addresses (no copy),
// the AXI rules every burst must keep, and a shared bytes-per-cycle budget (one DDR behind all ports).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace fpgacnn::rtl {

class AxiMemory {
public:
    /// Maps [address, address + bytes) onto `host`; false (with `error`) when it overlaps a range.
    bool map(uint64_t address, void* host, uint64_t bytes, std::string& error);
    bool unmap(uint64_t address);

    /// Host pointer of [address, address + bytes) when one range holds all of it; null otherwise.
    uint8_t* resolve(uint64_t address, uint64_t bytes) const;

    /// Copies the mapped bytes of one beat into `out` (zeros elsewhere): a wide master reads whole
    /// beats, and a row at the edge of a buffer shares its first or last beat with unmapped bytes.
    void read_beat(uint64_t address, unsigned bytes, uint8_t* out) const;

    /// Checks a burst against the AXI4 rules and the map: "" when it is fine, else a sentence
    /// naming the master, the address and the rule broken.
    std::string check_burst(const char* master, bool write, uint64_t address, unsigned len, unsigned size,
                            unsigned burst, unsigned element_bytes) const;

private:
    /// Whether one mapped range reaches into the first and the last beat of a burst.
    bool covers_beats(uint64_t address, uint64_t bytes, unsigned beat_bytes) const;

    struct Range {
        uint8_t* host;
        uint64_t bytes;
    };
    std::map<uint64_t, Range> ranges_;  // by bus address
};

/// Bytes all masters may move this cycle (one DDR shared by every port); unlimited when 0.
class BandwidthBudget {
public:
    BandwidthBudget(uint32_t bytes_per_cycle, uint32_t widest_beat)
        : per_cycle_(bytes_per_cycle), widest_beat_(widest_beat) {}
    /// A new cycle: the budget refills (unused bytes carry over up to one beat of the widest port).
    void refill() {
        if (per_cycle_ == 0) return;
        const uint64_t cap = per_cycle_ > widest_beat_ ? per_cycle_ : widest_beat_;
        available_ = available_ + per_cycle_ > cap ? cap : available_ + per_cycle_;
    }
    bool take(uint32_t bytes) {
        if (per_cycle_ == 0) return true;
        if (available_ < bytes) return false;
        available_ -= bytes;
        return true;
    }
    void give_back(uint32_t bytes) {
        if (per_cycle_ != 0) available_ += bytes;
    }

private:
    uint32_t per_cycle_;
    uint32_t widest_beat_;
    uint64_t available_ = 0;
};

}  // namespace fpgacnn::rtl
