// libFuzzer harness: the darknet .weights reader and batch-norm folding on the harness network
// (tests/fuzz/data/tiny.cfg). The input is the whole .weights file.
#include <cstdint>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fpgacnn::fuzz::setup_process();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fpgacnn::fuzz::FileHarness& harness = fpgacnn::fuzz::file_harness();
    fpgacnn::Network network = harness.cfg_only;
    try {
        fpgacnn::load_darknet_weights(network, harness.file.hold(data, size));
        fpgacnn::fold_batchnorm(network);
    } catch (const fpgacnn::Error&) {
    }
    return 0;
}
