#include "emu/range_set.hpp"

#include <algorithm>
#include <iterator>

namespace fpgacnn::emu {

void RangeSet::insert(std::size_t begin, std::size_t end) {
    if (begin >= end) return;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin()) {
        auto previous = std::prev(it);
        if (previous->second >= begin) {
            begin = previous->first;
            end = std::max(end, previous->second);
            it = ranges_.erase(previous);
        }
    }
    while (it != ranges_.end() && it->first <= end) {
        end = std::max(end, it->second);
        it = ranges_.erase(it);
    }
    ranges_.emplace(begin, end);
}

std::optional<std::size_t> RangeSet::first_missing(std::size_t begin, std::size_t end) const {
    if (begin >= end) return std::nullopt;
    auto it = ranges_.upper_bound(begin);
    if (it == ranges_.begin()) return begin;
    const auto& covering = *std::prev(it);
    if (covering.second <= begin) return begin;
    if (covering.second >= end) return std::nullopt;
    return covering.second;  // ranges are merged, so the next one starts later
}

std::optional<std::size_t> RangeSet::first_present(std::size_t begin, std::size_t end) const {
    if (begin >= end) return std::nullopt;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin() && std::prev(it)->second > begin) return begin;
    if (it != ranges_.end() && it->first < end) return it->first;
    return std::nullopt;
}

}  // namespace fpgacnn::emu
