// One builder per supported section: reads the section's options, checks them, and infers the
// layer's output shape exactly as darknet's make_*_layer functions do.
#pragma once

#include <vector>

#include "fpgacnn/network.hpp"
#include "model/section_reader.hpp"

namespace fpgacnn::model {

/// Sanity limits: far above any real network, low enough that shape arithmetic cannot overflow.
constexpr int kMaxFilters = 1 << 16;
constexpr int kMaxKernel = 64;
constexpr int kMaxImageSide = 1 << 15;

Layer build_convolutional(SectionReader& reader, int index, const TensorShape& input);
Layer build_maxpool(SectionReader& reader, int index, const TensorShape& input);
Layer build_route(SectionReader& reader, int index, const std::vector<Layer>& earlier);
Layer build_reorg(SectionReader& reader, int index, const TensorShape& input);
Layer build_region(SectionReader& reader, int index, const TensorShape& input);

/// "13x13x425" (w x h x c, the order darknet prints).
std::string shape_text(const TensorShape& shape);

}  // namespace fpgacnn::model
