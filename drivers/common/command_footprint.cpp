#include "fpgacnn/drivers/command_footprint.hpp"

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"

namespace fpgacnn {

namespace {

/// `count` elements from element `offset`, both in elements of `bits` (16-bit words, or the bytes of
/// an 8-bit tensor: arith::fm_element_bytes).
ByteSpan elements(std::uint64_t offset, std::uint64_t count, int bits = arith::kDataBits) {
    const std::uint64_t size = arith::fm_element_bytes(bits);
    return ByteSpan{size * offset, size * (offset + count)};
}

void require_inside(const std::string& who, const DeviceBuffer& buffer, const ByteSpan& span,
                    const char* verb) {
    if (span.end > buffer.bytes()) {
        throw Error(who + ": " + verb + " bytes " + span.text() + " but '" + buffer.purpose() + "' has " +
                    std::to_string(buffer.bytes()) + " bytes; the plan does not match the buffer");
    }
}

void require_runnable(const std::string& who, const kernel::LayerCommand& c, const KernelMaxima& maxima) {
    const kernel::CommandCheck verdict = kernel::check_command(c, maxima);
    if (verdict == kernel::kCommandOk) return;
    const std::string rejected =
        who + ": the kernel rejects the command: " + kernel::command_check_text(verdict);
    if (verdict == kernel::kCommandBadTile || verdict == kernel::kCommandBadWindow) {
        throw DeviceError(rejected + "; tile " + std::to_string(c.tile_rows) + "x" +
                          std::to_string(c.tile_cols) + ", window " + std::to_string(c.kernel_size) +
                          ", stride " + std::to_string(c.stride) +
                          " exceed the device's kernel build (Tr=" + std::to_string(maxima.tr) +
                          " Tc=" + std::to_string(maxima.tc) + " K<=" + std::to_string(maxima.max_kernel) +
                          " S<=" + std::to_string(maxima.max_stride) +
                          "): the plan was made for another bitstream; plan for this device's maxima");
    }
    throw Error(rejected);
}

}  // namespace

std::string ByteSpan::text() const { return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")"; }

CommandFootprint command_footprint(const kernel::LayerCommand& c, const KernelMaxima& maxima) {
    CommandFootprint f;
    if (c.op == kernel::kOpIdentify) {
        f.output = elements(c.output_offset, kernel::kFingerprintWords);
        return f;
    }
    const std::uint64_t in_size = std::uint64_t{c.in_c} * c.in_h * c.in_w;
    const std::uint64_t out_size = std::uint64_t{c.out_c} * c.out_h * c.out_w;
    const auto tm = static_cast<std::uint32_t>(maxima.tm), tn = static_cast<std::uint32_t>(maxima.tn);
    if (c.op == kernel::kOpConvBackward) {  // reads dY, writes dX; BP's weight layout swaps M and N
        f.input = elements(c.input_offset, out_size * c.batch);
        f.output = elements(c.output_offset, in_size * c.batch);
        f.weights = elements(c.weight_offset, kernel::reordered_weight_words(c.in_c, c.out_c, c.kernel_size,
                                                                             tm, tn, arith::kDataBits));
        return f;
    }
    if (c.op == kernel::kOpWeightGradient) {  // reads X (and dY: command_error_span), writes dW
        f.input = elements(c.input_offset, in_size * c.batch);
        f.output = elements(c.output_offset, std::uint64_t{c.out_c} * c.in_c * c.kernel_size * c.kernel_size);
        return f;
    }
    f.input = elements(c.input_offset, in_size, static_cast<int>(c.input_bits));
    f.output = elements(c.output_offset, out_size, static_cast<int>(c.output_bits));
    if (c.op == kernel::kOpConv) {
        f.weights =
            elements(c.weight_offset, kernel::reordered_weight_words(c.out_c, c.in_c, c.kernel_size, tm, tn,
                                                                     static_cast<int>(c.weight_bits)));
        f.biases = elements(c.bias_offset, kernel::padded_bias_elements(c.out_c, tm));
    }
    return f;
}

ByteSpan command_error_span(const kernel::LayerCommand& c) {
    if (c.op == kernel::kOpShortcut)  // the `from` tensor, of the output's shape, at weight_bits
        return elements(c.error_offset, std::uint64_t{c.out_c} * c.out_h * c.out_w,
                        static_cast<int>(c.weight_bits));
    if (c.op != kernel::kOpWeightGradient) return ByteSpan{};
    return elements(c.error_offset, std::uint64_t{c.out_c} * c.out_h * c.out_w * c.batch);
}

CommandFootprint check_command_fits(const std::string& who, const kernel::LayerCommand& c,
                                    const KernelMaxima& maxima, const DeviceBuffer& arena,
                                    const DeviceBuffer& parameters) {
    require_runnable(who, c, maxima);
    const CommandFootprint f = command_footprint(c, maxima);
    require_inside(who, arena, f.output,
                   c.op == kernel::kOpIdentify ? "writes the kernel fingerprint to" : "writes its output to");
    if (c.op == kernel::kOpIdentify) return f;
    require_inside(who, arena, f.input, "reads its input from");
    if (f.input.overlaps(f.output)) {
        throw Error(who + ": input " + f.input.text() + " and output " + f.output.text() + " overlap in '" +
                    arena.purpose() + "'; the plan's arena layout is broken");
    }
    const ByteSpan error = command_error_span(c);
    const char* second = c.op == kernel::kOpShortcut ? "the shortcut's `from` tensor" : "error";
    require_inside(who, arena, error,
                   c.op == kernel::kOpShortcut ? "reads the tensor it adds from" : "reads its error from");
    if (error.overlaps(f.output)) {
        throw Error(who + ": " + second + " " + error.text() + " and output " + f.output.text() +
                    " overlap in '" + arena.purpose() + "'; the command would overwrite what it reads");
    }
    require_inside(who, parameters, f.weights, "reads its weights from");
    require_inside(who, parameters, f.biases, "reads its biases from");
    return f;
}

}  // namespace fpgacnn
