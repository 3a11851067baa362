// The video plugin: fpgacnn::media::VideoFiles (runtime/src/media/media_codecs.hpp) on OpenCV's
// videoio, which only this file links.
#include <memory>
#include <string>

#include <opencv2/videoio.hpp>

#include "media/media_codecs.hpp"
#include "plugin_export.hpp"

namespace {

class CaptureReader final : public fpgacnn::media::VideoReader {
public:
    explicit CaptureReader(std::unique_ptr<cv::VideoCapture> capture) : capture_(std::move(capture)) {}
    bool read(cv::Mat& frame, std::string& error) override {
        try {
            return capture_->read(frame) && !frame.empty();
        } catch (const cv::Exception& e) {
            error = e.what();  // exceptions do not cross the plugin boundary: the caller reports it
            return false;
        }
    }
    [[nodiscard]] double fps() const override {
        const double fps = capture_->get(cv::CAP_PROP_FPS);
        return fps > 0 ? fps : 0;
    }

private:
    std::unique_ptr<cv::VideoCapture> capture_;
};

class MjpegWriter final : public fpgacnn::media::VideoWriter {
public:
    explicit MjpegWriter(std::unique_ptr<cv::VideoWriter> writer) : writer_(std::move(writer)) {}
    void write(const cv::Mat& frame) override { writer_->write(frame); }
    void release() override { writer_->release(); }

private:
    std::unique_ptr<cv::VideoWriter> writer_;
};

class OpenCvVideoFiles final : public fpgacnn::media::VideoFiles {
public:
    [[nodiscard]] std::unique_ptr<fpgacnn::media::VideoReader> open_video(
        const std::string& path) const override {
        try {
            auto capture = std::make_unique<cv::VideoCapture>(path);
            if (!capture->isOpened()) return nullptr;
            return std::make_unique<CaptureReader>(std::move(capture));
        } catch (const cv::Exception&) {
            return nullptr;
        }
    }
    [[nodiscard]] std::unique_ptr<fpgacnn::media::VideoWriter> create_mjpeg_video(
        const std::string& path, double fps, cv::Size size) const override {
        try {
            auto writer = std::make_unique<cv::VideoWriter>(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'),
                                                            fps, size);
            if (!writer->isOpened()) return nullptr;
            return std::make_unique<MjpegWriter>(std::move(writer));
        } catch (const cv::Exception&) {
            return nullptr;
        }
    }
};

}  // namespace

FPGACNN_MEDIA_PLUGIN_EXPORT const fpgacnn::media::VideoFiles* fpgacnn_video_files() {
    static const OpenCvVideoFiles files;
    return &files;
}
