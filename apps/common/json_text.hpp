// How the tools print JSON: file names and class names are bytes on Linux and need not be UTF-8, and
// nlohmann::json::dump() throws on invalid UTF-8 by default (one odd file name would abort a whole
// folder run). Invalid bytes become U+FFFD (the replacement character) instead; docs/reliability.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fpgacnn::apps {

/// `value` serialised with invalid UTF-8 replaced by U+FFFD; indent -1: one line.
inline std::string json_text(const nlohmann::json& value, int indent = -1) {
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fpgacnn::apps
