// Splits the memory-bound passes around the sgemm (im2col, bias + activation, maxpool) across
// the cores. OpenBLAS only threads the sgemm itself, and on the large early layers these passes
// would otherwise run on one core while the others idle.
#pragma once

#include <cstddef>
#include <functional>

namespace fpgacnn::detail {

/// Calls body(begin, end) on contiguous chunks covering [0, count), shared between the calling
/// thread and persistent helper threads (one per extra core). Runs inline when
/// `count * cost_per_item` is too small to be worth sharing, or when another thread is using the
/// helpers. Returns when all chunks are done; `body` must not throw.
void parallel_for(std::size_t count, std::size_t cost_per_item,
                  const std::function<void(std::size_t begin, std::size_t end)>& body);

}  // namespace fpgacnn::detail
