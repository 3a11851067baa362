// The reference side of the cross-checks: libdarknet itself (Debian package 'darknet'), behind a small
// C++ interface so that no test needs darknet.h (its global names `image`, `box`, `layer`, `network`
// would clash with ours and it wants mutable char* everywhere).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace fpgacnn::crosscheck {

/// A copy of a darknet `image`: CHW floats, RGB, 0..1.
struct ReferenceImage {
    int w = 0;
    int h = 0;
    int c = 0;
    std::vector<float> data;
};

/// darknet's load_image_color(path, 0, 0). Throws std::runtime_error when the file is missing
/// (darknet itself would quietly return a 10x10 black image).
ReferenceImage darknet_load_image_color(const std::string& path);
/// darknet's resize_image and letterbox_image.
ReferenceImage darknet_resize_image(const ReferenceImage& image, int w, int h);
ReferenceImage darknet_letterbox_image(const ReferenceImage& image, int w, int h);

/// One printed detection of `darknet detector test`: a (box, class) pair with prob > thresh, in
/// draw_detections' order, with its pixel rectangle computed and clamped as draw_detections does.
struct ReferenceDetection {
    int class_id = 0;
    float prob = 0;
    float x = 0;  // relative box centre and size, as returned by get_network_boxes(relative=1)
    float y = 0;
    float w = 0;
    float h = 0;
    int left = 0;
    int top = 0;
    int right = 0;
    int bottom = 0;
};

struct ReferenceLayerInfo {
    std::string type;  // "convolutional", "maxpool", "route", "reorg", "region", "upsample", "shortcut",
                       // "yolo", "connected", "avgpool", "softmax", "dropout", "cost", "crop" or "other"
    int out_c = 0;
    int out_h = 0;
    int out_w = 0;
    std::size_t outputs = 0;  // l.outputs
};

/// A darknet network loaded from cfg + weights, at batch 1, freed on destruction.
class DarknetReference {
public:
    /// Loads via a temporary copy of the cfg with batch=1, subdivisions=1 (so darknet allocates one
    /// image's buffers) and, when width/height are non-zero, that input size — the same thing
    /// fpgacnn's InputSizeOverride does. An empty weights_path leaves darknet's initial weights.
    /// Throws std::runtime_error when a file is missing, since darknet would exit(0) and hide it.
    DarknetReference(const std::string& cfg_path, const std::string& weights_path, int width = 0,
                     int height = 0);
    ~DarknetReference();
    DarknetReference(const DarknetReference&) = delete;
    DarknetReference& operator=(const DarknetReference&) = delete;

    int input_width() const;
    int input_height() const;
    int input_channels() const;
    std::size_t input_size() const;
    int layer_count() const;
    ReferenceLayerInfo layer_info(int i) const;

    /// network_predict on a CHW input of input_size() floats; returns the last layer's output.
    std::vector<float> predict(const std::vector<float>& input);
    /// l.output (l.outputs floats) of layer i after the last predict().
    std::vector<float> layer_output(int i) const;

    /// `darknet detector test` on an image file: load_image_color, letterbox_image to the network
    /// size, network_predict, get_network_boxes(relative=1), do_nms_sort (when nms > 0), then the
    /// (box, class) pairs that draw_detections prints.
    std::vector<ReferenceDetection> detect(const std::string& image_path, float thresh,
                                           float hier_thresh = 0.5f, float nms = 0.45f);
    /// The same pipeline on an image that is already loaded (e.g. decoded by another library).
    std::vector<ReferenceDetection> detect(const ReferenceImage& image, float thresh,
                                           float hier_thresh = 0.5f, float nms = 0.45f);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace fpgacnn::crosscheck
