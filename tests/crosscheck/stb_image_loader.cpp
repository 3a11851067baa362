#include "stb_image_loader.hpp"

#include <stdexcept>

#if __has_include(<stb/stb_image.h>)
#define FPGACNN_HAVE_STB_IMAGE 1
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_JPEG
#define STBI_ONLY_PNG
#include <stb/stb_image.h>
#else
#define FPGACNN_HAVE_STB_IMAGE 0
#endif

namespace fpgacnn::crosscheck {

bool stb_image_available() { return FPGACNN_HAVE_STB_IMAGE != 0; }

Image load_image_stb(const std::string& path) {
#if FPGACNN_HAVE_STB_IMAGE
    int w = 0;
    int h = 0;
    int channels_in_file = 0;
    constexpr int channels = 3;
    unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &channels_in_file, channels);
    if (pixels == nullptr) throw std::runtime_error("stb_image cannot decode " + path);
    Image image;
    image.w = w;
    image.h = h;
    image.c = channels;
    image.data.resize(static_cast<std::size_t>(w) * h * channels);
    for (int k = 0; k < channels; ++k) {
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const std::size_t src =
                    static_cast<std::size_t>(k) + channels * (x + static_cast<std::size_t>(w) * y);
                // Same expression as darknet: a double division, rounded to float on store.
                image.data[(static_cast<std::size_t>(k) * h + y) * w + x] =
                    static_cast<float>(static_cast<float>(pixels[src]) / 255.);
            }
        }
    }
    stbi_image_free(pixels);
    return image;
#else
    throw std::runtime_error("stb_image is not available (install Debian's libstb-dev) to decode " + path);
#endif
}

}  // namespace fpgacnn::crosscheck
