#include "float/pooled_sgemm.hpp"

#include <cblas.h>

#include <cstddef>

#include "core/thread_pool.hpp"

namespace fpgacnn::detail {

namespace {

// Below this many multiply-adds an sgemm runs on the calling thread alone.
constexpr std::size_t kMinSplitWork = std::size_t(1) << 20;

}  // namespace

void single_threaded_openblas() {
    static const bool done = [] {
        openblas_set_num_threads(1);
        return true;
    }();
    (void)done;
}

void pooled_sgemm(int m, int n, int k, const float* a, const float* b, int ldb, float* c, int ldc) {
    single_threaded_openblas();
    ThreadPool& pool = ThreadPool::shared();
    const std::size_t work = static_cast<std::size_t>(m) * n * k;
    const int parts = work < kMinSplitWork ? 1 : pool.size();
    const bool split_rows = m >= n;
    pool.parallel_for(static_cast<std::size_t>(parts), [&](std::size_t part) {
        const int p = static_cast<int>(part);
        if (split_rows) {
            const int first = m * p / parts;
            const int last = m * (p + 1) / parts;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, last - first, n, k, 1.0f,
                        a + static_cast<std::size_t>(first) * k, k, b, ldb, 0.0f,
                        c + static_cast<std::size_t>(first) * ldc, ldc);
        } else {
            const int first = n * p / parts;
            const int last = n * (p + 1) / parts;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, last - first, k, 1.0f, a, k, b + first,
                        ldb, 0.0f, c + first, ldc);
        }
    });
}

}  // namespace fpgacnn::detail
