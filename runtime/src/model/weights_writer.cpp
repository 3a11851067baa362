// save_darknet_weights: version 0.2.0 header with a 64-bit `seen` (0 unless a trainer says how many
// images the parameters have seen, as darknet's save_weights writes *net->seen), then the conv arrays
// in darknet's order. Written to "<path>.tmp-XXXXXX" and renamed, so readers never see half a file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "model/weights_format.hpp"

namespace fpgacnn {

namespace {

void check_layer_is_savable(const Layer& layer) {
    const ConvParams& conv = layer.conv();
    const model::ConvArrayCounts counts = model::conv_array_counts(layer);
    if (conv.bn_folded() && !conv.weights.empty()) {
        // Unfolding is not exact (sqrt(var) + 1e-6 cannot be made 1), so refuse instead.
        throw Error("cannot save a folded network: " + model::describe_conv_layer(layer) +
                    " has its batch-norm merged into the weights; save before calling fold_batchnorm()");
    }
    if (conv.biases.size() != counts.biases || conv.weights.size() != counts.weights ||
        conv.bn_scales.size() != counts.bn_each || conv.bn_mean.size() != counts.bn_each ||
        conv.bn_variance.size() != counts.bn_each) {
        throw Error("cannot save weights: " + model::describe_conv_layer(layer) + " has " +
                    std::to_string(conv.weights.size()) + " weights but its shape needs " +
                    std::to_string(counts.weights) + "; load or fill the weights first");
    }
}

void append_floats(std::vector<unsigned char>& out, const std::vector<float>& values) {
    const std::size_t start = out.size();
    out.resize(start + values.size() * sizeof(float));
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &values[i], sizeof bits);
        model::write_u32_le(bits, &out[start + i * sizeof(float)]);
    }
}

void append_header(std::vector<unsigned char>& out, std::uint64_t seen) {
    out.assign(model::kHeaderBytesSeen64, 0);
    model::write_u32_le(0, &out[0]);  // major
    model::write_u32_le(2, &out[4]);  // minor: 0.2 means a 64-bit `seen` follows
    model::write_u32_le(0, &out[8]);  // revision
    model::write_u32_le(static_cast<std::uint32_t>(seen), &out[12]);
    model::write_u32_le(static_cast<std::uint32_t>(seen >> 32), &out[16]);
}

void write_all(int fd, const std::vector<unsigned char>& bytes, const std::string& temp_path) {
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw Error(temp_path + ": write failed (" + std::strerror(errno) + "); is the disk full?");
        written += static_cast<std::size_t>(n);
    }
}

}  // namespace

namespace model {

std::vector<unsigned char> darknet_weights_bytes(const Network& network, std::uint64_t seen) {
    std::vector<unsigned char> bytes;
    append_header(bytes, seen);
    bytes.reserve(expected_weights_bytes(network));
    for (const Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        check_layer_is_savable(layer);
        const ConvParams& conv = layer.conv();
        append_floats(bytes, conv.biases);
        // darknet's save_connected_weights puts the weights before the batch-norm arrays.
        if (conv.connected) append_floats(bytes, conv.weights);
        append_floats(bytes, conv.bn_scales);
        append_floats(bytes, conv.bn_mean);
        append_floats(bytes, conv.bn_variance);
        if (!conv.connected) append_floats(bytes, conv.weights);
    }
    return bytes;
}

void write_file_replacing(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::string temp_path = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(temp_path.data());
    if (fd < 0) {
        throw Error(path + ": cannot create a file next to it (" + std::strerror(errno) +
                    "); check that the folder exists and is writable");
    }
    try {
        write_all(fd, bytes, temp_path);
    } catch (...) {
        ::close(fd);
        std::remove(temp_path.c_str());
        throw;
    }
    // mkstemp creates 0600; a weights file is ordinary data that others may read.
    ::fchmod(fd, 0644);
    if (::close(fd) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temp_path.c_str());
        throw Error(temp_path + ": close failed (" + reason + "); is the disk full?");
    }
    if (std::rename(temp_path.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temp_path.c_str());
        throw Error(path + ": cannot rename " + temp_path + " to it (" + reason + ")");
    }
}

}  // namespace model

void save_darknet_weights(const Network& network, const std::string& weights_path) {
    save_darknet_weights(network, weights_path, 0);
}

void save_darknet_weights(const Network& network, const std::string& weights_path, std::uint64_t seen) {
    model::write_file_replacing(weights_path, model::darknet_weights_bytes(network, seen));
}

}  // namespace fpgacnn
