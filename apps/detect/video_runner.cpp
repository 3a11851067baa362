#include "video_runner.hpp"

#include <filesystem>

#include "fpgacnn/error.hpp"
#include "media/media_codecs.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::detect {

int run_video(Detector& detector, const std::string& video_path, const std::string& annotated_output,
              const FrameCallback& on_frame) {
    const media::VideoFiles& videos = media::video_files(video_path);
    const std::unique_ptr<media::VideoReader> capture = videos.open_video(video_path);
    if (!capture) {
        throw Error(video_path + ": cannot open the video (unsupported container/codec or unreadable file)");
    }
    const std::string temporary =
        annotated_output.empty() ? std::string() : annotated_output + ".partial.avi";
    std::unique_ptr<media::VideoWriter> writer;
    int frames = 0;
    try {
        cv::Mat frame;
        std::string read_error;
        const double container_fps = capture->fps();
        while (capture->read(frame, read_error)) {
            const DetectionResult result = detector.detect(rgb_pixels_from_bgr(frame));
            on_frame(video_path + "#" + std::to_string(frames), result);
            if (!temporary.empty()) {
                if (!writer) {
                    // The folder at the first frame written: a video that fails to open leaves none.
                    fs::create_directories(fs::path(temporary).parent_path());
                    writer = videos.create_mjpeg_video(temporary, container_fps > 0 ? container_fps : 25.0,
                                                       frame.size());
                    if (!writer) throw Error(annotated_output + ": cannot create the annotated video");
                }
                draw_detections(frame, result.detections);
                writer->write(frame);
            }
            ++frames;
        }
        if (!read_error.empty()) {
            throw Error(video_path + "#" + std::to_string(frames) + ": OpenCV cannot read this frame (" +
                        read_error + "); the video is damaged or its codec is not supported");
        }
    } catch (...) {
        if (writer) writer->release();
        std::error_code ec;
        if (!temporary.empty()) fs::remove(temporary, ec);
        throw;
    }
    if (frames == 0) throw Error(video_path + ": the video has no decodable frames");
    if (writer) {
        writer->release();
        std::error_code ec;
        fs::rename(temporary, annotated_output, ec);
        if (ec) throw Error(annotated_output + ": cannot write the annotated video (" + ec.message() + ")");
    }
    return frames;
}

}  // namespace fpgacnn::detect
