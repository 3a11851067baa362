// The message of the fpgacnn::Error an action throws, for tests that check what an error says.
#pragma once

#include <functional>
#include <string>

#include "fpgacnn/error.hpp"

namespace fpgacnn::test {

/// The Error's message; empty when the action throws none.
inline std::string error_message(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace fpgacnn::test
