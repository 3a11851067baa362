// What GCC's -Ofast makes of some of darknet's float divisions. darknet is built with -Ofast (its
// Makefile's OPTS, which Debian keeps), and GCC then computes vectorised float divisions a/b as
// a * ((r + r) - (b*r)*r) with r = rcpps(b), an approximation that can differ from a/b in the last
// bit. Where that changes results we care about (box sizes in correct_region_boxes), we do the same.
#pragma once

namespace fpgacnn::vision_detail {

/// 1/x as darknet's -Ofast x86-64 build computes it: the SSE approximate reciprocal plus one
/// Newton-Raphson step. On other architectures, where that code is not generated, plain 1.0f/x.
float fast_math_reciprocal(float x);

}  // namespace fpgacnn::vision_detail
