#include "vision/unit_values.hpp"

#include <cstddef>

namespace fpgacnn::vision_detail {

const std::array<float, 256>& unit_values() {
    static const std::array<float, 256> table = [] {
        std::array<float, 256> values{};
        for (std::size_t v = 0; v < values.size(); ++v)
            values[v] = static_cast<float>(static_cast<double>(v) / 255.);
        return values;
    }();
    return table;
}

}  // namespace fpgacnn::vision_detail
