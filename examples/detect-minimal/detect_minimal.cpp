// detect-minimal: the smallest program built on the installed libfpgacnn (docs/install.md). It loads a
// darknet model and its class names, detects objects in one image on the CPU and prints them as
// fpgacnn-detect's text output does.
// Usage: detect-minimal MODEL.cfg MODEL.weights CLASSES.names IMAGE
#include <cstdio>
#include <exception>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/vision.hpp"

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s MODEL.cfg MODEL.weights CLASSES.names IMAGE\n", argv[0]);
        return 2;
    }
    try {
        fpgacnn::DetectorOptions options;
        options.backend.device =
            "cpu";  // float on the CPU; "auto" would pick an accelerator when one is present
        fpgacnn::Detector detector(fpgacnn::load_darknet_model(argv[1], argv[2]),
                                   fpgacnn::load_class_names(argv[3]), options);
        const fpgacnn::DetectionResult result = detector.detect(fpgacnn::load_image(argv[4]));

        // fpgacnn-detect's (and darknet's) text form.
        std::printf("%s: Predicted in %.1f ms.\n", argv[4], result.milliseconds);
        for (const fpgacnn::Detection& d : result.detections) {
            std::printf("%s: %.0f%%  (left %d, top %d, right %d, bottom %d)\n", d.class_name.c_str(),
                        static_cast<double>(d.prob * 100.0f), d.left, d.top, d.right, d.bottom);
        }
        return 0;
    } catch (const std::exception& e) {  // fpgacnn::Error says which file or layer and what to do
        std::fprintf(stderr, "detect-minimal: %s\n", e.what());
        return 1;
    }
}
