// libFuzzer harness: the cfg tokenizer and layer builders (parse_darknet_cfg), then what every tool
// computes from a parsed network (sizes, MACs, fingerprint, memory estimate, synthetic weights).
// Any input must end in a Network or an fpgacnn::Error; anything else (crash, UB, other exception,
// bad_alloc) is a finding.
#include <cstdint>
#include <string>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fpgacnn::fuzz::setup_process();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        fpgacnn::Network network = fpgacnn::parse_darknet_cfg(text, "fuzz.cfg");
        (void)fpgacnn::expected_weights_bytes(network);
        (void)network.conv_macs();
        (void)fpgacnn::network_fingerprint(network);
        (void)fpgacnn::estimate_network_memory(network);
        // Synthetic weights only for small networks: the point is the arithmetic, not the allocation.
        if (fpgacnn::expected_weights_bytes(network) < (1u << 20)) {
            fpgacnn::fill_synthetic_weights(network, 1);
            fpgacnn::fold_batchnorm(network);
            (void)fpgacnn::weights_fingerprint(network);
        }
    } catch (const fpgacnn::Error&) {
    }
    return 0;
}
