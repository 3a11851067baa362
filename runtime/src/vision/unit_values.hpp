// The float an 8-bit channel value becomes in an Image. darknet's ipl_to_image divides each value by
// 255. in double; for 8-bit values that rounds to the same float as this table holds, which is what
// makes the conversion cheap (a 768x576 frame took milliseconds of divisions, a noticeable share of a
// served request). Every conversion from 8-bit pixels reads it, so they all give the same values.
#pragma once

#include <array>

namespace fpgacnn::vision_detail {

const std::array<float, 256>& unit_values();

}  // namespace fpgacnn::vision_detail
