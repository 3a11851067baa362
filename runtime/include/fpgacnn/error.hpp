// One exception type for every user-facing failure: the message names the file / layer /
// device involved and what to do about it, so callers can print it as is.
#pragma once

#include <stdexcept>
#include <string>

namespace fpgacnn {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace fpgacnn
