// Checks of flag values shared by the tools, so every tool refuses the same malformed values with
// exit code 2 (exit_codes.hpp): numbers must be finite (CLI11's Range lets NaN through, since every
// comparison with NaN is false), integers must not wrap, and WxH sizes must parse.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::apps {

/// A finite number in [min, max]; NaN, inf and numbers that overflow (1e999) are refused.
inline CLI::Validator finite_range(double min, double max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            const char* begin = text.c_str();
            char* end = nullptr;
            const double value = std::strtod(begin, &end);
            if (text.empty() || end != begin + text.size()) return fmt::format("'{}' is not a number", text);
            if (!std::isfinite(value)) return fmt::format("'{}' is not a finite number", text);
            if (value < min || value > max)
                return fmt::format("{} is out of range: give a number from {:g} to {:g}", text, min, max);
            return {};
        },
        fmt::format("NUMBER in [{:g} - {:g}]", min, max));
}

/// A decimal integer 0 .. 2^64 - 1: no sign, no exponent, no wrap (CLI11 wraps -5 to 2^64 - 5 and
/// saturates larger numbers).
inline CLI::Validator unsigned_64() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            std::uint64_t value = 0;
            const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || error != std::errc() || stop != text.data() + text.size())
                return fmt::format("'{}' is not an integer from 0 to 18446744073709551615", text);
            return {};
        },
        "UINT64");
}

/// --input WxH, checked while parsing by the library's own parser (so its rules are stated once).
inline CLI::Option* add_input_size_option(CLI::App& app, std::string& input_size, const std::string& help) {
    const CLI::Validator valid(
        [](std::string& text) -> std::string {
            try {
                parse_input_size(text);
                return {};
            } catch (const Error& e) {
                return e.what();
            }
        },
        "WxH");
    return app.add_option("--input", input_size, help)->check(valid);
}

}  // namespace fpgacnn::apps
