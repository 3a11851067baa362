// darknet's shortcut_cpu index walk, shared by the float and the int16 [shortcut]: which output value
// each value of layer `from` is added to when the two differ in size or channel count
// (docs/darknet-semantics.md, "Shortcut").
#pragma once

#include <algorithm>
#include <cstddef>

#include "fpgacnn/network.hpp"

namespace fpgacnn::core {

/// Calls add(out_index, added_index) for every pair shortcut_cpu adds: w1 = added, w2 = out,
/// stride = max(1, w1/w2), sample = max(1, w2/w1), over min(c), min(h), min(w).
template <typename Add>
void for_each_shortcut_pair(const TensorShape& out, const TensorShape& added, Add add) {
    const int stride = std::max(1, added.w / out.w);
    const int sample = std::max(1, out.w / added.w);
    const int min_w = std::min(added.w, out.w);
    const int min_h = std::min(added.h, out.h);
    const int min_c = std::min(added.c, out.c);
    for (int k = 0; k < min_c; ++k) {
        for (int j = 0; j < min_h; ++j) {
            for (int i = 0; i < min_w; ++i) {
                const std::size_t out_index =
                    static_cast<std::size_t>(i) * sample +
                    static_cast<std::size_t>(out.w) *
                        (static_cast<std::size_t>(j) * sample + static_cast<std::size_t>(out.h) * k);
                const std::size_t added_index =
                    static_cast<std::size_t>(i) * stride +
                    static_cast<std::size_t>(added.w) *
                        (static_cast<std::size_t>(j) * stride + static_cast<std::size_t>(added.h) * k);
                add(out_index, added_index);
            }
        }
    }
}

}  // namespace fpgacnn::core
