// CPU time this process has used (user + system, every thread), from getrusage: what fpgacnn-bench
// reports per frame or per request and fpgacnn-serve exports as process_cpu_seconds_total, so a
// server's cost can be compared with the same work in-process on a machine whose cores the client
// shares.
#pragma once

#include <sys/resource.h>

namespace fpgacnn::apps {

inline double process_cpu_seconds() {
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace fpgacnn::apps
