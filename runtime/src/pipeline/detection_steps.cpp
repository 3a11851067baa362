#include "pipeline/detection_steps.hpp"

namespace fpgacnn::pipeline_detail {

Image prepare_input(const Network& network, const Image& image) {
    return letterbox_image(image, network.input.w, network.input.h);
}

Image prepare_input(const Network& network, const RgbPixels& pixels) {
    return letterbox_rgb(pixels, network.input.w, network.input.h);
}

Image prepare_input(const Network& network, const FrameInput& frame) {
    return frame.letterbox(network.input.w, network.input.h);
}

std::vector<Detection> decode_detections(const Network& network, const std::vector<std::string>& class_names,
                                         const FrameThresholds& thresholds,
                                         const std::vector<float>& region_output, int image_w, int image_h) {
    const float thresh = *thresholds.thresh;
    const float nms = *thresholds.nms;
    const TensorShape& in = network.input;
    const Layer& region_layer = network.layers[static_cast<std::size_t>(network.region_layer_index())];
    const RegionParams& region = region_layer.region();
    std::vector<RegionBox> boxes = decode_region(region, region_layer.output, region_output.data(), image_w,
                                                 image_h, in.w, in.h, thresh);
    if (nms > 0) nms_sort(boxes, region.classes, nms);
    return collect_detections(boxes, thresh, image_w, image_h, class_names);
}

}  // namespace fpgacnn::pipeline_detail
