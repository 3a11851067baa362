// OpenCV's image codecs (imgcodecs) and video files (videoio) behind interfaces that two plugins,
// loaded on first use, implement (media_plugin.cpp loads them; runtime/media_plugin/ holds them).
// Why plugins: linked directly, those two libraries bring about 220 shared libraries (GDAL, FFmpeg,
// GStreamer, ...) into every process that links libfpgacnn, and loading them took 0.23 s of each
// tool's 0.26 s start (`fpgacnn-detect --version`), the same or more on the boards, whether or not the
// run touches an image. JPEG input does not need the plugin at all (vision/jpeg_rgb.hpp decodes it).
// Nothing crosses the boundary but these classes, OpenCV's core types and the standard library's, all
// from the one build that made both sides (the loader checks each plugin's version).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace fpgacnn::media {

/// Frames of a video file, as cv::VideoCapture reads them (8-bit BGR).
class VideoReader {
public:
    virtual ~VideoReader() = default;
    /// The next frame into `frame`; false at the end of the video, or when OpenCV threw while reading
    /// the frame (`error` then holds its message, so that a damaged video is not taken for a short one).
    virtual bool read(cv::Mat& frame, std::string& error) = 0;
    /// The container's frame rate; 0 when it states none.
    [[nodiscard]] virtual double fps() const = 0;
};

/// A Motion-JPEG AVI file written frame by frame (cv::VideoWriter).
class VideoWriter {
public:
    virtual ~VideoWriter() = default;
    virtual void write(const cv::Mat& frame) = 0;
    /// Finishes the file (also done on destruction).
    virtual void release() = 0;
};

/// Image files in memory (the images plugin, in the library's package).
class ImageCodecs {
public:
    virtual ~ImageCodecs() = default;
    /// cv::imdecode(encoded, IMREAD_COLOR): 8-bit BGR, or empty when OpenCV cannot decode the bytes
    /// (`error` then holds OpenCV's exception message, if it threw one).
    [[nodiscard]] virtual cv::Mat decode_bgr(const cv::Mat& encoded, std::string& error) const = 0;
    /// cv::imencode(extension, image, out, params); false when OpenCV cannot encode it so.
    [[nodiscard]] virtual bool encode(const std::string& extension, const cv::Mat& image,
                                      const std::vector<int>& params,
                                      std::vector<unsigned char>& out) const = 0;
};

/// Video files (the video plugin, in the tools' package: only fpgacnn-detect reads videos, and
/// OpenCV's videoio brings FFmpeg and GStreamer along).
class VideoFiles {
public:
    virtual ~VideoFiles() = default;
    /// The video at `path`; null when OpenCV cannot open it.
    [[nodiscard]] virtual std::unique_ptr<VideoReader> open_video(const std::string& path) const = 0;
    /// A new Motion-JPEG AVI at `path` of `size` frames; null when it cannot be created.
    [[nodiscard]] virtual std::unique_ptr<VideoWriter> create_mjpeg_video(const std::string& path, double fps,
                                                                          cv::Size size) const = 0;
};

/// The plugins' objects, each loaded at its first call (thread-safe; a failed load is retried at the
/// next call). When no plugin loads they throw fpgacnn::Error "<context>: cannot load ...", naming
/// every place they looked and what to do; `context` is what needed it (the image or video file).
/// The plugins' functions themselves do not throw: failures come back as values.
const ImageCodecs& image_codecs(const std::string& context);
const VideoFiles& video_files(const std::string& context);

/// Each plugin exports two C symbols: its version (the project version of its build), which the
/// loader compares with its own, and its object (kImageCodecsSymbol or kVideoFilesSymbol).
constexpr const char* kPluginVersionSymbol = "fpgacnn_media_plugin_version";
constexpr const char* kImageCodecsSymbol = "fpgacnn_image_codecs";
constexpr const char* kVideoFilesSymbol = "fpgacnn_video_files";

}  // namespace fpgacnn::media
