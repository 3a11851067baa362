// Every app's main(): nothing may escape it. Library errors are reported inside `body`; anything
// else (bad_alloc, a logging failure) still ends with a message naming the tool and exit code 1.
#pragma once

#include <cstdio>
#include <exception>

namespace fpgacnn::apps {

template <typename Body>
int guarded_main(const char* tool, Body body, int argc, char** argv) noexcept {
    try {
        return body(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: unexpected failure: %s\n", tool, e.what());
    } catch (...) {
        std::fprintf(stderr, "%s: unexpected failure\n", tool);
    }
    return 1;
}

}  // namespace fpgacnn::apps
