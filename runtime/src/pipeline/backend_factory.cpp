// Maps a --device value to a backend. "auto" prefers real accelerators when present; until the
// device drivers exist it resolves to the CPU.
#include <spdlog/spdlog.h>

#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "pipeline/float_backend.hpp"

namespace fpgacnn {

std::unique_ptr<Backend> make_backend(const Network& network, const std::string& device) {
    if (device == "auto" || device == "cpu") {
        return std::make_unique<FloatBackend>(network);
    }
    throw Error("unknown device '" + device + "': valid values are auto, cpu");
}

}  // namespace fpgacnn
