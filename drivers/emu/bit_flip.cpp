#include "emu/bit_flip.hpp"

#include "fpgacnn/error.hpp"

namespace fpgacnn::emu {

std::size_t bit_flip_element(const std::string& who, const EmuBitFlip& flip,
                             const kernel::LayerCommand& command) {
    const std::string what = who + ": the injected bit flip (flip=" + std::to_string(flip.layer) + "/" +
                             std::to_string(flip.channel) + "/" + std::to_string(flip.tile) + "/" +
                             std::to_string(flip.bit) + ")";
    if (command.op != kernel::kOpConv && command.op != kernel::kOpMaxPool) {
        throw Error(what + " needs a conv or maxpool layer: only they are tiled by output rows and columns");
    }
    const std::size_t row_tiles = kernel::div_ceil(command.out_h, command.tile_rows);
    const std::size_t col_tiles = kernel::div_ceil(command.out_w, command.tile_cols);
    if (static_cast<std::size_t>(flip.channel) >= command.out_c) {
        throw Error(what + " names channel " + std::to_string(flip.channel) + ", but the layer has " +
                    std::to_string(command.out_c) + " output channels");
    }
    if (static_cast<std::size_t>(flip.tile) >= row_tiles * col_tiles) {
        throw Error(what + " names tile " + std::to_string(flip.tile) + ", but the layer has " +
                    std::to_string(row_tiles * col_tiles) + " output tiles (" + std::to_string(row_tiles) +
                    " x " + std::to_string(col_tiles) + ")");
    }
    const std::size_t row = static_cast<std::size_t>(flip.tile) / col_tiles * command.tile_rows;
    const std::size_t col = static_cast<std::size_t>(flip.tile) % col_tiles * command.tile_cols;
    const std::size_t plane = static_cast<std::size_t>(command.out_h) * command.out_w;
    return command.output_offset + static_cast<std::size_t>(flip.channel) * plane + row * command.out_w + col;
}

}  // namespace fpgacnn::emu
