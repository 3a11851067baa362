#include "common/command_footprint.hpp"

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"

namespace fpgacnn {

namespace {

ByteSpan elements(std::uint64_t offset, std::uint64_t count) {
    return ByteSpan{2 * offset, 2 * (offset + count)};
}

void require_inside(const std::string& who, const DeviceBuffer& buffer, const ByteSpan& span,
                    const char* verb) {
    if (span.end > buffer.bytes) {
        throw Error(who + ": " + verb + " bytes " + span.text() + " but '" + buffer.purpose + "' has " +
                    std::to_string(buffer.bytes) + " bytes; the plan does not match the buffer");
    }
}

}  // namespace

std::string ByteSpan::text() const { return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")"; }

CommandFootprint command_footprint(const kernel::LayerCommand& c, const KernelMaxima& maxima) {
    CommandFootprint f;
    if (c.op == kernel::kOpIdentify) {
        f.output = elements(c.output_offset, kernel::kFingerprintWords);
        return f;
    }
    f.input = elements(c.input_offset, std::uint64_t{c.in_c} * c.in_h * c.in_w);
    f.output = elements(c.output_offset, std::uint64_t{c.out_c} * c.out_h * c.out_w);
    if (c.op == kernel::kOpConv) {
        const auto tm = static_cast<std::uint32_t>(maxima.tm), tn = static_cast<std::uint32_t>(maxima.tn);
        f.weights = elements(c.weight_offset,
                             kernel::reordered_weight_elements(c.out_c, c.in_c, c.kernel_size, tm, tn));
        f.biases = elements(c.bias_offset, kernel::padded_bias_elements(c.out_c, tm));
    }
    return f;
}

CommandFootprint check_command_fits(const std::string& who, const kernel::LayerCommand& c,
                                    const KernelMaxima& maxima, const DeviceBuffer& arena,
                                    const DeviceBuffer& parameters) {
    if (c.op != kernel::kOpIdentify) {
        const bool reorg = c.op == kernel::kOpReorg;
        const bool fits =
            (reorg || (c.tile_rows >= 1 && c.tile_rows <= static_cast<std::uint32_t>(maxima.tr))) &&
            c.tile_cols >= 1 && c.stride >= 1 && c.tile_cols <= static_cast<std::uint32_t>(maxima.tc) &&
            (reorg || c.kernel_size <= static_cast<std::uint32_t>(maxima.max_kernel)) &&
            c.stride <= static_cast<std::uint32_t>(maxima.max_stride);
        if (!fits) {
            throw Error(who + ": tile " + std::to_string(c.tile_rows) + "x" + std::to_string(c.tile_cols) +
                        ", window " + std::to_string(c.kernel_size) + ", stride " + std::to_string(c.stride) +
                        " exceed the device's kernel build (Tr=" + std::to_string(maxima.tr) +
                        " Tc=" + std::to_string(maxima.tc) + " K<=" + std::to_string(maxima.max_kernel) +
                        " S<=" + std::to_string(maxima.max_stride) +
                        "): the plan was made for another bitstream; plan for this device's maxima");
        }
        const kernel::CommandCheck verdict = kernel::check_command(c);
        // Tile and window limits were checked against the device's build above, not this library's.
        if (verdict != kernel::kCommandOk && verdict != kernel::kCommandBadTile &&
            verdict != kernel::kCommandBadWindow) {
            throw Error(who + ": the kernel rejects the command: " + kernel::command_check_text(verdict));
        }
    }
    const CommandFootprint f = command_footprint(c, maxima);
    require_inside(who, arena, f.output, "writes");
    if (c.op == kernel::kOpIdentify) return f;
    require_inside(who, arena, f.input, "reads");
    if (f.input.overlaps(f.output)) {
        throw Error(who + ": input " + f.input.text() + " and output " + f.output.text() + " overlap in '" +
                    arena.purpose + "'; the plan's arena layout is broken");
    }
    require_inside(who, parameters, f.weights, "reads weights from");
    require_inside(who, parameters, f.biases, "reads biases from");
    return f;
}

}  // namespace fpgacnn
