// The images plugin: fpgacnn::media::ImageCodecs (runtime/src/media/media_codecs.hpp) on OpenCV's
// imgcodecs, which only this file of the library links.
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "media/media_codecs.hpp"
#include "plugin_export.hpp"

namespace {

class OpenCvImageCodecs final : public fpgacnn::media::ImageCodecs {
public:
    [[nodiscard]] cv::Mat decode_bgr(const cv::Mat& encoded, std::string& error) const override {
        try {
            return cv::imdecode(encoded, cv::IMREAD_COLOR);
        } catch (const cv::Exception& e) {
            error = e.what();
            return {};
        }
    }
    [[nodiscard]] bool encode(const std::string& extension, const cv::Mat& image,
                              const std::vector<int>& params,
                              std::vector<unsigned char>& out) const override {
        try {
            return cv::imencode(extension, image, out, params);
        } catch (const cv::Exception&) {
            return false;
        }
    }
};

}  // namespace

FPGACNN_MEDIA_PLUGIN_EXPORT const fpgacnn::media::ImageCodecs* fpgacnn_image_codecs() {
    static const OpenCvImageCodecs codecs;
    return &codecs;
}
