#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

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
constexpr core::InputFileRole kRole{"quantized model file", "check the path given with --quantized"};
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;  // the checksum pass reads this much at a time

/// Reads `count` int16 values at the file's position into `out` and adds their bytes to `hash`.
void read_i16(core::InputFile& file, std::vector<std::int16_t>& out, std::size_t count, std::uint64_t& hash) {
    out.resize(count);
    auto* bytes = reinterpret_cast<std::uint8_t*>(out.data());
    if (count > 0) file.read_exact(bytes, 2 * count);
    hash = fnv1a(bytes, 2 * count, hash);
    if (kLittleEndianHost) return;
    for (std::int16_t& v : out) {  // the file is little-endian
        const auto* b = reinterpret_cast<const std::uint8_t*>(&v);
        v = static_cast<std::int16_t>(static_cast<std::uint16_t>(b[0] | (b[1] << 8)));
    }
}

/// FNV-1a 64 of the file's first `bytes` bytes, read in chunks (never the whole file in memory).
std::uint64_t hash_prefix(core::InputFile& file, std::uint64_t bytes) {
    std::vector<std::uint8_t> chunk(static_cast<std::size_t>(std::min<std::uint64_t>(bytes, kChunkBytes)));
    std::uint64_t hash = kFnvOffsetBasis;
    file.seek(0);
    for (std::uint64_t done = 0; done < bytes;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes - done, kChunkBytes));
        file.read_exact(chunk.data(), n);
        hash = fnv1a(chunk.data(), n, hash);
        done += n;
    }
    return hash;
}

// Checks in the order that gives the most useful message: wrong kind of file, then damage, then a
// file that is intact but made for something else.
QuantizedFileInfo check_envelope(core::InputFile& file) {
    const std::string& path = file.path();
    const std::uint64_t size = file.size();
    std::uint8_t header_bytes[quantized_file::kHeaderBytes] = {};
    const std::size_t header_read =
        static_cast<std::size_t>(std::min<std::uint64_t>(size, sizeof header_bytes));
    file.read_exact(header_bytes, header_read);
    if (header_read < sizeof quantized_file::kMagic ||
        std::memcmp(header_bytes, quantized_file::kMagic, sizeof quantized_file::kMagic) != 0) {
        throw Error(path +
                    ": not an fpgacnn quantized model file (no FPGACNNQ magic); create one with "
                    "fpgacnn-quantize");
    }
    const std::size_t minimum = quantized_file::kHeaderBytes + quantized_file::kChecksumBytes;
    if (size < minimum) {
        throw Error(fmt::format("{}: truncated: {} bytes, smaller than the {}-byte header; {}", path, size,
                                minimum, kRequantize));
    }
    ByteReader header(header_bytes, sizeof header_bytes);
    header.skip(sizeof quantized_file::kMagic);
    QuantizedFileInfo info;
    info.format_version = header.u32();
    info.contract_version = header.u32();
    info.bytes = header.u64();
    info.network_fingerprint = header.u64();
    info.weights_fingerprint = header.u64();
    info.tiling_fingerprint = header.u64();
    if (info.format_version < quantized_file::kOldestReadableFormat ||
        info.format_version > kQuantizedFormatVersion) {
        throw Error(fmt::format("{}: file format version {}, this build reads versions {} to {}; {}{}", path,
                                info.format_version, quantized_file::kOldestReadableFormat,
                                kQuantizedFormatVersion,
                                info.format_version > kQuantizedFormatVersion
                                    ? "the file was made by a newer fpgacnn: upgrade, or "
                                    : "",
                                kRequantize));
    }
    if (info.bytes != size) {
        throw Error(
            fmt::format("{}: size mismatch: the file has {} bytes, its header says {} (truncated or "
                        "damaged copy); {}",
                        path, size, info.bytes, kRequantize));
    }
    const std::uint64_t body = size - quantized_file::kChecksumBytes;
    const std::uint64_t actual = hash_prefix(file, body);
    std::uint8_t trailer_bytes[quantized_file::kChecksumBytes] = {};
    file.read_exact(trailer_bytes, sizeof trailer_bytes);
    ByteReader trailer(trailer_bytes, sizeof trailer_bytes);
    const std::uint64_t stored = trailer.u64();
    if (stored != actual) {
        throw Error(
            fmt::format("{}: checksum mismatch (stored {:016x}, computed {:016x}): the file is damaged; {}",
                        path, stored, actual, kRequantize));
    }
    if (info.contract_version < static_cast<std::uint32_t>(arith::kOldestReadableContractVersion) ||
        info.contract_version > static_cast<std::uint32_t>(arith::kContractVersion)) {
        throw Error(fmt::format(
            "{}: quantized for arithmetic contract version {}, this build implements versions {} "
            "to {}; {}{}",
            path, info.contract_version, arith::kOldestReadableContractVersion, arith::kContractVersion,
            info.contract_version > static_cast<std::uint32_t>(arith::kContractVersion)
                ? "the file was made by a newer fpgacnn: upgrade, or "
                : "",
            kRequantize));
    }
    return info;
}

/// Where one layer's parameters are in the file and the FNV-1a 64 of their bytes when loaded.
struct StoredLayer {
    std::uint64_t offset = 0;
    std::size_t weights = 0;
    std::size_t biases = 0;
    std::uint64_t hash = 0;
};

/// ParameterLoading::OnDemand: reads a layer's parameters from the file when a backend asks, and
/// refuses them when their bytes are no longer the ones checked at load (the file was replaced).
class FileParameterSource final : public QuantizedParameterSource {
public:
    FileParameterSource(std::string path, std::uint64_t size, std::vector<StoredLayer> layers)
        : path_(std::move(path)), size_(size), layers_(std::move(layers)) {}

    std::size_t weight_count(std::size_t layer) const override { return layers_.at(layer).weights; }
    std::size_t bias_count(std::size_t layer) const override { return layers_.at(layer).biases; }

    void read(std::size_t layer, QuantizedLayer& into) const override {
        const StoredLayer& stored = layers_.at(layer);
        core::InputFile file(path_, kRole);
        std::uint64_t hash = kFnvOffsetBasis;
        if (file.size() == size_) {
            file.seek(stored.offset);
            read_i16(file, into.weights, stored.weights, hash);
            read_i16(file, into.biases, stored.biases, hash);
        }
        if (file.size() != size_ || hash != stored.hash) {
            throw Error(fmt::format(
                "{}: the parameters of layer {} differ from the ones checked when the model was loaded (the "
                "file was replaced or changed since); restart with the new model",
                path_, layer));
        }
    }

private:
    std::string path_;
    std::uint64_t size_;
    std::vector<StoredLayer> layers_;
};

/// The layer record's widths word: format 1 wrote 0 there (every layer 16-bit).
void read_widths(std::uint32_t word, std::uint32_t format, QuantizedLayer& q) {
    if (format < quantized_file::kFirstFormatWithWidths) return;  // the QuantizedLayer defaults: 16
    q.output_bits = static_cast<int>(word & 0xFF);
    q.weight_bits = static_cast<int>((word >> 8) & 0xFF);
}

void read_layers(core::InputFile& file, std::uint32_t format, ParameterLoading loading,
                 QuantizedNetwork& quantized) {
    const std::string& path = file.path();
    const Network& network = quantized.network;
    const std::uint64_t body_end = file.size() - quantized_file::kChecksumBytes;
    std::uint8_t counts_bytes[8] = {};
    file.seek(48);
    file.read_exact(counts_bytes, sizeof counts_bytes);
    ByteReader counts(counts_bytes, sizeof counts_bytes);
    quantized.input_q = counts.i32();
    const std::uint32_t layer_count = counts.u32();
    if (layer_count != network.layers.size()) {
        throw Error(fmt::format("{}: {} layers, the network has {}; {}", path, layer_count,
                                network.layers.size(), kRequantize));
    }
    const std::size_t table_bytes = static_cast<std::size_t>(layer_count) * quantized_file::kLayerRecordBytes;
    if (quantized_file::kHeaderBytes + table_bytes > body_end) {
        throw Error(fmt::format("{}: the layer table runs past the end of the file; {}", path, kRequantize));
    }
    std::vector<std::uint8_t> table_bytes_read(table_bytes);
    file.read_exact(table_bytes_read.data(), table_bytes);
    ByteReader in(table_bytes_read.data(), table_bytes);
    std::vector<StoredLayer> stored(layer_count);
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
        stored[i].weights = in.u32();
        stored[i].biases = in.u32();
        read_widths(in.u32(), format, q);
    }
    std::uint64_t offset = quantized_file::kHeaderBytes + table_bytes;
    std::vector<std::int16_t> weights;  // OnDemand: one layer at a time, to hash it
    std::vector<std::int16_t> biases;
    for (std::uint32_t i = 0; i < layer_count; ++i) {
        StoredLayer& layer = stored[i];
        const std::uint64_t bytes = 2 * (static_cast<std::uint64_t>(layer.weights) + layer.biases);
        if (bytes > body_end - offset) {
            throw Error(fmt::format("{}: the parameters of layer {} run past the end of the file; {}", path,
                                    i, kRequantize));
        }
        layer.offset = offset;
        layer.hash = kFnvOffsetBasis;
        const bool keep = loading == ParameterLoading::InMemory;
        read_i16(file, keep ? quantized.layers[i].weights : weights, layer.weights, layer.hash);
        read_i16(file, keep ? quantized.layers[i].biases : biases, layer.biases, layer.hash);
        offset += bytes;
    }
    if (offset != body_end)
        throw Error(fmt::format("{}: unexpected bytes after the parameters; {}", path, kRequantize));
    if (loading == ParameterLoading::OnDemand)
        quantized.parameter_source =
            std::make_shared<FileParameterSource>(path, file.size(), std::move(stored));
    validate_quantized_network(quantized, path);
}

}  // namespace

QuantizedNetwork load_quantized_network(const std::string& path, Network network, QuantizedFileInfo* info,
                                        ParameterLoading loading) {
    core::InputFile file(path, kRole);
    if (loading == ParameterLoading::InMemory) {
        require_host_memory(file.size(), path, "the quantized model's parameters are read into memory",
                            "this is not a quantized model of a network that fits here");
    }
    const QuantizedFileInfo header = check_envelope(file);
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
    read_layers(file, header.format_version, loading, quantized);
    if (info != nullptr) *info = header;
    return quantized;
}

}  // namespace fpgacnn
