// The probe library's definitions (abi_probe.hpp): just enough code that every declaration is exported
// with its parameter types in the debug info abi-dumper reads.
#include "abi_probe.hpp"

namespace probe {

int count_words(const Command& command) {
    int count = 0;
    for (std::uint64_t word : command.words) count += word != 0 ? 1 : 0;
    return count;
}

int submit(const Submission* submission) {
    return static_cast<int>(submission->tag) + count_words(submission->command);
}

int threads_of(const Options& options) { return options.threads > 0 ? static_cast<int>(options.threads) : 1; }

#ifdef ABI_PROBE_ADDED_FUNCTION
int version_of_probe() { return 2; }
#endif

#ifndef ABI_PROBE_REMOVED_FUNCTION
int legacy_count(const Command& command) { return count_words(command); }
#endif

}  // namespace probe
