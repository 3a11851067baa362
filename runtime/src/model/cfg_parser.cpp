#include "model/cfg_parser.hpp"

#include <sstream>

#include "core/input_file.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::model {

namespace {

[[noreturn]] void fail_at(const std::string& path, int line, const std::string& message) {
    throw Error(path + ":" + std::to_string(line) + ": " + message);
}

CfgSection parse_section_header(const std::string& text, const std::string& path, int line) {
    if (text.back() != ']') {
        fail_at(path, line,
                "section header '" + text + "' has no closing ']'; write it like [convolutional]");
    }
    CfgSection section;
    section.name = trim(text.substr(1, text.size() - 2));
    section.line = line;
    if (section.name.empty()) fail_at(path, line, "empty section header '[]'; write it like [convolutional]");
    return section;
}

CfgOption parse_option(const std::string& text, const std::string& path, int line) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos) {
        fail_at(path, line,
                "'" + text + "' is not an option; write options as key=value ('#' starts a comment)");
    }
    CfgOption option{trim(text.substr(0, equals)), trim(text.substr(equals + 1)), line};
    if (option.key.empty()) fail_at(path, line, "option '" + text + "' has no name before '='");
    if (option.value.empty()) {
        fail_at(path, line,
                "option '" + option.key + "' has no value after '='; give a value or delete the line");
    }
    return option;
}

void add_option(CfgSection& section, CfgOption option, const std::string& path) {
    for (const CfgOption& existing : section.options) {
        if (existing.key == option.key) {
            fail_at(path, option.line,
                    "[" + section.name + "] option '" + option.key + "' is given twice (first on line " +
                        std::to_string(existing.line) + "); keep only one");
        }
    }
    section.options.push_back(std::move(option));
}

}  // namespace

std::string trim(const std::string& text) {
    const char* blanks = " \t\r\n\f\v";
    const std::size_t first = text.find_first_not_of(blanks);
    if (first == std::string::npos) return {};
    const std::size_t last = text.find_last_not_of(blanks);
    return text.substr(first, last - first + 1);
}

CfgFile parse_cfg_text(const std::string& text, const std::string& path) {
    CfgFile cfg;
    cfg.path = path;
    std::istringstream lines(text);
    std::string raw;
    int line = 0;
    while (std::getline(lines, raw)) {
        ++line;
        const std::string content = trim(raw);
        if (content.empty() || content[0] == '#' || content[0] == ';') continue;
        if (content[0] == '[') {
            cfg.sections.push_back(parse_section_header(content, path, line));
            continue;
        }
        CfgOption option = parse_option(content, path, line);
        if (cfg.sections.empty()) {
            fail_at(path, line,
                    "option '" + option.key + "' comes before any section; start the file with [net]");
        }
        add_option(cfg.sections.back(), std::move(option), path);
    }
    return cfg;
}

CfgFile read_cfg_file(const std::string& path) {
    const std::string text = core::read_text_file(
        path, {"cfg file", "check the path given with --cfg"}, core::kMaxCfgBytes,
        "real darknet cfgs are a few KB; a larger file is not a cfg, e.g. a .weights file or a device");
    return parse_cfg_text(text, path);
}

}  // namespace fpgacnn::model
