// The exit-code rule every fpgacnn tool follows (docs/reliability.md, "CLI exit codes"), stated once:
//   0  success (also --help and --list-devices);
//   2  the command line is wrong, found before any file is read: an unknown or missing flag, a value
//      that does not parse (not a number, NaN, inf, a malformed WxH, a seed out of range), a value
//      out of range, flags that contradict each other, a path flag naming a file or folder that does
//      not exist, or an output path that can never be written (a folder given for a file, a device);
//   1  the command line is well formed but what it names fails: the contents of a cfg, weights,
//      quantized model, names file or image, the device, an output folder that cannot be written,
//      memory, or an input image that is missing (so one bad image does not stop a folder run).
#pragma once

#include <stdexcept>
#include <string>

namespace fpgacnn::apps {

enum ExitCode : int {
    kExitSuccess = 0,
    kExitFailure = 1,      // input, model, device, output or memory
    kExitCommandLine = 2,  // the command line itself
};

/// Thrown by a tool's checks of its flags after CLI11's parse (combinations CLI11 cannot express);
/// parse_then_run turns it into exit code 2 with the message on one line.
class CommandLineError : public std::runtime_error {
public:
    explicit CommandLineError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace fpgacnn::apps
