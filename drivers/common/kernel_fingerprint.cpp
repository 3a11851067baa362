// Reading and checking a kernel build's fingerprint: the identify command run through the public
// Device interface (so every driver gets it the same way), and the compatibility rules.
#include <cstring>
#include <string>

#include "fpgacnn/device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"

namespace fpgacnn {

std::string tile_text(const KernelMaxima& m) {
    return "Tm=" + std::to_string(m.tm) + " Tn=" + std::to_string(m.tn) + " Tr=" + std::to_string(m.tr) +
           " Tc=" + std::to_string(m.tc);
}

std::string maxima_text(const KernelMaxima& m) {
    return tile_text(m) + " K<=" + std::to_string(m.max_kernel) + " S<=" + std::to_string(m.max_stride);
}

std::string KernelFingerprint::text() const {
    return maxima_text(maxima) + ", int" + std::to_string(data_bits) + ", arithmetic contract v" +
           std::to_string(contract_version) + (maxima.int8_pairs ? ", 8-bit pairs" : ", no 8-bit pairs") +
           (maxima.upsample_shortcut ? ", upsample/shortcut" : ", no upsample/shortcut");
}

namespace {

KernelFingerprint decode(const int16_t* w) {
    KernelFingerprint f;
    f.format = w[kernel::kFpFormat];
    f.contract_version = w[kernel::kFpContract];
    f.data_bits = w[kernel::kFpDataBits];
    f.maxima.tm = w[kernel::kFpTm];
    f.maxima.tn = w[kernel::kFpTn];
    f.maxima.tr = w[kernel::kFpTr];
    f.maxima.tc = w[kernel::kFpTc];
    f.maxima.max_kernel = w[kernel::kFpMaxK];
    f.maxima.max_stride = w[kernel::kFpMaxS];
    f.maxima.int8_pairs = w[kernel::kFpInt8Pairs] != 0;
    // Builds before the port width was a maximum wrote 0 there and had 16-bit ports.
    f.maxima.port_bits = w[kernel::kFpPortBits] != 0 ? w[kernel::kFpPortBits] : 16;
    f.maxima.upsample_shortcut = w[kernel::kFpUpsampleShortcut] != 0;  // 0 from builds without the ops
    return f;
}

}  // namespace

KernelFingerprint native_kernel_fingerprint() {
    int16_t words[kernel::kFingerprintWords];
    kernel::fingerprint_words(words);
    KernelFingerprint f = decode(words);
    f.maxima = kernel::native_build_maxima();  // the out-of-line build values (fpgacnn_kernel's -D maxima)
    return f;
}

KernelFingerprint read_fingerprint(Device& device, std::chrono::milliseconds timeout) {
    const std::size_t bytes = 2 * kernel::kFingerprintWords;
    // Freed on return; if the command timed out, the device holds it until the kernel lets go.
    const DeviceBuffer scratch = device.allocate(bytes, BufferRole::FeatureMaps, "fingerprint scratch");
    std::memset(scratch.host(), 0, bytes);
    device.sync(scratch, SyncDirection::ToDevice, 0, bytes);
    DeviceCommand identify;
    identify.layer = -1;
    identify.description = "identify command (reading the kernel fingerprint)";
    identify.command = kernel::LayerCommand{};
    identify.command.op = kernel::kOpIdentify;
    device.start(identify, scratch, scratch);
    device.wait(timeout);
    device.sync(scratch, SyncDirection::FromDevice, 0, bytes);
    const auto* words = static_cast<const int16_t*>(scratch.host());
    if (words[kernel::kFpMagic0] != kernel::kFingerprintMagic0 ||
        words[kernel::kFpMagic1] != kernel::kFingerprintMagic1) {
        throw DeviceError(
            device.name() +
            ": the kernel did not answer the identify command with an fpgacnn fingerprint "
            "(the bitstream is not an fpgacnn kernel, or was built before fingerprints existed); "
            "rebuild it from kernels/ and load it");
    }
    if (words[kernel::kFpFormat] != kernel::kFingerprintFormat) {
        throw DeviceError(device.name() + ": kernel fingerprint format " +
                          std::to_string(words[kernel::kFpFormat]) + ", this library reads format " +
                          std::to_string(kernel::kFingerprintFormat) +
                          "; rebuild the bitstream from this release's kernels/");
    }
    return decode(words);
}

void require_compatible_kernel(const KernelFingerprint& device, const std::string& device_name) {
    const KernelFingerprint host = native_kernel_fingerprint();
    // Exact, not "at least": a contract change may change the commands too (v2 added the
    // output_bits register, v3 the weight_bits register and 8-bit weights packed two per word, v4 the
    // input_bits register and the pair mode of 8-bit layers; each
    // moved the base-address registers), so an older bitstream would misread this library's commands
    // and parameters.
    if (device.contract_version != host.contract_version || device.data_bits != host.data_bits) {
        throw DeviceError(device_name + ": the kernel was built as " + device.text() +
                          ", but this library computes " + "int" + std::to_string(host.data_bits) +
                          " with arithmetic contract v" + std::to_string(host.contract_version) +
                          "; rebuild the bitstream from this release's kernels/ (docs/kernel.md)");
    }
    const KernelMaxima& m = device.maxima;
    if (m.tm <= 0 || m.tn <= 0 || m.tr <= 0 || m.tc <= 0 || m.max_kernel <= 0 || m.max_stride <= 0) {
        throw DeviceError(device_name + ": the kernel reports impossible maxima (" + device.text() +
                          "); the bitstream or its register window is corrupt");
    }
}

}  // namespace fpgacnn
