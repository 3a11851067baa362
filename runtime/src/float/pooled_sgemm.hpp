// The float path's sgemm on the CPU backends' one thread pool. OpenBLAS's pthread build keeps its
// own threads spinning (sched_yield loops) for a while after each sgemm, which is exactly when the
// conv runs im2col and bias + activation on the pool: twice the cores' threads at once. So OpenBLAS
// runs single-threaded (openblas_set_num_threads(1), process-wide, set on the first call) and each
// sgemm is split over the pool instead.
#pragma once

namespace fpgacnn::detail {

/// Makes OpenBLAS single-threaded, once per process (the reason above); call before any direct
/// cblas call that may run beside the pool's work.
void single_threaded_openblas();

/// C = A * B, row-major, no transposes: A is m x k (lda = k), B is k x n, C is m x n. Split along
/// the larger of m and n into one part per pool thread (a single call when the product is small).
/// Each value is the same dot product as an unsplit call, rounded in the kernel's order for its
/// place in the split: the last bits can differ from OpenBLAS's own threaded split, as they
/// already do between machines with other core counts.
void pooled_sgemm(int m, int n, int k, const float* a, const float* b, int ldb, float* c, int ldc);

}  // namespace fpgacnn::detail
