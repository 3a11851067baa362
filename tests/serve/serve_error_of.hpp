// The ServeError a call throws, for tests that check a failure's kind and reason.
#pragma once

#include <gtest/gtest.h>

#include "inference_core.hpp"

namespace fpgacnn::serve::test_support {

/// The ServeError `call` throws (fails the test when it throws none).
template <typename Call>
ServeError serve_error_of(Call&& call) {
    try {
        call();
    } catch (const ServeError& e) {
        return e;
    }
    ADD_FAILURE() << "no ServeError thrown";
    return ServeError(ErrorKind::Internal, "none");
}

}  // namespace fpgacnn::serve::test_support
