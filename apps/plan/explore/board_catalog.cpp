// Board files: one JSON object per board (kernels/boards/README.md lists the fields).
#include "board_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fpgacnn/error.hpp"

namespace fpgacnn::explore {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

template <class T>
T field(const nlohmann::json& j, const char* key, const std::string& path) {
    if (!j.contains(key)) throw Error(path + ": board file has no \"" + key + "\"");
    try {
        return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw Error(path + ": board field \"" + std::string(key) + "\" has the wrong type");
    }
}

}  // namespace

std::string default_boards_dir() {
    if (const char* env = std::getenv("FPGACNN_BOARDS_DIR"); env != nullptr && *env != '\0') return env;
    if (std::filesystem::is_directory(FPGACNN_INSTALLED_BOARDS_DIR)) return FPGACNN_INSTALLED_BOARDS_DIR;
    return FPGACNN_SOURCE_BOARDS_DIR;
}

Board load_board_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot open the board file");
    nlohmann::json j;
    try {
        in >> j;
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": not valid JSON (" + e.what() + ")");
    }
    Board b;
    b.name = field<std::string>(j, "name", path);
    b.boards = field<std::vector<std::string>>(j, "boards", path);
    b.part = field<std::string>(j, "part", path);
    b.family = field<std::string>(j, "family", path);
    b.flow = field<std::string>(j, "flow", path);
    b.dsp_kind = field<std::string>(j, "dsp_kind", path);
    b.dsp = field<int>(j, "dsp", path);
    b.bram_18k = field<int>(j, "bram_18k", path);
    b.uram = field<int>(j, "uram", path);
    b.lut = field<int>(j, "lut", path);
    b.ff = field<int>(j, "ff", path);
    b.memory = field<std::string>(j, "memory", path);
    b.bandwidth_gbs = field<double>(j, "bandwidth_gbs", path);
    b.clock_mhz = field<double>(j, "clock_mhz", path);
    b.sources = field<std::vector<std::string>>(j, "sources", path);
    if (b.dsp <= 0 || b.bram_18k <= 0 || b.lut <= 0 || b.ff <= 0 || !(b.bandwidth_gbs > 0) ||
        !(b.clock_mhz > 0)) {
        throw Error(path + ": DSP, BRAM_18K, LUT, FF, bandwidth and clock must be positive");
    }
    if (b.flow != "vivado" && b.flow != "vitis") throw Error(path + ": flow must be \"vivado\" or \"vitis\"");
    if (b.sources.empty()) throw Error(path + ": every board file names its sources");
    return b;
}

std::vector<Board> load_catalogue(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    }
    if (ec)
        throw Error(dir + ": cannot read the board catalogue (" + ec.message() + "); set FPGACNN_BOARDS_DIR");
    std::sort(files.begin(), files.end());
    std::vector<Board> boards;
    boards.reserve(files.size());
    for (const std::string& f : files) boards.push_back(load_board_file(f));
    return boards;
}

Board find_board(const std::string& dir, const std::string& name) {
    const std::vector<Board> boards = load_catalogue(dir);
    std::string known;
    for (const Board& b : boards) {
        if (lower(b.name) == lower(name)) return b;
        for (const std::string& alias : b.boards) {
            if (lower(alias) == lower(name)) return b;
        }
        known += (known.empty() ? "" : ", ") + b.name;
    }
    throw Error("board '" + name + "' is not in the catalogue " + dir + " (known: " + known + ")");
}

}  // namespace fpgacnn::explore
