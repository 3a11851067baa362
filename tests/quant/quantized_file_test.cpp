// The quantized model file: exact round trip, atomic write, and a loud, specific refusal of every
// kind of mismatch or damage.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "quant_test_support.hpp"

namespace fs = std::filesystem;

namespace fpgacnn {
namespace {

std::vector<unsigned char> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The file's trailer: FNV-1a 64 of everything before it (recomputed after deliberate edits, so that
// the checks behind the checksum can be reached).
void reseal(std::vector<unsigned char>& bytes) {
    std::uint64_t hash = 14695981039346656037ull;
    for (std::size_t i = 0; i < bytes.size() - 8; ++i) {
        hash ^= bytes[i];
        hash *= 1099511628211ull;
    }
    for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<unsigned char>(hash >> (8 * i));
}

void put_u32(std::vector<unsigned char>& bytes, std::size_t offset, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[offset + i] = static_cast<unsigned char>(v >> (8 * i));
}

std::int32_t get_i32(const std::vector<unsigned char>& bytes, std::size_t offset) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(bytes[offset + i]) << (8 * i);
    return static_cast<std::int32_t>(v);
}

// Offsets of a layer's exponent fields in the layer table (quantized_file_layout.hpp).
constexpr std::size_t kInputQ = 4;
constexpr std::size_t kOutputQ = 8;
std::size_t field(std::size_t layer, std::size_t offset) { return 56 + 32 * layer + offset; }

// Adds `delta` to one i32 field.
void bump(std::vector<unsigned char>& bytes, std::size_t offset, int delta) {
    put_u32(bytes, offset, static_cast<std::uint32_t>(get_i32(bytes, offset) + delta));
}

class QuantizedFile : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new std::string(test::scratch_dir("quant_file"));
        cfg_ = new std::string(test::write_tiny_cfg(*dir_));
        network_ = new Network(test::tiny_network(*cfg_));
        calibrated_ = new QuantizedNetwork(calibrate(*network_, test::sample_images()).quantized);
    }
    static void TearDownTestSuite() {
        delete calibrated_;
        delete network_;
        delete cfg_;
        delete dir_;
    }

    // A fresh copy of a good file for each test to damage.
    std::string good_file(const std::string& name) {
        const std::string path = *dir_ + "/" + name;
        save_quantized_network(*calibrated_, path);
        return path;
    }

    // A good file with `edit` applied to its bytes and the checksum made valid again.
    template <typename Edit>
    std::string edited_file(const std::string& name, Edit&& edit) {
        std::string path = good_file(name);
        auto bytes = read_bytes(path);
        edit(bytes);
        reseal(bytes);
        write_bytes(path, bytes);
        return path;
    }

    static void expect_error(const std::string& path, const Network& network, const std::string& needle) {
        try {
            load_quantized_network(path, network);
            FAIL() << "expected an Error containing '" << needle << "'";
        } catch (const Error& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find(needle), std::string::npos) << message;
            EXPECT_NE(message.find(path), std::string::npos) << "the message must name the file: " << message;
        }
    }

    static std::string* dir_;
    static std::string* cfg_;
    static Network* network_;
    static QuantizedNetwork* calibrated_;
};

std::string* QuantizedFile::dir_ = nullptr;
std::string* QuantizedFile::cfg_ = nullptr;
Network* QuantizedFile::network_ = nullptr;
QuantizedNetwork* QuantizedFile::calibrated_ = nullptr;

TEST_F(QuantizedFile, RoundTripIsExact) {
    const std::string path = good_file("round_trip.fq16");
    QuantizedFileInfo info;
    const QuantizedNetwork loaded = load_quantized_network(path, *network_, &info);
    EXPECT_EQ(info.format_version, kQuantizedFormatVersion);
    EXPECT_EQ(info.contract_version, static_cast<std::uint32_t>(arith::kContractVersion));
    EXPECT_EQ(info.network_fingerprint, network_fingerprint(*network_));
    EXPECT_EQ(info.weights_fingerprint, weights_fingerprint(*network_));
    EXPECT_EQ(info.tiling_fingerprint, 0u);
    EXPECT_EQ(info.bytes, fs::file_size(path));
    EXPECT_EQ(loaded.input_q, calibrated_->input_q);
    ASSERT_EQ(loaded.layers.size(), calibrated_->layers.size());
    for (std::size_t i = 0; i < loaded.layers.size(); ++i) {
        const QuantizedLayer& a = loaded.layers[i];
        const QuantizedLayer& b = calibrated_->layers[i];
        EXPECT_EQ(a.input_q, b.input_q) << "layer " << i;
        EXPECT_EQ(a.output_q, b.output_q) << "layer " << i;
        EXPECT_EQ(a.weight_q, b.weight_q) << "layer " << i;
        EXPECT_EQ(a.bias_q, b.bias_q) << "layer " << i;
        EXPECT_EQ(a.weights, b.weights) << "layer " << i;
        EXPECT_EQ(a.biases, b.biases) << "layer " << i;
    }
    EXPECT_EQ(loaded.network.layers.size(), network_->layers.size());
    // Saving what was loaded gives the same bytes.
    const std::string again = *dir_ + "/round_trip_again.fq16";
    save_quantized_network(loaded, again);
    EXPECT_EQ(read_bytes(path), read_bytes(again));
}

TEST_F(QuantizedFile, TilingFingerprintIsStored) {
    const std::string path = *dir_ + "/tiled.fq16";
    save_quantized_network(*calibrated_, path, 0x1234abcdull);
    QuantizedFileInfo info;
    load_quantized_network(path, *network_, &info);
    EXPECT_EQ(info.tiling_fingerprint, 0x1234abcdull);
}

TEST_F(QuantizedFile, WriteIsAtomicAndLeavesNoTemporary) {
    const std::string path = good_file("atomic.fq16");
    const auto before = read_bytes(path);
    // A failing save (a broken network) must leave the existing file untouched.
    QuantizedNetwork broken = *calibrated_;
    broken.layers[0].weights.pop_back();
    EXPECT_THROW(save_quantized_network(broken, path), Error);
    EXPECT_EQ(read_bytes(path), before);
    for (const auto& entry : fs::directory_iterator(*dir_)) {
        EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
    }
    EXPECT_THROW(save_quantized_network(*calibrated_, *dir_ + "/no/such/folder/x.fq16"), Error);
}

TEST_F(QuantizedFile, AFlippedByteFailsTheChecksum) {
    const std::string path = good_file("flipped.fq16");
    auto bytes = read_bytes(path);
    bytes[bytes.size() / 2] ^= 0x10;  // somewhere in the int16 parameters
    write_bytes(path, bytes);
    expect_error(path, *network_, "checksum mismatch");
}

TEST_F(QuantizedFile, ATruncatedFileFailsTheSizeCheck) {
    const std::string path = good_file("truncated.fq16");
    auto bytes = read_bytes(path);
    bytes.resize(bytes.size() - 100);
    write_bytes(path, bytes);
    expect_error(path, *network_, "size mismatch");
    bytes.resize(20);
    write_bytes(path, bytes);
    expect_error(path, *network_, "truncated");
}

TEST_F(QuantizedFile, WrongMagicIsNotAQuantizedFile) {
    const std::string path = good_file("magic.fq16");
    auto bytes = read_bytes(path);
    bytes[0] = 'X';
    write_bytes(path, bytes);
    expect_error(path, *network_, "not an fpgacnn quantized model file");
    // A darknet .weights file passed by mistake.
    const std::string weights = *dir_ + "/tiny.weights";
    Network unfolded = load_darknet_cfg(*cfg_);
    fill_synthetic_weights(unfolded, 7);
    save_darknet_weights(unfolded, weights);
    expect_error(weights, *network_, "FPGACNNQ");
}

TEST_F(QuantizedFile, AnotherCfgOrInputSizeFailsTheFingerprint) {
    const std::string path = good_file("fingerprint.fq16");
    const std::string other_cfg = test::write_tiny_cfg(*dir_, "other.cfg", 30);
    {
        // Same layers, different input size.
        Network resized = load_darknet_cfg(*cfg_, InputSizeOverride{64, 64});
        expect_error(path, resized, "quantized for a different cfg or input size");
    }
    {
        // One option changed in the cfg: the last conv becomes leaky.
        std::string text = test::tiny_yolo_cfg_text();
        const std::size_t at = text.rfind("activation=linear");
        text.replace(at, std::strlen("activation=linear"), "activation=leaky");
        std::ofstream(other_cfg) << text;
        expect_error(path, load_darknet_cfg(other_cfg), "re-run fpgacnn-quantize");
    }
    // The right cfg without weights loads (the int16 path needs only the file's parameters).
    EXPECT_NO_THROW(load_quantized_network(path, load_darknet_cfg(*cfg_)));
}

TEST_F(QuantizedFile, OtherWeightsAreRefused) {
    const std::string path = good_file("weights.fq16");
    expect_error(path, test::tiny_network(*cfg_, 99), "quantized from other weights");
}

TEST_F(QuantizedFile, NewerFormatOrContractVersionsAreRefused) {
    const std::string path = good_file("versions.fq16");
    auto bytes = read_bytes(path);
    put_u32(bytes, 8, kQuantizedFormatVersion + 1);
    reseal(bytes);
    write_bytes(path, bytes);
    expect_error(path, *network_, "file format version " + std::to_string(kQuantizedFormatVersion + 1));
    expect_error(path, *network_, "made by a newer fpgacnn");

    bytes = read_bytes(good_file("versions.fq16"));
    put_u32(bytes, 12, static_cast<std::uint32_t>(arith::kContractVersion) + 1);
    reseal(bytes);
    write_bytes(path, bytes);
    expect_error(path, *network_, "arithmetic contract version");
}

// Offset of a layer's widths word in the layer table (format 2; format 1 wrote 0 there).
constexpr std::size_t kWidths = 28;

TEST_F(QuantizedFile, PerLayerWidthsRoundTrip) {
    // tiny_yolo_cfg_text(): 0 conv, 1 maxpool, 2 conv, 3 maxpool, 4 conv, 5 route (2), 6 reorg, 7 route
    // (6, 4), 8 conv, 9 region. Asked: conv 0 and 4 at 8 bits, conv 2 8-bit weights with a 16-bit output,
    // conv 8 at 16. Route 7 joins conv 4 with conv 2's 16-bit values, so conv 4's output is widened.
    CalibrationOptions options;
    options.widths = uniform_conv_widths(*network_, arith::kNarrowBits);
    options.widths[2] = {arith::kNarrowBits, arith::kDataBits};
    options.widths[8] = {arith::kDataBits, arith::kDataBits};
    const CalibrationResult result = calibrate(*network_, test::sample_images(), options);
    const QuantizedNetwork& mixed = result.quantized;
    const std::string path = *dir_ + "/mixed.fq16";
    save_quantized_network(mixed, path);
    const QuantizedNetwork back = load_quantized_network(path, *network_);
    std::vector<int> narrow_outputs;
    for (std::size_t i = 0; i < mixed.layers.size(); ++i) {
        EXPECT_EQ(back.layers[i].output_bits, mixed.layers[i].output_bits) << "layer " << i;
        EXPECT_EQ(back.layers[i].weight_bits, mixed.layers[i].weight_bits) << "layer " << i;
        EXPECT_EQ(back.layers[i].weights, mixed.layers[i].weights) << "layer " << i;
        if (mixed.layers[i].output_bits == arith::kNarrowBits) narrow_outputs.push_back(static_cast<int>(i));
    }
    EXPECT_EQ(narrow_outputs, (std::vector<int>{0, 1}));  // conv 0 and the maxpool that carries it
    EXPECT_EQ(mixed.layers[2].weight_bits, arith::kNarrowBits);
    EXPECT_EQ(mixed.layers[4].weight_bits, arith::kNarrowBits);
    EXPECT_EQ(mixed.layers[4].output_bits, arith::kDataBits);
    for (const int16_t w : mixed.layers[2].weights) ASSERT_TRUE(w >= -128 && w <= 127) << w;
    const bool widened = std::any_of(result.notes.begin(), result.notes.end(), [](const std::string& note) {
        return note.find("layer 4 (conv): output widened to 16 bits: route layer 7") != std::string::npos;
    });
    EXPECT_TRUE(widened) << "calibration must say why conv 4's output is 16-bit";
    // An 8-bit activation exponent (least squared error) is never coarser than the one that holds the
    // largest value in 8 bits: the 16-bit exponent plus its margin bit, minus 8.
    EXPECT_GE(mixed.layers[0].output_q, calibrated_->layers[0].output_q + 1 - 8);
}

TEST_F(QuantizedFile, FormatOneFilesStillLoadAsSixteenBit) {
    // A format-1 file as the previous release wrote it: version 1, contract 1, zeros in the widths word.
    const std::string path = edited_file("format1.fq16", [](auto& bytes) {
        put_u32(bytes, 8, 1);
        put_u32(bytes, 12, 1);
        for (std::size_t layer = 0; layer < 10; ++layer) put_u32(bytes, field(layer, kWidths), 0);
    });
    QuantizedFileInfo info;
    const QuantizedNetwork old = load_quantized_network(path, *network_, &info);
    EXPECT_EQ(info.format_version, 1u);
    for (const QuantizedLayer& layer : old.layers) {
        EXPECT_EQ(layer.output_bits, arith::kDataBits);
        EXPECT_EQ(layer.weight_bits, arith::kDataBits);
    }
    EXPECT_EQ(old.layers[0].weights, calibrated_->layers[0].weights);
}

TEST_F(QuantizedFile, WidthsThatBreakTheContractAreRefused) {
    // A width the contract does not store.
    std::string path =
        edited_file("width12.fq16", [](auto& bytes) { put_u32(bytes, field(0, kWidths), 16 | 12 << 8); });
    expect_error(path, *network_, "weight width 12 bits");
    // A maxpool that narrows what it moves.
    path = edited_file("maxpool_narrows.fq16",
                       [](auto& bytes) { put_u32(bytes, field(1, kWidths), 8 | 16 << 8); });
    expect_error(path, *network_, "output_bits of layer 0");
    // 16-bit weights declared 8-bit: they do not fit.
    path = edited_file("weights_too_wide.fq16",
                       [](auto& bytes) { put_u32(bytes, field(0, kWidths), 16 | 8 << 8); });
    expect_error(path, *network_, "outside the layer's 8-bit range");
}

TEST_F(QuantizedFile, ExponentsOutsideTheContractAreRefusedEvenWithAValidChecksum) {
    const std::string path = good_file("exponents.fq16");
    auto bytes = read_bytes(path);
    put_u32(bytes, 56 + 4 * 4, 40);  // layer 0's bias exponent field
    reseal(bytes);
    write_bytes(path, bytes);
    expect_error(path, *network_, "bias exponent 40");
}

// Files whose checksum is valid but whose exponents break the contract: the CPU int16 engine refused
// them, the devices ran them with wrong results. Now load_quantized_network refuses them for every
// backend, naming the layer and the rule. tiny_yolo_cfg_text(): 0 conv, 1 maxpool, 2 conv, 3 maxpool,
// 4 conv, 5 route, 6 reorg, 7 route, 8 conv, 9 region.
TEST_F(QuantizedFile, AMaxpoolThatRescalesIsRefused) {
    const std::string path = edited_file("maxpool_rescales.fq16", [](auto& bytes) {
        bump(bytes, field(1, kOutputQ), -1);  // the maxpool's output and the conv after it agree...
        bump(bytes, field(2, kInputQ), -1);   // ...but the maxpool would have to rescale
    });
    expect_error(path, *network_, "layer 1 (maxpool, cfg line");
    expect_error(path, *network_, "without rescaling them");
}

TEST_F(QuantizedFile, ABrokenRouteChainIsRefused) {
    const std::string path = edited_file("route_chain.fq16", [](auto& bytes) {
        for (const std::size_t offset : {field(7, kInputQ), field(7, kOutputQ), field(8, kInputQ)}) {
            bump(bytes, offset, 1);
        }
    });
    expect_error(path, *network_, "layer 7 (route, cfg line");
    expect_error(path, *network_, "every input must share its exponent");
}

TEST_F(QuantizedFile, AnInputExponentOtherThanLayerZerosIsRefused) {
    const std::string path =
        edited_file("input_q.fq16", [](auto& bytes) { bump(bytes, 48, -1); });  // the network's input_q
    expect_error(path, *network_, "layer 0 (convolutional, cfg line");
    expect_error(path, *network_, "the network input_q");
}

TEST_F(QuantizedFile, AZeroedWeightsFingerprintDoesNotSkipTheWeightsCheck) {
    const std::string path = edited_file(
        "zero_fingerprint.fq16", [](auto& bytes) { std::fill(bytes.begin() + 32, bytes.begin() + 40, 0); });
    expect_error(path, *network_, "quantized from other weights");
    expect_error(path, *network_, "a zero fingerprint is never written");
    // Without weights (the int16 backends need only the file's parameters) there is nothing to compare.
    EXPECT_NO_THROW(load_quantized_network(path, load_darknet_cfg(*cfg_)));
}

TEST_F(QuantizedFile, ANetworkWithoutWeightsIsNotSaved) {
    QuantizedNetwork without = *calibrated_;
    without.network.weights_loaded = false;
    const std::string path = *dir_ + "/no_weights.fq16";
    try {
        save_quantized_network(without, path);
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("float weights are not loaded"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(path));
}

TEST(QuantizedContract, CalibrationResultsAndHandMadeNetworksAreValidatedByOneFunction) {
    const std::string dir = test::scratch_dir("quant_contract");
    const Network network = test::tiny_network(test::write_tiny_cfg(dir));
    QuantizedNetwork quantized = calibrate(network, test::sample_images()).quantized;
    EXPECT_NO_THROW(validate_quantized_network(quantized, "calibrated"));
    quantized.layers[6].output_q += 1;  // the reorg rescales
    quantized.layers[7].input_q += 1;
    try {
        validate_quantized_network(quantized, "hand-made");
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("hand-made: layer 6 (reorg"), std::string::npos) << message;
        EXPECT_NE(message.find("re-run calibration"), std::string::npos) << message;
    }
}

TEST_F(QuantizedFile, MissingFileIsNamed) {
    expect_error(*dir_ + "/absent.fq16", *network_, "does not exist");
}

TEST(NetworkFingerprint, IsStableAndSensitiveToShapesNotWeights) {
    const std::string dir = test::scratch_dir("quant_fingerprint");
    const std::string cfg = test::write_tiny_cfg(dir);
    const Network a = test::tiny_network(cfg, 1);
    const Network b = test::tiny_network(cfg, 2);
    EXPECT_EQ(network_fingerprint(a), network_fingerprint(b));
    EXPECT_NE(weights_fingerprint(a), weights_fingerprint(b));
    EXPECT_NE(network_fingerprint(a), network_fingerprint(load_darknet_cfg(cfg, InputSizeOverride{64, 32})));
    EXPECT_NE(network_fingerprint(load_darknet_cfg(test::darknet_file("cfg/yolov2.cfg"))),
              network_fingerprint(load_darknet_cfg(test::darknet_file("cfg/yolov2-voc.cfg"))));
}

}  // namespace
}  // namespace fpgacnn
