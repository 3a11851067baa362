#include "darknet_augment.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "fpgacnn/error.hpp"
#include "train/truth_boxes.hpp"

namespace fpgacnn::train_tool {

namespace {

float read_float(const model::CfgFile& cfg, const model::CfgOption& option) {
    try {
        std::size_t used = 0;
        const float value = std::stof(option.value, &used);
        if (used == option.value.size() && std::isfinite(value)) return value;
    } catch (const std::logic_error&) {  // not a number: reported below
    }
    throw Error(cfg.path + ":" + std::to_string(option.line) + ": " + option.key + "=" + option.value +
                " is not a number");
}

// darknet's get_pixel_extend as place_image's bilinear_interpolate reads it: 0 outside the image.
float pixel_or_zero(const Image& image, int x, int y, int c) {
    if (x < 0 || x >= image.w || y < 0 || y >= image.h) return 0;
    return image.at(x, y, c);
}

float bilinear(const Image& image, float x, float y, int c) {
    const int ix = static_cast<int>(std::floor(x));
    const int iy = static_cast<int>(std::floor(y));
    const float dx = x - static_cast<float>(ix);
    const float dy = y - static_cast<float>(iy);
    return (1 - dy) * (1 - dx) * pixel_or_zero(image, ix, iy, c) +
           dy * (1 - dx) * pixel_or_zero(image, ix, iy + 1, c) +
           (1 - dy) * dx * pixel_or_zero(image, ix + 1, iy, c) +
           dy * dx * pixel_or_zero(image, ix + 1, iy + 1, c);
}

// place_image: `image` resized to w x h (ints, as darknet passes them) at (dx, dy) on the canvas.
void place_image(const Image& image, int w, int h, int dx, int dy, Image& canvas) {
    for (int c = 0; c < image.c; ++c) {
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const float rx =
                    (static_cast<float>(x) / static_cast<float>(w)) * static_cast<float>(image.w);
                const float ry =
                    (static_cast<float>(y) / static_cast<float>(h)) * static_cast<float>(image.h);
                const int cx = x + dx;
                const int cy = y + dy;
                if (cx < 0 || cx >= canvas.w || cy < 0 || cy >= canvas.h) continue;
                canvas.data[(static_cast<std::size_t>(c) * canvas.h + cy) * canvas.w + cx] =
                    bilinear(image, rx, ry, c);
            }
        }
    }
}

// rgb_to_hsv, scale of s and v, hue shift with wrap, hsv_to_rgb, clamp (distort_image). A grey pixel
// (max == min) gets hue 0 where darknet computes 0/0: its saturation is 0, so the hue is never used.
void distort_image(Image& image, float hue, float saturation, float exposure) {
    const std::size_t plane = static_cast<std::size_t>(image.w) * image.h;
    float* r_plane = image.data.data();
    float* g_plane = r_plane + plane;
    float* b_plane = g_plane + plane;
    for (std::size_t i = 0; i < plane; ++i) {
        const float r = r_plane[i];
        const float g = g_plane[i];
        const float b = b_plane[i];
        const float max = std::max({r, g, b});
        const float min = std::min({r, g, b});
        const float delta = max - min;
        float h = 0;
        float s = 0;
        const float v = max;
        if (max != 0 && delta != 0) {
            s = delta / max;
            if (r == max) {
                h = (g - b) / delta;
            } else if (g == max) {
                h = 2 + (b - r) / delta;
            } else {
                h = 4 + (r - g) / delta;
            }
            if (h < 0) h += 6;
            h = h / 6.0f;
        }
        s *= saturation;
        const float scaled_v = v * exposure;
        h += hue;
        if (h > 1) h -= 1;
        if (h < 0) h += 1;
        float out_r = scaled_v;
        float out_g = scaled_v;
        float out_b = scaled_v;
        if (s != 0) {
            const float h6 = 6 * h;
            const int index = static_cast<int>(std::floor(h6));
            const float f = h6 - static_cast<float>(index);
            const float p = scaled_v * (1 - s);
            const float q = scaled_v * (1 - s * f);
            const float t = scaled_v * (1 - s * (1 - f));
            switch (index) {
                case 0:
                    out_r = scaled_v, out_g = t, out_b = p;
                    break;
                case 1:
                    out_r = q, out_g = scaled_v, out_b = p;
                    break;
                case 2:
                    out_r = p, out_g = scaled_v, out_b = t;
                    break;
                case 3:
                    out_r = p, out_g = q, out_b = scaled_v;
                    break;
                case 4:
                    out_r = t, out_g = p, out_b = scaled_v;
                    break;
                default:
                    out_r = scaled_v, out_g = p, out_b = q;
                    break;
            }
        }
        r_plane[i] = std::clamp(out_r, 0.0f, 1.0f);
        g_plane[i] = std::clamp(out_g, 0.0f, 1.0f);
        b_plane[i] = std::clamp(out_b, 0.0f, 1.0f);
    }
}

void flip_image(Image& image) {
    for (int c = 0; c < image.c; ++c) {
        for (int y = 0; y < image.h; ++y) {
            float* row = image.data.data() + (static_cast<std::size_t>(c) * image.h + y) * image.w;
            std::reverse(row, row + image.w);
        }
    }
}

// rand_scale: a factor in [1, s] or its inverse, half the time each.
float random_scale(float s, AugmentRandom& random) {
    const float scale = random.uniform(1, s);
    return random.coin() ? scale : 1.0f / scale;
}

// correct_boxes + fill_truth_detection: edges moved by (dx, dy) after a scale by (sx, sy), flipped,
// clipped to [0, 1]; the first max_boxes labels taken, of them the boxes under .001 wide or high
// dropped (darknet cuts the list before it drops).
std::vector<float> truth_of(const std::vector<LabelBox>& labels, float dx, float dy, float sx, float sy,
                            bool flip, int max_boxes) {
    std::vector<float> truth(static_cast<std::size_t>(train::kMaxTruthBoxes) * train::kTruthFloats, 0.0f);
    std::size_t kept = 0;
    const std::size_t count = std::min<std::size_t>(
        labels.size(), static_cast<std::size_t>(std::clamp(max_boxes, 0, train::kMaxTruthBoxes)));
    for (std::size_t i = 0; i < count; ++i) {
        const LabelBox& box = labels[i];
        float left = (box.x - box.w / 2) * sx - dx;
        float right = (box.x + box.w / 2) * sx - dx;
        float top = (box.y - box.h / 2) * sy - dy;
        float bottom = (box.y + box.h / 2) * sy - dy;
        if (flip) {
            const float swap = left;
            left = 1 - right;
            right = 1 - swap;
        }
        left = std::clamp(left, 0.0f, 1.0f);
        right = std::clamp(right, 0.0f, 1.0f);
        top = std::clamp(top, 0.0f, 1.0f);
        bottom = std::clamp(bottom, 0.0f, 1.0f);
        const float w = std::clamp(right - left, 0.0f, 1.0f);
        const float h = std::clamp(bottom - top, 0.0f, 1.0f);
        if (w < .001f || h < .001f) continue;
        float* out = truth.data() + kept * train::kTruthFloats;
        out[0] = (left + right) / 2;
        out[1] = (top + bottom) / 2;
        out[2] = w;
        out[3] = h;
        out[4] = static_cast<float>(box.class_id);
        ++kept;
    }
    return truth;
}

}  // namespace

AugmentOptions read_augment_options(const model::CfgFile& cfg) {
    AugmentOptions options;
    for (const model::CfgSection& section : cfg.sections) {
        // train_detector reads jitter and max_boxes of the last layer: the last loss section's, with
        // parse_region's / parse_yolo's defaults.
        const bool loss = section.name == "region" || section.name == "yolo";
        const int truths = section.name == "yolo" ? train::kMaxTruthBoxes : train::kRegionTruthBoxes;
        if (loss) {
            options.jitter = AugmentOptions{}.jitter;
            options.max_boxes = truths;
        }
        for (const model::CfgOption& option : section.options) {
            if (section.name == "net" && option.key == "hue") options.hue = read_float(cfg, option);
            if (section.name == "net" && option.key == "saturation")
                options.saturation = read_float(cfg, option);
            if (section.name == "net" && option.key == "exposure") options.exposure = read_float(cfg, option);
            if (loss && option.key == "jitter") options.jitter = read_float(cfg, option);
            if (loss && option.key == "max") {
                const float max = read_float(cfg, option);
                // darknet's net->truths holds `truths` boxes an image: more would be written past it.
                if (max < 0 || max > static_cast<float>(truths) || max != std::floor(max)) {
                    throw Error(cfg.path + ":" + std::to_string(option.line) + ": max=" + option.value +
                                " is not a box count from 0 to " + std::to_string(truths) + " (what [" +
                                section.name + "] holds an image)");
                }
                options.max_boxes = static_cast<int>(max);
            }
        }
    }
    return options;
}

float AugmentRandom::uniform(float min, float max) {
    if (max < min) std::swap(min, max);
    const float unit = static_cast<float>(engine_() >> 8) * (1.0f / 16777215.0f);  // [0, 1], 24 bits
    return unit * (max - min) + min;
}

std::string AugmentRandom::engine_state() const {
    std::ostringstream out;
    out << engine_;
    return out.str();
}

bool AugmentRandom::set_engine_state(std::istream& in) {
    std::mt19937 engine;
    if (!(in >> engine)) return false;
    engine_ = engine;
    return true;
}

PreparedImage augment_image(const Image& original, std::vector<LabelBox> labels, int w, int h,
                            const AugmentOptions& options, AugmentRandom& random) {
    Image sized;
    sized.w = w;
    sized.h = h;
    sized.c = 3;
    sized.data.assign(static_cast<std::size_t>(3) * w * h, 0.5f);
    const float jitter_w = options.jitter * static_cast<float>(original.w);
    const float jitter_h = options.jitter * static_cast<float>(original.h);
    const float new_w = static_cast<float>(original.w) + random.uniform(-jitter_w, jitter_w);
    const float new_h = static_cast<float>(original.h) + random.uniform(-jitter_h, jitter_h);
    const float aspect = new_w / new_h;
    float nw = 0;
    float nh = 0;
    if (aspect < 1) {
        nh = static_cast<float>(h);
        nw = nh * aspect;
    } else {
        nw = static_cast<float>(w);
        nh = nw / aspect;
    }
    const float dx = random.uniform(0, static_cast<float>(w) - nw);
    const float dy = random.uniform(0, static_cast<float>(h) - nh);
    place_image(original, static_cast<int>(nw), static_cast<int>(nh), static_cast<int>(dx),
                static_cast<int>(dy), sized);

    const float hue = random.uniform(-options.hue, options.hue);
    const float saturation = random_scale(options.saturation, random);
    const float exposure = random_scale(options.exposure, random);
    distort_image(sized, hue, saturation, exposure);
    const bool flip = random.coin();
    if (flip) flip_image(sized);

    std::shuffle(labels.begin(), labels.end(), random.engine());  // randomize_boxes
    PreparedImage prepared;
    prepared.truth =
        truth_of(labels, -dx / static_cast<float>(w), -dy / static_cast<float>(h), nw / static_cast<float>(w),
                 nh / static_cast<float>(h), flip, options.max_boxes);
    prepared.pixels = std::move(sized.data);
    return prepared;
}

PreparedImage resize_only(const Image& original, const std::vector<LabelBox>& labels, int w, int h,
                          int max_boxes) {
    PreparedImage prepared;
    prepared.pixels = resize_image(original, w, h).data;
    prepared.truth = truth_of(labels, 0, 0, 1, 1, false, max_boxes);
    return prepared;
}

}  // namespace fpgacnn::train_tool
