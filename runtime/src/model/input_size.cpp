#include <charconv>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "model/layer_builders.hpp"

namespace fpgacnn {

namespace {

bool parse_side(const std::string& text, int& side) {
    if (text.empty() || text.size() > 6) return false;
    const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), side);
    return error == std::errc() && stop == text.data() + text.size() && side >= 1 &&
           side <= model::kMaxImageSide;
}

}  // namespace

InputSizeOverride parse_input_size(const std::string& text) {
    const std::size_t separator = text.find_first_of("xX");
    InputSizeOverride size;
    if (separator == std::string::npos || !parse_side(text.substr(0, separator), size.width) ||
        !parse_side(text.substr(separator + 1), size.height)) {
        throw Error("input size '" + text + "' is not WIDTHxHEIGHT; write it like 416x416 (each side 1.." +
                    std::to_string(model::kMaxImageSide) + ", a multiple of 32 for YOLOv2)");
    }
    return size;
}

}  // namespace fpgacnn
