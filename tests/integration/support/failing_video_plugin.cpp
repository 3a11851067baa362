// A video plugin that fails on purpose (media/media_codecs.hpp's VideoFiles): every "video" it opens
// yields two grey frames and then reports that OpenCV threw on the third, as a damaged file whose
// decoder throws would. Its writer writes the frames' bytes, so the test can see what is left behind.
// Loaded by fpgacnn-detect through FPGACNN_MEDIA_PLUGIN_DIR (tests/integration/detect_cli_test.cpp).
#include <fstream>
#include <memory>
#include <string>

#include "media/media_codecs.hpp"
#include "plugin_export.hpp"

namespace {

class FailingReader final : public fpgacnn::media::VideoReader {
public:
    bool read(cv::Mat& frame, std::string& error) override {
        if (frames_read_ == 2) {
            error = "injected decoder failure";
            return false;
        }
        ++frames_read_;
        frame = cv::Mat(64, 64, CV_8UC3, cv::Scalar(128, 128, 128));
        return true;
    }
    [[nodiscard]] double fps() const override { return 0; }

private:
    int frames_read_ = 0;
};

class ByteWriter final : public fpgacnn::media::VideoWriter {
public:
    explicit ByteWriter(const std::string& path) : file_(path, std::ios::binary) {}
    void write(const cv::Mat& frame) override {
        file_.write(reinterpret_cast<const char*>(frame.data),
                    static_cast<std::streamsize>(frame.total() * 3));
    }
    void release() override { file_.close(); }

private:
    std::ofstream file_;
};

class FailingVideoFiles final : public fpgacnn::media::VideoFiles {
public:
    [[nodiscard]] std::unique_ptr<fpgacnn::media::VideoReader> open_video(const std::string&) const override {
        return std::make_unique<FailingReader>();
    }
    [[nodiscard]] std::unique_ptr<fpgacnn::media::VideoWriter> create_mjpeg_video(const std::string& path,
                                                                                  double,
                                                                                  cv::Size) const override {
        return std::make_unique<ByteWriter>(path);
    }
};

}  // namespace

// Its version symbol is the real plugins' (runtime/media_plugin/plugin_version.cpp, compiled in).
FPGACNN_MEDIA_PLUGIN_EXPORT const fpgacnn::media::VideoFiles* fpgacnn_video_files() {
    static const FailingVideoFiles files;
    return &files;
}
