// libFuzzer harness: image decoding (header size checks, JPEG damage detection, OpenCV's decoders)
// and darknet's letterbox, as load_image + letterbox_image run on every input image.
#include <cstdint>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fpgacnn::fuzz::setup_process();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const fpgacnn::Image image = fpgacnn::decode_image(data, size, "fuzz image");
        // A network input of another aspect ratio than most images, so both letterbox branches run.
        const fpgacnn::Image boxed = fpgacnn::letterbox_image(image, 32, 24);
        if (boxed.data.size() != 32u * 24u * 3u) __builtin_trap();
    } catch (const fpgacnn::Error&) {
    }
    return 0;
}
