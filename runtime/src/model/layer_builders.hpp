// One builder per supported section: reads the section's options, checks them, and infers the
// layer's output shape exactly as darknet's make_*_layer functions do.
#pragma once

#include <cstdint>
#include <vector>

#include "fpgacnn/network.hpp"
#include "model/section_reader.hpp"

namespace fpgacnn::model {

/// Sanity limits: far above any real network, low enough that shape arithmetic cannot overflow.
constexpr int kMaxFilters = 1 << 16;
constexpr int kMaxKernel = 64;
constexpr int kMaxImageSide = 1 << 15;
/// Channels of any layer's output (a route's sum, a reorg's c * stride^2): YOLOv2's largest is 1280.
constexpr int kMaxChannels = 1 << 16;
/// Width or height of any layer's output (maxpools with stride 1 and padding grow a map a little).
constexpr int kMaxTensorSide = 1 << 20;
/// Values in one tensor, and weights of one conv layer: every index stays within 32 bits (the
/// engines and the kernel's commands use 32-bit counts and offsets; the quantized file stores u32
/// counts). YOLOv2 at 608x608 peaks at 11.8 million values in a tensor, 9.4 million weights in a layer.
constexpr std::int64_t kMaxTensorValues = (std::int64_t{1} << 31) - 1;

/// A layer of `type` at `index` with the section's line and `input`; the builder fills in the rest.
Layer make_layer(LayerType type, int index, const SectionReader& reader, const TensorShape& input);

Layer build_convolutional(SectionReader& reader, int index, const TensorShape& input);
Layer build_maxpool(SectionReader& reader, int index, const TensorShape& input);
Layer build_route(SectionReader& reader, int index, const std::vector<Layer>& earlier);
Layer build_reorg(SectionReader& reader, int index, const TensorShape& input);
Layer build_region(SectionReader& reader, int index, const TensorShape& input);
Layer build_upsample(SectionReader& reader, int index, const TensorShape& input);
Layer build_shortcut(SectionReader& reader, int index, const std::vector<Layer>& earlier,
                     const TensorShape& input);
Layer build_yolo(SectionReader& reader, int index, const TensorShape& input);

/// [connected]: a Convolutional layer with ConvParams::connected (its kernel covers its square input).
Layer build_connected(SectionReader& reader, int index, const TensorShape& input);
Layer build_avgpool(SectionReader& reader, int index, const TensorShape& input);
Layer build_softmax(SectionReader& reader, int index, const TensorShape& input);
Layer build_dropout(SectionReader& reader, int index, const TensorShape& input);
Layer build_cost(SectionReader& reader, int index, const TensorShape& input);
Layer build_crop(SectionReader& reader, int index, const TensorShape& input);

/// [local]: parsed for planning only.
bool is_planning_only_section(const std::string& name);
/// Such a section as an Unsupported layer with darknet's output shape (its options are not checked).
Layer build_unsupported(SectionReader& reader, int index, const TensorShape& input);

/// Throws (via the reader, naming file, line and section) when the layer's output or a conv layer's
/// weight count is above the limits above: called for every layer, so later arithmetic cannot overflow.
void require_within_limits(const SectionReader& reader, const Layer& layer);

/// "13x13x425" (w x h x c, the order darknet prints).
std::string shape_text(const TensorShape& shape);

}  // namespace fpgacnn::model
