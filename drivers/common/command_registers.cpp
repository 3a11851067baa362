#include "common/command_registers.hpp"

#include "fpgacnn/kernel/register_map.hpp"

namespace fpgacnn {

void write_command_registers(const kernel::LayerCommand& command, std::uint64_t arena,
                             std::uint64_t parameters, bool address64, const RegisterWrite& write) {
    namespace regs = kernel::regs;
    std::uint32_t words[kernel::kCommandWords];
    regs::command_words(command, words);
    for (int i = 0; i < kernel::kCommandWords; ++i) write(regs::kCommandOffsets[i], words[i]);
    const std::uint64_t addresses[regs::kPointerCount] = {arena, arena, parameters, arena, arena};
    for (int p = 0; p < regs::kPointerCount; ++p) {
        const std::uint32_t offset = regs::pointer_offset(static_cast<regs::Pointer>(p), address64);
        write(offset, static_cast<std::uint32_t>(addresses[p]));
        if (address64) write(offset + 4, static_cast<std::uint32_t>(addresses[p] >> 32));
    }
}

}  // namespace fpgacnn
