#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "core/input_file.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "quant/byte_io.hpp"
#include "quant/quantized_file_layout.hpp"

namespace fpgacnn {

namespace {

constexpr const char* kRequantize = "re-run fpgacnn-quantize";

std::vector<std::uint8_t> read_all(const std::string& path) {
    core::InputFile file(path, {"quantized model file", "check the path given with --quantized"});
    require_host_memory(file.size(), path, "the quantized model file is read whole",
                        "this is not a quantized model of a network that fits here");
    return file.read_all(UINT64_MAX, "");
}

// Checks in the order that gives the most useful message: wrong kind of file, then damage, then a
// file that is intact but made for something else.
QuantizedFileInfo check_envelope(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    if (bytes.size() < sizeof quantized_file::kMagic ||
        std::memcmp(bytes.data(), quantized_file::kMagic, sizeof quantized_file::kMagic) != 0) {
        throw Error(path +
                    ": not an fpgacnn quantized model file (no FPGACNNQ magic); create one with "
                    "fpgacnn-quantize");
    }
    const std::size_t minimum = quantized_file::kHeaderBytes + quantized_file::kChecksumBytes;
    if (bytes.size() < minimum) {
        throw Error(fmt::format("{}: truncated: {} bytes, smaller than the {}-byte header; {}", path,
                                bytes.size(), minimum, kRequantize));
    }
    ByteReader header(bytes.data(), bytes.size());
    header.skip(sizeof quantized_file::kMagic);
    QuantizedFileInfo info;
    info.format_version = header.u32();
    info.contract_version = header.u32();
    info.bytes = header.u64();
    info.network_fingerprint = header.u64();
    info.weights_fingerprint = header.u64();
    info.tiling_fingerprint = header.u64();
    if (info.format_version != kQuantizedFormatVersion) {
        throw Error(fmt::format("{}: file format version {}, this build reads version {}; {}", path,
                                info.format_version, kQuantizedFormatVersion, kRequantize));
    }
    if (info.bytes != bytes.size()) {
        throw Error(
            fmt::format("{}: size mismatch: the file has {} bytes, its header says {} (truncated or "
                        "damaged copy); {}",
                        path, bytes.size(), info.bytes, kRequantize));
    }
    const std::size_t body = bytes.size() - quantized_file::kChecksumBytes;
    ByteReader trailer(bytes.data() + body, quantized_file::kChecksumBytes);
    const std::uint64_t stored = trailer.u64();
    const std::uint64_t actual = fnv1a(bytes.data(), body);
    if (stored != actual) {
        throw Error(
            fmt::format("{}: checksum mismatch (stored {:016x}, computed {:016x}): the file is damaged; {}",
                        path, stored, actual, kRequantize));
    }
    if (info.contract_version != static_cast<std::uint32_t>(arith::kContractVersion)) {
        throw Error(
            fmt::format("{}: quantized for arithmetic contract version {}, this build implements version "
                        "{}; {}",
                        path, info.contract_version, arith::kContractVersion, kRequantize));
    }
    return info;
}

void read_layers(const std::string& path, const std::vector<std::uint8_t>& bytes,
                 QuantizedNetwork& quantized) {
    const Network& network = quantized.network;
    ByteReader in(bytes.data(), bytes.size() - quantized_file::kChecksumBytes);
    in.skip(48);
    quantized.input_q = in.i32();
    const std::uint32_t layer_count = in.u32();
    if (layer_count != network.layers.size()) {
        throw Error(fmt::format("{}: {} layers, the network has {}; {}", path, layer_count,
                                network.layers.size(), kRequantize));
    }
    if (!in.has(static_cast<std::size_t>(layer_count) * quantized_file::kLayerRecordBytes)) {
        throw Error(fmt::format("{}: the layer table runs past the end of the file; {}", path, kRequantize));
    }
    std::vector<std::uint32_t> weight_counts(layer_count);
    std::vector<std::uint32_t> bias_counts(layer_count);
    quantized.layers.assign(layer_count, QuantizedLayer{});
    for (std::uint32_t i = 0; i < layer_count; ++i) {
        QuantizedLayer& q = quantized.layers[i];
        const std::uint32_t type = in.u32();
        if (type != static_cast<std::uint32_t>(network.layers[i].type)) {
            throw Error(fmt::format(
                "{}: layer {} is a {} in the file; {}", path, i,
                type <= 4 ? layer_type_name(static_cast<LayerType>(type)) : "unknown kind", kRequantize));
        }
        q.input_q = in.i32();
        q.output_q = in.i32();
        q.weight_q = in.i32();
        q.bias_q = in.i32();
        weight_counts[i] = in.u32();
        bias_counts[i] = in.u32();
        in.skip(4);
    }
    for (std::uint32_t i = 0; i < layer_count; ++i) {
        const std::size_t values = static_cast<std::size_t>(weight_counts[i]) + bias_counts[i];
        if (!in.has(2 * values)) {
            throw Error(fmt::format("{}: the parameters of layer {} run past the end of the file; {}", path,
                                    i, kRequantize));
        }
        in.i16_array(quantized.layers[i].weights, weight_counts[i]);
        in.i16_array(quantized.layers[i].biases, bias_counts[i]);
    }
    if (in.has(1))
        throw Error(fmt::format("{}: unexpected bytes after the parameters; {}", path, kRequantize));
    validate_quantized_network(quantized, path);
}

}  // namespace

QuantizedNetwork load_quantized_network(const std::string& path, Network network, QuantizedFileInfo* info) {
    const std::vector<std::uint8_t> bytes = read_all(path);
    const QuantizedFileInfo header = check_envelope(path, bytes);
    const std::uint64_t expected = network_fingerprint(network);
    if (header.network_fingerprint != expected) {
        throw Error(
            fmt::format("{}: quantized for a different cfg or input size (network fingerprint {:016x}, "
                        "{} at {}x{} gives {:016x}): {}",
                        path, header.network_fingerprint, network.cfg_path, network.input.w, network.input.h,
                        expected, kRequantize));
    }
    // Only a network without weights (the int16 backends need the file's parameters alone) skips the
    // check. A zero fingerprint is no exemption: the writer never stores one (it refuses a network
    // without weights), so zero means an edited file, and a real hash is 0 with probability 2^-64.
    if (network.weights_loaded && header.weights_fingerprint != weights_fingerprint(network)) {
        throw Error(fmt::format(
            "{}: quantized from other weights than {} (weights fingerprint {:016x} in the "
            "file, {:016x} for the weights{}): {}",
            path, network.weights_path, header.weights_fingerprint, weights_fingerprint(network),
            header.weights_fingerprint == 0 ? "; a zero fingerprint is never written" : "", kRequantize));
    }
    QuantizedNetwork quantized;
    quantized.network = std::move(network);
    read_layers(path, bytes, quantized);
    if (info != nullptr) *info = header;
    return quantized;
}

}  // namespace fpgacnn
