// What a frame handed to the Detector starts from: a float image, 8-bit RGB pixels, or RGB pixels in
// a buffer someone else owns (a server request's bytes). Shared, never copied: the pipeline, a retry
// on another detector and the caller can all hold the same frame; the pixels must not change until
// every future of a submission that holds them is ready.
#pragma once

#include <memory>

#include "fpgacnn/export.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

/// One frame for Detector::submit / detect, as described above: a cheap-to-copy shared handle.
class FPGACNN_API FrameInput {
public:
    /// An empty input: Detector::submit refuses it.
    FrameInput() = default;
    /// Implicit, so that submit(shared_image) and submit(shared_pixels) read as they mean.
    FrameInput(std::shared_ptr<const Image> image);
    /// Shared 8-bit RGB pixels (implicit, as above).
    FrameInput(std::shared_ptr<const RgbPixels> pixels);
    /// Pixels that `owner` keeps alive (the view points into what it owns): no copy is made.
    FrameInput(RgbPixelsView pixels, std::shared_ptr<const void> owner);

    /// No image and no pixels (the default-constructed input, or a null pointer given).
    bool empty() const { return !image_ && !owner_; }
    /// The original frame's width, pixels (what detections are scaled back to); 0 when empty.
    int width() const;
    /// The original frame's height, pixels; 0 when empty.
    int height() const;
    /// The network input of w x h: letterbox_image of the image or letterbox_rgb of the pixels
    /// (the same values for the same picture). Throws Error for an empty or invalid input.
    Image letterbox(int w, int h) const;

private:
    std::shared_ptr<const Image> image_;
    std::shared_ptr<const void> owner_;  ///< what keeps pixels_ alive
    RgbPixelsView pixels_;
};

}  // namespace fpgacnn
