// libFuzzer harness: the darknet .weights reader and batch-norm folding on the harness network
// (tests/fuzz/data/tiny.cfg). The input is the whole .weights file.
#include <cstdint>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fuzz_support.hpp"

namespace {
const fpgacnn::Network* cfg_only = nullptr;
fpgacnn::fuzz::MemoryFile* file = nullptr;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fpgacnn::fuzz::setup_process();
    cfg_only = new fpgacnn::Network(fpgacnn::load_darknet_cfg(fpgacnn::fuzz::tiny_cfg_path()));
    file = new fpgacnn::fuzz::MemoryFile();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fpgacnn::Network network = *cfg_only;
    try {
        fpgacnn::load_darknet_weights(network, file->hold(data, size));
        fpgacnn::fold_batchnorm(network);
    } catch (const fpgacnn::Error&) {
    }
    return 0;
}
