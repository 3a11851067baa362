#include "pipeline/golden_twin_compare.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "fpgacnn/error.hpp"

namespace fpgacnn {

namespace {
constexpr std::array<OnMismatch, 2> kOnMismatchValues = {OnMismatch::Log, OnMismatch::Fallback};
}

std::string on_mismatch_name(OnMismatch value) { return value == OnMismatch::Log ? "log" : "fallback"; }

OnMismatch parse_on_mismatch(const std::string& text) {
    for (const OnMismatch value : kOnMismatchValues) {
        if (text == on_mismatch_name(value)) return value;
    }
    throw Error(
        "--on-mismatch '" + text +
        "': valid values are log (log and count it) and fallback (also switch to the CPU int16 backend)");
}

std::string TwinMismatch::text() const {
    std::string where = fmt::format(
        "frame {}: layer {} ({}) differs from the CPU int16 backend first at channel {}, "
        "row {}, column {} (device {}, cpu {})",
        frame, layer, layer_kind, channel, row, column, device_value, cpu_value);
    if (tile >= 0) {
        where += fmt::format(", in output tile {} (tile row {}, column {} of {} x {})", tile, tile_row,
                             tile_column, row_tiles, column_tiles);
    }
    return where + fmt::format("; {} value(s) of the layer differ", differing_values);
}

}  // namespace fpgacnn

namespace fpgacnn::pipeline_detail {

namespace {

void locate_tile(const LayerPlan& layer, TwinMismatch& mismatch) {
    const bool tiled_by_output =
        layer.on_device && layer.type != LayerType::Reorg && layer.tile_rows > 0 && layer.tile_cols > 0;
    if (!tiled_by_output) return;
    mismatch.row_tiles = layer.row_tiles;
    mismatch.column_tiles = layer.col_tiles;
    mismatch.tile_row = mismatch.row / layer.tile_rows;
    mismatch.tile_column = mismatch.column / layer.tile_cols;
    mismatch.tile = mismatch.tile_row * layer.col_tiles + mismatch.tile_column;
}

}  // namespace

std::optional<TwinMismatch> first_divergence(
    const NetworkPlan& plan, const std::vector<std::vector<int16_t>>& device,
    const std::function<const std::vector<int16_t>&(int)>& cpu_layer) {
    for (const LayerPlan& layer : plan.layers) {
        const auto index = static_cast<std::size_t>(layer.index);
        if (index >= device.size() || device[index].empty()) continue;
        const std::vector<int16_t>& got = device[index];
        const std::vector<int16_t>& want = cpu_layer(layer.index);
        if (got.size() != want.size()) {
            throw Error(fmt::format("golden twin: layer {} has {} values on the device but {} on the CPU",
                                    layer.index, got.size(), want.size()));
        }
        const auto first = std::mismatch(got.begin(), got.end(), want.begin());
        if (first.first == got.end()) continue;
        const auto at = static_cast<std::size_t>(first.first - got.begin());
        const TensorShape& shape = layer.output_shape;
        const std::size_t plane = static_cast<std::size_t>(shape.h) * static_cast<std::size_t>(shape.w);
        TwinMismatch mismatch;
        mismatch.layer = layer.index;
        mismatch.layer_kind = layer_type_name(layer.type);
        mismatch.channel = static_cast<int>(at / plane);
        mismatch.row = static_cast<int>(at % plane / static_cast<std::size_t>(shape.w));
        mismatch.column = static_cast<int>(at % static_cast<std::size_t>(shape.w));
        mismatch.device_value = *first.first;
        mismatch.cpu_value = *first.second;
        for (std::size_t i = at; i < got.size(); ++i) mismatch.differing_values += got[i] != want[i] ? 1 : 0;
        locate_tile(layer, mismatch);
        return mismatch;
    }
    return std::nullopt;
}

}  // namespace fpgacnn::pipeline_detail
