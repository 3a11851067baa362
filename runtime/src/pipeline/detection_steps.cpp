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
    std::vector<RegionBox> boxes = decode_network_output(network, region_output, image_w, image_h, thresh);
    if (nms > 0) nms_sort(boxes, network.output_classes(), nms);
    return collect_detections(boxes, thresh, image_w, image_h, class_names);
}

}  // namespace fpgacnn::pipeline_detail
