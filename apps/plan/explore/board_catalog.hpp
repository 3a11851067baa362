// The board catalogue (kernels/boards/*.json): FPGA resources, memory bandwidth and a typical kernel
// clock of each board fpgacnn-plan --explore can target, with the vendor documents they come from.
#pragma once

#include <string>
#include <vector>

namespace fpgacnn::explore {

struct Board {
    std::string name;  // the part family name used on the command line, e.g. xc7z020
    std::vector<std::string> boards;
    std::string part;  // the full part for the HLS scripts (FPGACNN_PART)
    std::string family;
    std::string flow;  // "vivado" (build_ip.tcl) or "vitis" (kernels/hls/vitis/Makefile)
    std::string dsp_kind;
    int dsp = 0;
    int bram_18k = 0;
    int uram = 0;
    int lut = 0;
    int ff = 0;
    std::string memory;
    double bandwidth_gbs = 0;  // what one kernel instance can use (see the file's notes)
    double clock_mhz = 0;
    std::vector<std::string> sources;
};

/// Where the catalogue is: $FPGACNN_BOARDS_DIR, else the installed copy, else the source tree's.
std::string default_boards_dir();

/// Reads one board file; throws Error naming the file and the missing or bad field.
Board load_board_file(const std::string& path);

/// The board called `name` (file name or one of its board names, case-insensitive) in `dir`; throws
/// Error listing the catalogue when there is none.
Board find_board(const std::string& dir, const std::string& name);

/// Every board of the catalogue, by name.
std::vector<Board> load_catalogue(const std::string& dir);

}  // namespace fpgacnn::explore
