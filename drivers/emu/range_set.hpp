// A set of byte ranges [begin, end) with merging: which parts of a buffer the device copy holds valid data.
#pragma once

#include <cstddef>
#include <map>
#include <optional>

namespace fpgacnn::emu {

class RangeSet {
public:
    void insert(std::size_t begin, std::size_t end);
    /// The first byte of [begin, end) not in the set, or nullopt when all are.
    std::optional<std::size_t> first_missing(std::size_t begin, std::size_t end) const;
    /// The first byte of [begin, end) in the set, or nullopt when none is.
    std::optional<std::size_t> first_present(std::size_t begin, std::size_t end) const;
    void clear() { ranges_.clear(); }

private:
    std::map<std::size_t, std::size_t> ranges_;  // begin -> end, disjoint and non-adjacent
};

}  // namespace fpgacnn::emu
