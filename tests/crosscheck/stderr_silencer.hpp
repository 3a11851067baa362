// Parks stderr in /dev/null for a scope: libdarknet prints its whole layer table (and "Loading
// weights...") on every network it parses, and the cross-checks parse many.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace fpgacnn::crosscheck {

/// While alive, stderr goes to /dev/null.
class StderrSilencer {
public:
    StderrSilencer() {
        std::fflush(stderr);
        saved_ = ::dup(STDERR_FILENO);
        const int null_fd = ::open("/dev/null", O_WRONLY);
        if (saved_ >= 0 && null_fd >= 0) ::dup2(null_fd, STDERR_FILENO);
        if (null_fd >= 0) ::close(null_fd);
    }
    ~StderrSilencer() {
        std::fflush(stderr);
        if (saved_ >= 0) {
            ::dup2(saved_, STDERR_FILENO);
            ::close(saved_);
        }
    }
    StderrSilencer(const StderrSilencer&) = delete;
    StderrSilencer& operator=(const StderrSilencer&) = delete;

private:
    int saved_ = -1;
};

}  // namespace fpgacnn::crosscheck
