// The emu device: the accelerator's kernel function (kernels/) run natively on a worker thread with
// the IP's start / done / idle semantics. It keeps a separate device copy of every buffer so that
// missing syncs show: a range not synced to the device reads as poison in the kernel (and, by
// default, start() refuses the command); a range the kernel wrote reads as poison on the host until
// synced back. It counts AXI bursts and bytes per command.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/device.hpp"
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// Fault injection for golden-twin tests: bit `bit` (0 = least significant) of one int16 output value
/// of layer `layer` flipped every time the layer runs. The value is the first one (top-left) of tile
/// `tile` (row-major over the command's output tiles: tile_rows x tile_cols) in output channel
/// `channel`. Conv and maxpool layers only (reorg is not tiled by output rows and columns).
struct FPGACNN_API EmuBitFlip {
    int layer = -1;   ///< network layer index (DeviceCommand::layer)
    int channel = 0;  ///< output channel
    int tile = 0;     ///< output tile, row-major
    int bit = 0;      ///< 0..15
};

/// How the emu device behaves: the buffer-ownership checks, and the fault injection tests use.
struct FPGACNN_API EmuOptions {
    /// start() throws when a command reads bytes that were never synced to the device (or written
    /// by an earlier command). Off: the kernel computes on the poison instead.
    bool strict_sync = true;
    /// Byte pattern of memory nobody wrote (0xA5A5 = -23131 as int16).
    std::uint8_t poison_byte = 0xA5;
    /// Testing: the command of this layer never completes (exercises wait timeouts). -1: none.
    int stall_layer = -1;
    /// Testing: called on the kernel's thread when it accepts a command, before it computes (e.g. to
    /// hold a layer while a test uploads the next frame). Must return; the wait() deadline still runs.
    std::function<void(const DeviceCommand&)> on_command_accepted;
    /// Testing: a silent wrong result (EmuBitFlip); none by default.
    std::optional<EmuBitFlip> bit_flip;
    /// Testing device failures: once this many commands were started, every later start() throws
    /// DeviceError, as a device that vanished would. -1: never.
    long long fail_after_commands = -1;
};

/// The kernel's C++ source run in-process on a worker thread of its own, with the maxima it was compiled
/// with (kernel::native_build_maxima()), behind the Device interface.
FPGACNN_API std::unique_ptr<Device> make_emu_device(const EmuOptions& options = {});

/// Every --device value of the emu driver: "emu", options after colons in any order, each at most
/// once: lenient (strict_sync off), flip=LAYER/CHANNEL/TILE/BIT (bit_flip), fail-after=N
/// (fail_after_commands).
inline constexpr const char* kEmuSpecGrammar = "emu[:lenient][:flip=L/C/T/B][:fail-after=N]";
/// The options an emu spec asks for; throws Error naming the spec and the grammar when malformed.
FPGACNN_API EmuOptions parse_emu_spec(const std::string& spec);
/// The spec parse_emu_spec turns into `options` (their testing hooks aside): "emu", then lenient,
/// flip=..., fail-after=... in that order.
FPGACNN_API std::string emu_spec_text(const EmuOptions& options);
/// make_emu_device(parse_emu_spec(spec)).
FPGACNN_API std::unique_ptr<Device> open_emu_device(const std::string& spec);
/// The emu device's line of list_devices() (always usable).
FPGACNN_API std::vector<DeviceInfo> list_emu_devices();

}  // namespace fpgacnn
