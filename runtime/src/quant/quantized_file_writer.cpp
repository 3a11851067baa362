#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "quant/byte_io.hpp"
#include "quant/quantized_file_layout.hpp"

namespace fpgacnn {

namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> serialise(const QuantizedNetwork& quantized, std::uint64_t tiling_fingerprint) {
    const Network& network = quantized.network;
    ByteWriter out;
    out.raw(quantized_file::kMagic, sizeof quantized_file::kMagic);
    out.u32(kQuantizedFormatVersion);
    out.u32(static_cast<std::uint32_t>(arith::kContractVersion));
    out.u64(0);  // file size, patched below
    out.u64(network_fingerprint(network));
    out.u64(weights_fingerprint(network));
    out.u64(tiling_fingerprint);
    out.i32(quantized.input_q);
    out.u32(static_cast<std::uint32_t>(network.layers.size()));
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const QuantizedLayer& q = quantized.layers[i];
        out.u32(static_cast<std::uint32_t>(network.layers[i].type));
        out.i32(q.input_q);
        out.i32(q.output_q);
        out.i32(q.weight_q);
        out.i32(q.bias_q);
        out.u32(static_cast<std::uint32_t>(q.weights.size()));
        out.u32(static_cast<std::uint32_t>(q.biases.size()));
        out.u32(quantized_file::pack_widths(q.output_bits, q.weight_bits));
    }
    for (const QuantizedLayer& q : quantized.layers) {
        out.i16_array(q.weights);
        out.i16_array(q.biases);
    }
    out.put_u64_at(quantized_file::kFileSizeOffset, out.size() + quantized_file::kChecksumBytes);
    out.u64(fnv1a(out.bytes().data(), out.size()));
    return out.bytes();
}

}  // namespace

void save_quantized_network(const QuantizedNetwork& quantized, const std::string& path,
                            std::uint64_t tiling_fingerprint) {
    if (!quantized.network.weights_loaded) {
        throw Error(path +
                    ": the quantized network's float weights are not loaded, so the file could not "
                    "record which weights it was made from; quantize a network with weights");
    }
    if (quantized.parameter_source) {
        throw Error(path +
                    ": the quantized network's parameters were left in its model file "
                    "(ParameterLoading::OnDemand); load it with ParameterLoading::InMemory to save it");
    }
    validate_quantized_network(quantized, path);
    const std::vector<std::uint8_t> bytes = serialise(quantized, tiling_fingerprint);

    // A temporary next to the target and a rename: readers never see a half-written model.
    const fs::path target(path);
    const fs::path temporary = target.string() + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw Error(fmt::format("{}: cannot create (is the folder writable?)", temporary.string()));
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(temporary, ignored);
            throw Error(fmt::format("{}: write failed after {} bytes (disk full?)", temporary.string(),
                                    bytes.size()));
        }
    }
    std::error_code ec;
    fs::rename(temporary, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw Error(fmt::format("{}: cannot replace it with the new model: {}", path, ec.message()));
    }
}

}  // namespace fpgacnn
