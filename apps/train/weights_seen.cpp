#include "weights_seen.hpp"

#include <fstream>

#include "fpgacnn/error.hpp"
#include "model/weights_format.hpp"

namespace fpgacnn::train_tool {

std::uint64_t read_weights_seen(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char header[model::kHeaderBytesSeen64] = {};
    if (!in.read(reinterpret_cast<char*>(header), model::kHeaderBytesSeen32)) {  // NOLINT(*-reinterpret-cast)
        throw Error(path + ": cannot read the .weights header");
    }
    const auto major = static_cast<std::int32_t>(model::read_u32_le(header));
    const auto minor = static_cast<std::int32_t>(model::read_u32_le(header + 4));
    std::uint64_t seen = model::read_u32_le(header + 12);
    if (model::has_64bit_seen(major, minor)) {
        if (!in.read(reinterpret_cast<char*>(header + model::kHeaderBytesSeen32),
                     4)) {  // NOLINT(*-reinterpret-cast)
            throw Error(path + ": cannot read the .weights header");
        }
        seen |= static_cast<std::uint64_t>(model::read_u32_le(header + 16)) << 32;
    }
    return seen;
}

}  // namespace fpgacnn::train_tool
