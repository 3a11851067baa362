#include "training_data.hpp"

#include <fmt/format.h>

#include <dirent.h>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/progress_bar.hpp"
#include "train/truth_boxes.hpp"

namespace fpgacnn::train_tool {

namespace {

std::string folder_of(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

bool has_image_extension(const std::string& name) {
    const std::size_t dot = name.find_last_of('.');
    if (dot == std::string::npos) return false;
    std::string extension = name.substr(dot + 1);
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == "jpg" || extension == "jpeg" || extension == "png" || extension == "bmp" ||
           extension == "ppm" || extension == "pgm" || extension == "webp";
}

}  // namespace

std::vector<LabelledImage> read_training_list(const std::string& list_path, int classes) {
    std::ifstream in(list_path);
    if (!in) throw Error(list_path + ": cannot read the image list");
    std::vector<LabelledImage> images;
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
        ++line;
        const std::size_t begin = text.find_first_not_of(" \t\r");
        if (begin == std::string::npos || text[begin] == '#') continue;
        std::string path = text.substr(begin, text.find_last_not_of(" \t\r") + 1 - begin);
        if (path.front() != '/') path.insert(0, folder_of(list_path));
        if (!is_regular_file(path)) {
            throw Error(fmt::format("{}:{}: image {} does not exist", list_path, line, path));
        }
        images.push_back({path, read_label_file(find_label_file(path), classes)});
    }
    if (images.empty()) throw Error(list_path + ": the image list names no image");
    return images;
}

std::vector<LabelledImage> distill_labels(const std::string& folder, const std::string& cfg_path,
                                          const std::string& weights_path, float thresh) {
    std::vector<std::string> paths;
    if (DIR* dir = ::opendir(folder.c_str())) {
        while (const dirent* entry = ::readdir(dir)) {
            const std::string path = folder + "/" + entry->d_name;
            if (has_image_extension(entry->d_name) && is_regular_file(path)) paths.push_back(path);
        }
        ::closedir(dir);
    } else {
        throw Error(folder + ": cannot read the folder for --distill");
    }
    if (paths.empty())
        throw Error(folder + ": no image (jpg, png, bmp, ppm, pgm, webp) in the --distill folder");
    std::sort(paths.begin(), paths.end());

    DetectorOptions options;
    options.backend.device = "cpu";
    options.backend.precision = Precision::Float;
    options.thresh = thresh;
    Detector detector(load_darknet_model(cfg_path, weights_path), {}, options);
    std::vector<LabelledImage> images;
    ProgressBar progress("distill labels", static_cast<int>(paths.size()), true);
    for (const std::string& path : paths) {
        LabelledImage labelled{path, {}};
        for (const Detection& detection : detector.detect(load_image(path)).detections) {
            labelled.boxes.push_back(
                {detection.class_id, detection.box.x, detection.box.y, detection.box.w, detection.box.h});
        }
        images.push_back(std::move(labelled));
        progress.step(path);
    }
    progress.finish(std::to_string(images.size()) + " images");
    return images;
}

BatchSource::BatchSource(std::vector<LabelledImage> images, int width, int height, bool augment,
                         AugmentOptions options, std::uint64_t seed)
    : images_(std::move(images)),
      width_(width),
      height_(height),
      augment_(augment),
      options_(options),
      random_(seed) {}

void BatchSource::next_batch(int batch, float* input, float* truth) {
    const std::size_t image_floats = static_cast<std::size_t>(3) * width_ * height_;
    const std::size_t truth_floats = static_cast<std::size_t>(train::kMaxTruthBoxes) * train::kTruthFloats;
    for (int b = 0; b < batch; ++b) {
        const LabelledImage& source = images_[taken_ % images_.size()];
        ++taken_;
        const Image image = load_image(source.path);
        const PreparedImage prepared =
            augment_ ? augment_image(image, source.boxes, width_, height_, options_, random_)
                     : resize_only(image, source.boxes, width_, height_, options_.max_boxes);
        std::copy(prepared.pixels.begin(), prepared.pixels.end(), input + b * image_floats);
        std::copy(prepared.truth.begin(), prepared.truth.end(), truth + b * truth_floats);
    }
}

std::string BatchSource::state() const {
    std::ostringstream out;
    out << taken_ << ' ' << random_.engine_state();
    return out.str();
}

void BatchSource::restore(const std::string& state) {
    std::istringstream in(state);
    std::uint64_t taken = 0;
    if (!(in >> taken) || !random_.set_engine_state(in))
        throw Error("the checkpoint's data position does not parse");
    taken_ = taken;
}

}  // namespace fpgacnn::train_tool
