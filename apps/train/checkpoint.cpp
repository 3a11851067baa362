#include "checkpoint.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "fpgacnn/error.hpp"
#include "model/weights_format.hpp"

namespace fpgacnn::train_tool {

namespace {

// Version 2 added the update count and Adam's moments; version 1 files (SGD only) still load.
constexpr char kMagic[] = "FPGACNN-TRAIN-CHECKPOINT 2\n";
constexpr char kMagicVersion1[] = "FPGACNN-TRAIN-CHECKPOINT 1\n";
static_assert(sizeof kMagic == sizeof kMagicVersion1, "the versions' magic lines have one length");

// The arrays of one conv layer, in file order (version 1: without the moments, empty unless adam=1).
template <typename Params, typename Gradients>
auto layer_arrays(Params& conv, Gradients& gradients, bool with_moments = true) {
    std::vector<decltype(&conv.weights)> arrays{
        &conv.biases,  &conv.bn_scales,           &conv.bn_mean,           &conv.bn_variance,
        &conv.weights, &gradients.weight_updates, &gradients.bias_updates, &gradients.scale_updates};
    if (with_moments) {
        arrays.insert(arrays.end(), {&gradients.weight_m, &gradients.weight_v, &gradients.bias_m,
                                     &gradients.bias_v, &gradients.scale_m, &gradients.scale_v});
    }
    return arrays;
}

void append_u64(std::vector<unsigned char>& out, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(value >> (8 * i)));
}

class Reader {
public:
    Reader(std::vector<unsigned char> bytes, std::string path)
        : bytes_(std::move(bytes)), path_(std::move(path)) {}
    std::uint64_t u64() {
        need(8);
        std::uint64_t value = 0;
        for (int i = 0; i < 8; ++i) value |= static_cast<std::uint64_t>(bytes_[at_ + i]) << (8 * i);
        at_ += 8;
        return value;
    }
    void floats(std::vector<float>& values, const std::string& what) {
        const std::uint64_t count = u64();
        if (count != values.size()) {
            throw Error(path_ + ": " + what + " has " + std::to_string(count) +
                        " values but the cfg's layer has " + std::to_string(values.size()) +
                        "; resume with the cfg the checkpoint was written for");
        }
        need(count * 4);
        for (float& value : values) {
            const std::uint32_t bits = model::read_u32_le(&bytes_[at_]);
            std::memcpy(&value, &bits, sizeof value);
            at_ += 4;
        }
    }
    std::string text(std::size_t size) {
        need(size);
        std::string value(bytes_.begin() + static_cast<std::ptrdiff_t>(at_),
                          bytes_.begin() + static_cast<std::ptrdiff_t>(at_ + size));
        at_ += size;
        return value;
    }
    bool done() const { return at_ == bytes_.size(); }

private:
    void need(std::uint64_t count) const {
        if (count > bytes_.size() - at_) throw Error(path_ + ": the checkpoint is truncated");
    }
    std::vector<unsigned char> bytes_;
    std::string path_;
    std::size_t at_ = 0;
};

}  // namespace

void save_checkpoint(const std::string& path, const train::FloatTrainer& trainer,
                     const std::string& data_state) {
    std::vector<unsigned char> bytes(kMagic, kMagic + sizeof kMagic - 1);
    append_u64(bytes, trainer.seen());
    append_u64(bytes, trainer.updates());
    append_u64(bytes, data_state.size());
    bytes.insert(bytes.end(), data_state.begin(), data_state.end());
    for (const Layer& layer : trainer.network().layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& conv = layer.conv();
        for (const std::vector<float>* values : layer_arrays(conv, trainer.gradients(layer.index))) {
            append_u64(bytes, values->size());
            for (const float value : *values) {
                std::uint32_t bits = 0;
                std::memcpy(&bits, &value, sizeof bits);
                bytes.resize(bytes.size() + 4);
                model::write_u32_le(bits, &bytes[bytes.size() - 4]);
            }
        }
    }
    model::write_file_replacing(path, bytes);
}

std::string load_checkpoint(const std::string& path, train::FloatTrainer& trainer) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot read the checkpoint");
    Reader reader(std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {}), path);
    const std::string magic = reader.text(sizeof kMagic - 1);
    const bool version1 = magic == kMagicVersion1;
    if (magic != kMagic && !version1) {
        throw Error(path +
                    ": not an fpgacnn-train checkpoint (written by fpgacnn-train --checkpoint-every or on "
                    "Ctrl-C); a darknet .weights file goes to --weights instead");
    }
    if (version1 && trainer.options().solver.adam) {
        throw Error(path +
                    ": written by an fpgacnn-train without Adam (checkpoint version 1: no moments to "
                    "resume); resume with the cfg it was trained with (no adam=1)");
    }
    const std::uint64_t seen = reader.u64();
    const std::uint64_t updates = version1 ? 0 : reader.u64();
    const std::uint64_t state_size = reader.u64();
    std::string data_state = reader.text(state_size);
    for (Layer& layer : trainer.network().layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const std::string what = model::describe_conv_layer(layer);
        for (std::vector<float>* values :
             layer_arrays(layer.conv(), trainer.gradients(layer.index), !version1)) {
            reader.floats(*values, what);
        }
    }
    if (!reader.done())
        throw Error(path + ": the checkpoint has more layers than the cfg; use the cfg it was written for");
    trainer.set_seen(seen);
    trainer.set_updates(updates);
    return data_state;
}

}  // namespace fpgacnn::train_tool
