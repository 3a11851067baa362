#include "darknet_reference.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

// darknet.h has its own extern "C" guard and compiles warning-free as C++17; it is included here
// only, so its global type names (image, box, layer, network...) stay out of the tests.
#include <darknet.h>

#include "stderr_silencer.hpp"

namespace fs = std::filesystem;

// libdarknet's free_network leaves net->workspace and some cfg-parsing lists behind; those leaks are
// darknet's, not ours, so LeakSanitizer (ASan builds) is told to ignore allocations made inside it.
extern "C" const char* __lsan_default_suppressions() { return "leak:libdarknet.so\n"; }

namespace fpgacnn::crosscheck {
namespace {

void require_file(const std::string& path, const char* what) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw std::runtime_error(std::string("darknet reference: ") + what + " not found: " + path);
}

/// darknet's API takes char* everywhere; this keeps a mutable, NUL-terminated copy alive.
std::vector<char> c_string(const std::string& text) {
    std::vector<char> buffer(text.begin(), text.end());
    buffer.push_back('\0');
    return buffer;
}

/// Owns a darknet `image`.
struct ImageGuard {
    image im{};
    explicit ImageGuard(image owned) : im(owned) {}
    ~ImageGuard() {
        if (im.data != nullptr) free_image(im);
    }
    ImageGuard(const ImageGuard&) = delete;
    ImageGuard& operator=(const ImageGuard&) = delete;
};

/// Owns get_network_boxes' result.
struct DetectionsGuard {
    detection* dets = nullptr;
    int count = 0;
    ~DetectionsGuard() {
        if (dets != nullptr) free_detections(dets, count);
    }
};

ReferenceImage copy_image_out(const image& im) {
    ReferenceImage out;
    out.w = im.w;
    out.h = im.h;
    out.c = im.c;
    out.data.assign(im.data, im.data + static_cast<std::size_t>(im.w) * im.h * im.c);
    return out;
}

/// A new darknet image (to be owned by an ImageGuard) holding a copy of `in`.
image copy_image_in(const ReferenceImage& in) {
    image im = make_image(in.w, in.h, in.c);
    std::memcpy(im.data, in.data.data(), in.data.size() * sizeof(float));
    return im;
}

std::string trimmed_key(const std::string& line) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) return {};
    std::string key = line.substr(0, eq);
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t\r") + 1);
    return key;
}

/// The cfg's text with [net] batch/subdivisions forced to 1 and width/height replaced when given.
std::string rewrite_net_section(const std::string& cfg_path, int width, int height) {
    std::ifstream in(cfg_path);
    if (!in) throw std::runtime_error("darknet reference: cannot read cfg " + cfg_path);
    std::ostringstream out;
    bool in_net = false;
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line[first] == '[') {
            in_net = line.compare(first, 5, "[net]") == 0 || line.compare(first, 9, "[network]") == 0;
            out << line << '\n';
            if (in_net) {
                out << "batch=1\nsubdivisions=1\n";
                if (width > 0) out << "width=" << width << '\n';
                if (height > 0) out << "height=" << height << '\n';
            }
            continue;
        }
        if (in_net) {
            const std::string key = trimmed_key(line);
            if (key == "batch" || key == "subdivisions") continue;
            if ((key == "width" && width > 0) || (key == "height" && height > 0)) continue;
        }
        out << line << '\n';
    }
    return out.str();
}

/// A temporary file that is removed when it goes out of scope.
class TempCfg {
public:
    explicit TempCfg(const std::string& text) {
        std::string pattern = (fs::temp_directory_path() / "fpgacnn-darknet-XXXXXX.cfg").string();
        std::vector<char> name = c_string(pattern);
        const int fd = ::mkstemps(name.data(), 4);
        if (fd < 0) throw std::runtime_error("darknet reference: cannot create a temporary cfg");
        ::close(fd);
        path_ = name.data();
        std::ofstream out(path_);
        out << text;
        if (!out) throw std::runtime_error("darknet reference: cannot write " + path_);
    }
    ~TempCfg() {
        std::error_code ec;
        fs::remove(path_, ec);
    }
    TempCfg(const TempCfg&) = delete;
    TempCfg& operator=(const TempCfg&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

const char* type_name(LAYER_TYPE type) {
    switch (type) {
        case CONVOLUTIONAL:
            return "convolutional";
        case MAXPOOL:
            return "maxpool";
        case ROUTE:
            return "route";
        case REORG:
            return "reorg";
        case REGION:
            return "region";
        case UPSAMPLE:
            return "upsample";
        case SHORTCUT:
            return "shortcut";
        case YOLO:
            return "yolo";
        case CONNECTED:
            return "connected";
        case AVGPOOL:
            return "avgpool";
        case SOFTMAX:
            return "softmax";
        case DROPOUT:
            return "dropout";
        case COST:
            return "cost";
        case CROP:
            return "crop";
        default:
            return "other";
    }
}

}  // namespace

ReferenceImage darknet_load_image_color(const std::string& path) {
    require_file(path, "image");
    std::vector<char> name = c_string(path);
    ImageGuard im(load_image_color(name.data(), 0, 0));
    return copy_image_out(im.im);
}

ReferenceImage darknet_resize_image(const ReferenceImage& source, int w, int h) {
    ImageGuard in(copy_image_in(source));
    ImageGuard out(resize_image(in.im, w, h));
    return copy_image_out(out.im);
}

ReferenceImage darknet_letterbox_image(const ReferenceImage& source, int w, int h) {
    ImageGuard in(copy_image_in(source));
    ImageGuard out(letterbox_image(in.im, w, h));
    return copy_image_out(out.im);
}

struct DarknetReference::Impl {
    network* net = nullptr;
    std::vector<float> input;  // network_predict keeps no pointer to it after returning
};

DarknetReference::DarknetReference(const std::string& cfg_path, const std::string& weights_path, int width,
                                   int height)
    : impl_(std::make_unique<Impl>()) {
    require_file(cfg_path, "cfg");
    if (!weights_path.empty()) require_file(weights_path, "weights");
    const TempCfg cfg(rewrite_net_section(cfg_path, width, height));
    std::vector<char> cfg_name = c_string(cfg.path());
    std::vector<char> weights_name = c_string(weights_path);
    {
        const StderrSilencer quiet;
        impl_->net = load_network(cfg_name.data(), weights_name.data(), 0);
    }
    if (impl_->net == nullptr)
        throw std::runtime_error("darknet reference: load_network failed for " + cfg_path);
    set_batch_network(impl_->net, 1);
}

DarknetReference::~DarknetReference() {
    if (impl_->net != nullptr) free_network(impl_->net);
}

int DarknetReference::input_width() const { return impl_->net->w; }
int DarknetReference::input_height() const { return impl_->net->h; }
int DarknetReference::input_channels() const { return impl_->net->c; }
std::size_t DarknetReference::input_size() const {
    return static_cast<std::size_t>(impl_->net->w) * impl_->net->h * impl_->net->c;
}
int DarknetReference::layer_count() const { return impl_->net->n; }

ReferenceLayerInfo DarknetReference::layer_info(int i) const {
    const layer& l = impl_->net->layers[i];
    return {type_name(l.type), l.out_c, l.out_h, l.out_w, static_cast<std::size_t>(l.outputs)};
}

std::vector<float> DarknetReference::predict(const std::vector<float>& input) {
    if (input.size() != input_size())
        throw std::runtime_error("darknet reference: input has " + std::to_string(input.size()) +
                                 " floats, the network wants " + std::to_string(input_size()));
    impl_->input = input;
    network_predict(impl_->net, impl_->input.data());
    return layer_output(layer_count() - 1);
}

std::vector<float> DarknetReference::layer_output(int i) const {
    const layer& l = impl_->net->layers[i];
    return std::vector<float>(l.output, l.output + l.outputs);
}

std::vector<ReferenceDetection> DarknetReference::detect(const std::string& image_path, float thresh,
                                                         float hier_thresh, float nms) {
    return detect(darknet_load_image_color(image_path), thresh, hier_thresh, nms);
}

std::vector<ReferenceDetection> DarknetReference::detect(const ReferenceImage& source, float thresh,
                                                         float hier_thresh, float nms) {
    ImageGuard im(copy_image_in(source));
    ImageGuard sized(letterbox_image(im.im, impl_->net->w, impl_->net->h));
    network_predict(impl_->net, sized.im.data);

    DetectionsGuard boxes;
    boxes.dets =
        get_network_boxes(impl_->net, im.im.w, im.im.h, thresh, hier_thresh, nullptr, 1, &boxes.count);
    const layer& last = impl_->net->layers[impl_->net->n - 1];
    if (nms > 0) do_nms_sort(boxes.dets, boxes.count, last.classes, nms);

    std::vector<ReferenceDetection> printed;
    for (int i = 0; i < boxes.count; ++i) {
        const detection& d = boxes.dets[i];
        for (int j = 0; j < last.classes; ++j) {
            if (!(d.prob[j] > thresh)) continue;
            // draw_detections: double arithmetic truncated to int, then clamped to the image.
            const box& b = d.bbox;
            ReferenceDetection r;
            r.class_id = j;
            r.prob = d.prob[j];
            r.x = b.x;
            r.y = b.y;
            r.w = b.w;
            r.h = b.h;
            r.left = static_cast<int>((b.x - b.w / 2.) * im.im.w);
            r.right = static_cast<int>((b.x + b.w / 2.) * im.im.w);
            r.top = static_cast<int>((b.y - b.h / 2.) * im.im.h);
            r.bottom = static_cast<int>((b.y + b.h / 2.) * im.im.h);
            if (r.left < 0) r.left = 0;
            if (r.right > im.im.w - 1) r.right = im.im.w - 1;
            if (r.top < 0) r.top = 0;
            if (r.bottom > im.im.h - 1) r.bottom = im.im.h - 1;
            printed.push_back(r);
        }
    }
    return printed;
}

}  // namespace fpgacnn::crosscheck
