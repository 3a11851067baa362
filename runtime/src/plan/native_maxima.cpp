#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn {

KernelMaxima native_kernel_maxima() {
    const kernel::Maxima m = kernel::native_build_maxima();
    KernelMaxima maxima;
    maxima.tm = m.tm;
    maxima.tn = m.tn;
    maxima.tr = m.tr;
    maxima.tc = m.tc;
    maxima.max_kernel = m.max_kernel;
    maxima.max_stride = m.max_stride;
    return maxima;
}

}  // namespace fpgacnn
