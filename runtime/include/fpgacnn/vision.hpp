// Pre- and post-processing on the CPU, identical to darknet's: image loading, letterbox,
// region decode, box correction and per-class NMS, plus drawing of results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/network.hpp"

namespace cv {
class Mat;
}

namespace fpgacnn {

/// Planar float image, RGB, values 0..1, CHW with width fastest (darknet's `image`).
/// A plain value (copies are deep).
struct FPGACNN_API Image {
    int w = 0;                ///< width, pixels
    int h = 0;                ///< height, pixels
    int c = 0;                ///< channels (3 for every image the loaders make)
    std::vector<float> data;  ///< c * h * w values, CHW
    /// Set by load_image / decode_image for a damaged file that decoded partially (today: a JPEG that
    /// is truncated or has corrupt entropy-coded data; the missing part is grey or smeared). The
    /// detections of such an image may be wrong: callers report it (JSON "damaged": true) or refuse it
    /// (--strict-images). `damage` holds the decoder's message, e.g. "Premature end of JPEG file".
    bool damaged = false;
    std::string damage;  ///< the decoder's message when `damaged`, else empty
    /// The value of channel `ch` at column x, row y (unchecked: each must be within the image).
    float at(int x, int y, int ch) const { return data[(static_cast<std::size_t>(ch) * h + y) * w + x]; }
};

/// Images are refused above this many pixels (2^30 = e.g. 32768x32768, OpenCV's own decoder limit)
/// and when loading would need more memory than the budget (15 bytes per pixel: the 8-bit decode and
/// the float image; see host_memory_budget() and docs/reliability.md). Checked on the header's size,
/// before decoding, for JPEG, PNG, BMP and PNM; after decoding for other formats.
constexpr std::uint64_t kMaxImagePixels = std::uint64_t{1} << 30;
/// Encoded image files above 2 GiB are refused (cv::imdecode takes an int-sized buffer).
constexpr std::uint64_t kMaxImageFileBytes = (std::uint64_t{1} << 31) - 1;

/// Loads an image file as 3-channel RGB float (as darknet's load_image_color). Only regular files
/// are read (a FIFO or device is refused, not waited on), and only JPEG, PNG, BMP, PNM and WebP data
/// is decoded (by signature; OpenCV's other decoders are not exposed to untrusted files). Throws
/// Error naming the file when it cannot be read or decoded, or is above the pixel cap or memory
/// budget. A damaged JPEG loads with Image::damaged set and a warning logged naming the file.
FPGACNN_API Image load_image(const std::string& path);

/// load_image on bytes already in memory; `name` is used in messages (a path, "upload 3", ...).
FPGACNN_API Image decode_image(const std::uint8_t* data, std::size_t size, const std::string& name);

/// Converts an 8-bit BGR OpenCV frame (camera / video) to an Image.
FPGACNN_API Image image_from_bgr(const cv::Mat& bgr);

/// Converts interleaved 8-bit RGB pixels (rows of `width` x 3 bytes, no padding: an inference
/// request's UINT8 [height, width, 3] tensor) to an Image: the values image_from_bgr gives for the
/// same pixels in BGR order.
FPGACNN_API Image image_from_rgb(const std::uint8_t* rgb, int width, int height);

/// 8-bit RGB pixels, interleaved and row-major (R, G, B for each pixel): a frame as a client or a
/// capture delivers it, before any conversion.
struct FPGACNN_API RgbPixels {
    std::vector<std::uint8_t> data;  ///< width * height * 3 bytes
    int width = 0;                   ///< pixels
    int height = 0;                  ///< pixels
};

/// RgbPixels' layout over bytes someone else owns (a server request's buffer): what letterbox_rgb
/// reads. Converts from RgbPixels, so every function taking a view takes RgbPixels too.
struct FPGACNN_API RgbPixelsView {
    const std::uint8_t* data =
        nullptr;           ///< the first pixel's first byte; not owned (must outlive the view's use)
    std::size_t size = 0;  ///< bytes at data; valid views have width * height * 3
    int width = 0;         ///< pixels
    int height = 0;        ///< pixels
    /// The bytes are B, G, R for each pixel (an OpenCV frame, a numpy array from cv2) instead of R, G,
    /// B: letterbox_rgb reads each channel from its own place, so such a frame is read where it lies,
    /// with the values of converting it to RGB first.
    bool bgr = false;

    /// An empty view (letterbox_rgb refuses it).
    RgbPixelsView() = default;
    /// A view of `byte_count` bytes at `bytes` holding pixels_wide x pixels_high RGB pixels (not checked
    /// here: letterbox_rgb throws Error when the size does not match).
    RgbPixelsView(const std::uint8_t* bytes, std::size_t byte_count, int pixels_wide, int pixels_high)
        : data(bytes), size(byte_count), width(pixels_wide), height(pixels_high) {}
    /// A view of `pixels`' bytes (implicit, see above); valid while `pixels` lives and is not resized.
    RgbPixelsView(const RgbPixels& pixels)  // implicit, see above
        : data(pixels.data.data()), size(pixels.data.size()), width(pixels.width), height(pixels.height) {}
};

/// decode_image's checks and decoders, as 8-bit RGB pixels (a quarter of the bytes of an Image, for
/// the detector's letterbox_rgb path; what image_from_bgr would convert). A damaged JPEG decodes as
/// decode_image's does and is logged as a warning (RgbPixels has no damage flag).
FPGACNN_API RgbPixels decode_rgb_pixels(const std::uint8_t* data, std::size_t size, const std::string& name);

/// An 8-bit BGR OpenCV frame (camera / video) as RgbPixels: what image_from_bgr gives, for the
/// detector's letterbox_rgb path (a quarter of the bytes of an Image, converted once, in SIMD).
FPGACNN_API RgbPixels rgb_pixels_from_bgr(const cv::Mat& bgr);

/// darknet's resize_image: corner-aligned bilinear, horizontal pass then vertical pass.
FPGACNN_API Image resize_image(const Image& image, int w, int h);

/// darknet's letterbox_image: aspect-preserving resize into w x h, centred, 0.5 fill.
FPGACNN_API Image letterbox_image(const Image& image, int w, int h);

/// letterbox_image(image_from_rgb(...), w, h) bit for bit, without the full-size float Image (12
/// bytes a pixel): each source row is converted as the resize reads it. Throws Error for empty
/// pixels or a data size other than width * height * 3.
FPGACNN_API Image letterbox_rgb(const RgbPixelsView& pixels, int w, int h);

/// A box in relative coordinates (centre x, y and width, height as fractions of the image).
struct FPGACNN_API Box {
    float x = 0;  ///< centre, fraction of the image width
    float y = 0;  ///< centre, fraction of the image height
    float w = 0;  ///< width, fraction of the image width
    float h = 0;  ///< height, fraction of the image height
};

/// Intersection over union of two boxes (darknet's box_iou): 0 for disjoint boxes, 1 for equal ones.
FPGACNN_API float box_iou(const Box& a, const Box& b);

/// One candidate box of the region layer with its per-class probabilities (darknet's `detection`).
struct FPGACNN_API RegionBox {
    Box bbox;                 ///< relative to the original image (corrected for the letterbox)
    float objectness = 0;     ///< the activated objectness output; 0 when at or below the decode threshold
    std::vector<float> prob;  ///< classes entries, 0 where below threshold or suppressed
};

/// darknet's get_region_detections + correct_region_boxes (relative=1): decodes activated region
/// output into boxes relative to the original image of size image_w x image_h.
FPGACNN_API std::vector<RegionBox> decode_region(const RegionParams& region, const TensorShape& shape,
                                                 const float* activated, int image_w, int image_h, int net_w,
                                                 int net_h, float thresh);

/// darknet's get_yolo_detections + correct_yolo_boxes (relative=1) for one [yolo] head: the boxes
/// whose objectness is above thresh (strictly), cell by cell and within a cell by mask entry.
FPGACNN_API std::vector<RegionBox> decode_yolo(const YoloParams& yolo, const TensorShape& shape,
                                               const float* activated, int image_w, int image_h, int net_w,
                                               int net_h, float thresh);

/// darknet's get_network_boxes: the boxes of every output layer (Network::output_layer_indices) in
/// layer order, from `output` as Backend::run returns it (network.detection_output_size() floats).
FPGACNN_API std::vector<RegionBox> decode_network_output(const Network& network,
                                                         const std::vector<float>& output, int image_w,
                                                         int image_h, float thresh);

/// darknet's do_nms_sort: per class, sort by probability, zero the weaker of overlapping boxes.
FPGACNN_API void nms_sort(std::vector<RegionBox>& boxes, int classes, float iou_threshold);

/// A final detection, in pixels of the original image (as darknet's draw_detections computes).
struct FPGACNN_API Detection {
    int class_id = 0;        ///< index into the class names (0-based)
    std::string class_name;  ///< its name, or "class_<id>" without one
    float prob = 0;          ///< class probability (objectness x class score), 0..1
    Box box;                 ///< relative
    int left = 0;            ///< first column, pixels, clamped to the image
    int top = 0;             ///< first row, pixels, clamped to the image
    int right = 0;           ///< last column, pixels, clamped to the image
    int bottom = 0;          ///< last row, pixels, clamped to the image
};

/// Every (box, class) pair with prob > thresh, in darknet's print order.
FPGACNN_API std::vector<Detection> collect_detections(const std::vector<RegionBox>& boxes, float thresh,
                                                      int image_w, int image_h,
                                                      const std::vector<std::string>& names);

/// Reads a darknet .names file (one class per line). Throws Error naming the file.
FPGACNN_API std::vector<std::string> load_class_names(const std::string& path);

/// Draws boxes and labels onto an 8-bit BGR image, coloured per class with darknet's palette (which
/// spreads colours over the number of classes; 0 = unknown, use 80).
FPGACNN_API void draw_detections(cv::Mat& bgr, const std::vector<Detection>& detections, int classes = 0);

}  // namespace fpgacnn
