#include "protocol_tensors.hpp"

#include <cmath>
#include <cstring>

#include "image_input.hpp"

namespace fpgacnn::serve {

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

// The protocol's tensors are little-endian; so are the x86 and ARM hosts fpgacnn runs on, which
// lets values be copied as they lie in memory.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "raw tensors are copied as they lie in memory");
static_assert(sizeof(float) == 4, "FP32 is a 4-byte IEEE float");

template <typename Value>
std::string raw_values(const std::vector<Value>& values) {
    std::string raw(values.size() * sizeof(Value), '\0');
    if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
    return raw;
}

std::uint32_t read_length(std::string_view raw, std::size_t at) {
    std::uint32_t length = 0;
    for (int i = 3; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(raw[at + i]);
    return length;
}

}  // namespace

const std::vector<std::string>& output_names() {
    static const std::vector<std::string> names = {"boxes", "scores", "classes", "labels"};
    return names;
}

std::vector<std::string_view> split_raw_bytes(std::string_view raw, const std::string& tensor) {
    std::vector<std::string_view> elements;
    std::size_t at = 0;
    while (at < raw.size()) {
        if (raw.size() - at < 4) {
            throw ServeError(ErrorKind::InvalidArgument,
                             tensor + ": raw BYTES data ends inside an element's 4-byte length (at byte " +
                                 std::to_string(at) + " of " + std::to_string(raw.size()) + ")");
        }
        const std::uint32_t length = read_length(raw, at);
        at += 4;
        if (length > raw.size() - at) {
            throw ServeError(ErrorKind::InvalidArgument, tensor + ": raw BYTES element " +
                                                             std::to_string(elements.size()) + " says " +
                                                             std::to_string(length) + " bytes but only " +
                                                             std::to_string(raw.size() - at) + " follow");
        }
        elements.push_back(raw.substr(at, length));
        at += length;
    }
    return elements;
}

std::string join_raw_bytes(const std::vector<std::string>& elements) {
    std::string raw;
    for (const std::string& element : elements) {
        const auto length = static_cast<std::uint32_t>(element.size());
        for (int i = 0; i < 4; ++i) raw += static_cast<char>((length >> (8 * i)) & 0xff);
        raw += element;
    }
    return raw;
}

ImageInput image_from_tensor(const std::string& request_id, const std::string& name,
                             const std::string& datatype, const std::vector<std::int64_t>& shape,
                             std::string raw_bytes) {
    // Taken over, not copied: the pixels reach the detector in this very buffer.
    ImageInput held;
    held.hold(std::move(raw_bytes));
    return image_from_tensor(request_id, name, datatype, shape, held.bytes, std::move(held.storage));
}

ServeError shared_memory_output_error(const std::string& who, const std::string& output) {
    return ServeError(
        ErrorKind::InvalidArgument,
        who + " output '" + output +
            "': outputs are not written to shared memory (they are a few hundred bytes and come "
            "in the response); drop its " +
            kSharedMemoryRegionParameter + " parameter");
}

ImageInput image_from_shared_memory(const std::string& request_id, const std::string& name,
                                    const std::string& datatype, const std::vector<std::int64_t>& shape,
                                    const SharedMemoryInput& input, const SharedMemoryRegions* regions) {
    const std::string where = "request '" + request_id + "' input '" + name + "'";
    if (regions == nullptr) throw shared_memory_off_error();
    if (!input.byte_size) {
        throw ServeError(ErrorKind::InvalidArgument, where + ": " + kSharedMemoryRegionParameter +
                                                         " without " + kSharedMemoryByteSizeParameter);
    }
    SharedBytes shared = regions->bytes(input.region, input.offset, *input.byte_size, where);
    return image_from_tensor(request_id, name, datatype, shape, shared.bytes, std::move(shared.owner));
}

ImageInput image_from_tensor(const std::string& request_id, const std::string& name,
                             const std::string& datatype, const std::vector<std::int64_t>& shape,
                             std::string_view raw, std::shared_ptr<const void> owner) {
    ImageInput input;
    input.bytes = raw;
    input.storage = std::move(owner);
    const std::string where = "request '" + request_id + "' input '" + name + "'";
    if (name != kImageInputName) {
        throw ServeError(ErrorKind::InvalidArgument, "request '" + request_id + "': unknown input '" + name +
                                                         "' (the only input is 'image')");
    }
    if (datatype == "BYTES") {
        if (shape != std::vector<std::int64_t>{1}) {
            throw ServeError(
                ErrorKind::InvalidArgument,
                where + ": BYTES shape must be [1] (one encoded image), got " + shape_text(shape));
        }
        const std::vector<std::string_view> elements = split_raw_bytes(raw, where);
        if (elements.size() != 1) {
            throw ServeError(ErrorKind::InvalidArgument, where + ": shape [1] but the data holds " +
                                                             std::to_string(elements.size()) + " elements");
        }
        // Found by fuzz_rest_request: an empty file would otherwise reach the decoder.
        if (elements[0].empty())
            throw ServeError(ErrorKind::InvalidArgument, where + ": the encoded image is empty (0 bytes)");
        input.form = ImageInput::Form::Encoded;
        input.bytes = elements[0];  // the file inside its raw encoding
        return input;
    }
    if (datatype == "UINT8") {
        if (shape.size() != 3 || shape[2] != 3 || shape[0] < 1 || shape[1] < 1 || shape[0] > kMaxPixelSide ||
            shape[1] > kMaxPixelSide) {
            throw ServeError(ErrorKind::InvalidArgument,
                             where + ": UINT8 shape must be [H, W, 3] (RGB pixels, sides in [1, " +
                                 std::to_string(kMaxPixelSide) + "]), got " + shape_text(shape));
        }
        const auto expected = static_cast<std::size_t>(shape[0] * shape[1] * 3);
        if (raw.size() != expected) {
            throw ServeError(ErrorKind::InvalidArgument, where + ": " + std::to_string(raw.size()) +
                                                             " bytes for shape " + shape_text(shape) +
                                                             ", which needs " + std::to_string(expected));
        }
        input.form = ImageInput::Form::RgbPixels;
        input.height = static_cast<int>(shape[0]);
        input.width = static_cast<int>(shape[1]);
        return input;
    }
    throw ServeError(ErrorKind::InvalidArgument,
                     where + ": datatype '" + datatype + "' is not served (BYTES [1] or UINT8 [H, W, 3])");
}

std::chrono::steady_clock::time_point deadline_after_seconds(double seconds) {
    constexpr double kDay = 24 * 3600;
    if (!std::isfinite(seconds) || seconds <= 0 || seconds > kDay) {
        throw ServeError(
            ErrorKind::InvalidArgument,
            "parameter 'timeout' must be a number of seconds in (0, 86400], got " + std::to_string(seconds));
    }
    return std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                  std::chrono::duration<double>(seconds));
}

std::vector<OutputTensor> output_tensors(const InferenceResponse& response) {
    const auto n = static_cast<std::int64_t>(response.scores.size());
    std::vector<OutputTensor> tensors;
    for (const std::string& name : response.outputs) {
        if (name == "boxes") {
            tensors.push_back({name, "FP32", {n, 4}, raw_values(response.boxes)});
        } else if (name == "scores") {
            tensors.push_back({name, "FP32", {n}, raw_values(response.scores)});
        } else if (name == "classes") {
            tensors.push_back({name, "INT32", {n}, raw_values(response.classes)});
        } else if (name == "labels") {
            tensors.push_back({name, "BYTES", {n}, join_raw_bytes(response.labels)});
        } else {
            throw ServeError(ErrorKind::InvalidArgument, "unknown output '" + name + "'");
        }
    }
    return tensors;
}

}  // namespace fpgacnn::serve
