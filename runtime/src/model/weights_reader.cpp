// load_darknet_weights: checks the file size against the cfg before reading anything, so a
// mismatch is reported with expected vs actual bytes and the layer that runs out.
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/input_file.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "model/weights_format.hpp"

namespace fpgacnn {

namespace {

using model::ConvArrayCounts;

struct Header {
    std::int32_t major = 0;
    std::int32_t minor = 0;
    std::int32_t revision = 0;
    std::size_t bytes = 0;
};

std::string version_text(const Header& header) {
    return std::to_string(header.major) + "." + std::to_string(header.minor) + "." +
           std::to_string(header.revision);
}

Header read_header(core::InputFile& file, const std::string& path, std::size_t file_bytes) {
    if (file_bytes < model::kVersionBytes) {
        throw Error(path + ": the file has " + std::to_string(file_bytes) +
                    " bytes, too short even for a darknet .weights header (16 or 20 bytes); "
                    "it is not a .weights file or the download was cut short");
    }
    unsigned char bytes[model::kVersionBytes];
    file.read_exact(bytes, sizeof bytes);
    Header header;
    header.major = static_cast<std::int32_t>(model::read_u32_le(bytes));
    header.minor = static_cast<std::int32_t>(model::read_u32_le(bytes + 4));
    header.revision = static_cast<std::int32_t>(model::read_u32_le(bytes + 8));
    // darknet treats major/minor >= 1000 as transposed (connected-layer) files; no real detector
    // uses that, and junk data nearly always lands outside 0..999.
    if (header.major < 0 || header.minor < 0 || header.revision < 0 || header.major >= 1000 ||
        header.minor >= 1000) {
        throw Error(path + ": header version " + version_text(header) +
                    " is not a darknet .weights header (darknet writes 0.1.0 or 0.2.0); "
                    "check that the file is a darknet .weights file");
    }
    header.bytes = model::has_64bit_seen(header.major, header.minor) ? model::kHeaderBytesSeen64
                                                                     : model::kHeaderBytesSeen32;
    return header;
}

// Names the layer that runs past the end of a file of `file_bytes`.
std::string where_it_runs_out(const Network& network, const Header& header, std::size_t file_bytes) {
    if (file_bytes < header.bytes) return "it ends inside the header";
    std::size_t end = header.bytes;
    for (const Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        end += sizeof(float) * model::conv_array_counts(layer).total();
        if (end > file_bytes) return "it runs out in " + model::describe_conv_layer(layer);
    }
    return "";
}

void check_file_size(const Network& network, const std::string& path, const Header& header,
                     std::size_t file_bytes) {
    const std::size_t parameters = model::parameter_count(network);
    const std::size_t expected = header.bytes + sizeof(float) * parameters;
    if (file_bytes == expected) return;
    const std::string sizes =
        "expected " + std::to_string(expected) + " bytes (" + std::to_string(header.bytes) +
        "-byte header of version " + version_text(header) + " + " + std::to_string(parameters) +
        " floats for " + network.cfg_path + "), but the file has " + std::to_string(file_bytes) + " bytes";
    if (file_bytes < expected) {
        throw Error(path + ": truncated weights: " + sizes + "; " +
                    where_it_runs_out(network, header, file_bytes) +
                    "; the download was cut short or the weights belong to a different cfg");
    }
    throw Error(path + ": extra bytes: " + sizes + " (" + std::to_string(file_bytes - expected) +
                " bytes too many); the weights belong to a different cfg (check filters, classes and num)");
}

std::vector<float> read_floats(core::InputFile& file, std::size_t count, const std::string& path,
                               const Layer& layer, const char* array) {
    std::vector<unsigned char> bytes(count * sizeof(float));
    file.read_exact(bytes.data(), bytes.size());
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t bits = model::read_u32_le(&bytes[i * sizeof(float)]);
        std::memcpy(&values[i], &bits, sizeof(float));
        if (!std::isfinite(values[i]) || std::fabs(values[i]) > model::kMaxParameterMagnitude) {
            throw Error(path + ": " + model::describe_conv_layer(layer) + ": " + array + "[" +
                        std::to_string(i) + "] is " + model::float_text(values[i]) + ", " +
                        (std::isfinite(values[i]) ? "beyond the limit of 1e6 (real parameters are far "
                                                    "smaller; values like this overflow to inf/NaN "
                                                    "activations and silently give no detections)"
                                                  : "not a number") +
                        "; the file is corrupt or the training diverged, use another checkpoint");
        }
    }
    return values;
}

struct ConvArrays {
    std::vector<float> biases, bn_scales, bn_mean, bn_variance, weights;
};

ConvArrays read_conv_arrays(core::InputFile& file, const std::string& path, const Layer& layer) {
    const ConvArrayCounts counts = model::conv_array_counts(layer);
    ConvArrays arrays;
    arrays.biases = read_floats(file, counts.biases, path, layer, "biases");
    // darknet's load_connected_weights reads the weights before the batch-norm arrays.
    const bool connected = layer.conv().connected;
    if (connected) arrays.weights = read_floats(file, counts.weights, path, layer, "weights");
    if (counts.bn_each > 0) {
        arrays.bn_scales = read_floats(file, counts.bn_each, path, layer, "batch-norm scales");
        arrays.bn_mean = read_floats(file, counts.bn_each, path, layer, "batch-norm rolling mean");
        arrays.bn_variance = read_floats(file, counts.bn_each, path, layer, "batch-norm rolling variance");
        for (std::size_t i = 0; i < arrays.bn_variance.size(); ++i) {
            if (arrays.bn_variance[i] < 0.0f) {
                throw Error(path + ": " + model::describe_conv_layer(layer) +
                            ": batch-norm rolling variance[" + std::to_string(i) + "] is negative (" +
                            std::to_string(arrays.bn_variance[i]) + "); the file is corrupt");
            }
        }
    }
    if (!connected) arrays.weights = read_floats(file, counts.weights, path, layer, "weights");
    return arrays;
}

}  // namespace

void load_darknet_weights(Network& network, const std::string& weights_path) {
    core::InputFile file(weights_path, {"weights file", "check the path given with --weights"});
    const auto file_bytes = static_cast<std::size_t>(file.size());
    const Header header = read_header(file, weights_path, file_bytes);
    check_file_size(network, weights_path, header, file_bytes);
    require_host_memory(estimate_network_memory(network).weights, weights_path,
                        "the float weights are read into memory",
                        "run from a quantized model instead (--quantized, without --weights)");
    file.seek(header.bytes);

    // Read everything before touching the network, so a corrupt file leaves it as it was.
    std::vector<ConvArrays> loaded;
    for (const Layer& layer : network.layers) {
        if (layer.type == LayerType::Convolutional)
            loaded.push_back(read_conv_arrays(file, weights_path, layer));
    }
    std::size_t next = 0;
    for (Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        ConvParams& conv = layer.conv();
        ConvArrays& arrays = loaded[next++];
        conv.biases = std::move(arrays.biases);
        conv.bn_scales = std::move(arrays.bn_scales);
        conv.bn_mean = std::move(arrays.bn_mean);
        conv.bn_variance = std::move(arrays.bn_variance);
        conv.weights = std::move(arrays.weights);
    }
    network.weights_path = weights_path;
    network.weights_loaded = true;
    spdlog::debug("{}: weights version {}, {} bytes", weights_path, version_text(header), file_bytes);
}

}  // namespace fpgacnn
