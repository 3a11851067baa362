// A small public header compiled in variants by abi_check_test.sh, to show what scripts/check-abi.sh
// (its comparison, scripts/abi-compare.sh) does with each kind of change: the shape of libfpgacnn's
// own case, a command struct embedded by value in another and passed by reference, at the size
// kernel::LayerCommand had in 0.2.0 (22 words = 88 bytes).
#pragma once

#include <cstdint>

namespace probe {

/// A command of 22 words; ABI_PROBE_ADDED_FIELDS appends two (96 bytes), as contract 6 did.
struct Command {
    std::uint64_t words[11];
#ifdef ABI_PROBE_ADDED_FIELDS
    std::uint32_t error_offset;
    std::uint32_t batch;
#endif
};

/// Embeds Command by value: its size and the offset of `tag` follow Command's.
struct Submission {
    Command command;
    std::uint32_t tag;
};

/// Options only taken by reference: the checker rates its growth "Low" and its binary verdict stays
/// "compatible", yet a program built against the old header allocates it at the old size.
struct Options {
    std::uint32_t threads;
    std::uint32_t flags;
#ifdef ABI_PROBE_GROWN_OPTIONS
    std::uint64_t deadline;
#endif
};

/// Returns the options' thread count, at least 1.
int threads_of(const Options& options);

/// Counts the nonzero words of `command`.
int count_words(const Command& command);

/// Returns the submission's tag plus its command's nonzero words.
int submit(const Submission* submission);

#ifdef ABI_PROBE_ADDED_FUNCTION
/// A new free function: an addition, nothing a program built against the old library uses changes.
int version_of_probe();
#endif

#ifdef ABI_PROBE_REMOVED_FUNCTION
#else
/// Removed in the ABI_PROBE_REMOVED_FUNCTION variant (a High problem of the checker).
int legacy_count(const Command& command);
#endif

}  // namespace probe
