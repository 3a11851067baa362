// Tokenises a darknet .cfg into sections of key=value options, remembering line numbers so every
// later error can point at the exact line. No meaning is given to sections or options here.
#pragma once

#include <string>
#include <vector>

namespace fpgacnn::model {

struct CfgOption {
    std::string key;
    std::string value;  // trimmed; inner spaces kept (anchors are often written "1.08, 1.19, ...")
    int line = 0;
};

struct CfgSection {
    std::string name;  // without brackets, as written: "net", "conv", "convolutional", ...
    int line = 0;
    std::vector<CfgOption> options;
};

struct CfgFile {
    std::string path;
    std::vector<CfgSection> sections;
};

/// Splits cfg text into sections. Throws Error for lines that are neither a section header, a
/// key=value option, a comment ('#' or ';') nor blank, and for options given twice in a section.
CfgFile parse_cfg_text(const std::string& text, const std::string& path);

/// Reads and tokenises a cfg file; throws Error naming the path when it cannot be read.
CfgFile read_cfg_file(const std::string& path);

/// Trims spaces, tabs and carriage returns (cfgs written on Windows end lines with "\r\n").
std::string trim(const std::string& text);

}  // namespace fpgacnn::model
