#include "fpgacnn/frame_input.hpp"

#include "fpgacnn/error.hpp"

namespace fpgacnn {

FrameInput::FrameInput(std::shared_ptr<const Image> image) : image_(std::move(image)) {}

FrameInput::FrameInput(std::shared_ptr<const RgbPixels> pixels) {
    if (!pixels) return;
    pixels_ = *pixels;
    owner_ = std::move(pixels);
}

FrameInput::FrameInput(RgbPixelsView pixels, std::shared_ptr<const void> owner)
    : owner_(std::move(owner)), pixels_(pixels) {
    if (!owner_) throw Error("FrameInput: borrowed RGB pixels need an owner that keeps them alive");
}

int FrameInput::width() const { return image_ ? image_->w : pixels_.width; }

int FrameInput::height() const { return image_ ? image_->h : pixels_.height; }

Image FrameInput::letterbox(int w, int h) const {
    if (image_) return letterbox_image(*image_, w, h);
    if (owner_) return letterbox_rgb(pixels_, w, h);
    throw Error("FrameInput: the frame is empty (neither an image nor pixels)");
}

}  // namespace fpgacnn
