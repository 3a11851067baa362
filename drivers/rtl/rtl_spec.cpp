// The rtl driver's --device values (kRtlSpecGrammar), its memory models, where its builds are found,
// and its list_devices() lines.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "common/spec_fields.hpp"
#include "fpgacnn/drivers/rtl_device.hpp"
#include "fpgacnn/error.hpp"
#include "rtl/rtl_library.hpp"

namespace fpgacnn {

namespace {

const char* const kLibraryPrefix = "libfpgacnn_rtl_";
const char* const kLibrarySuffix = ".so";

[[noreturn]] void malformed(const std::string& spec, const std::string& problem) {
    std::string models;
    for (const RtlMemoryModel& model : rtl_memory_models())
        models += (models.empty() ? "" : ", ") + model.name;
    throw Error("device '" + spec + "': " + problem + "; expected " + kRtlSpecGrammar +
                " (BUILD: a Verilated kernel build such as 'small'; mem: the AXI memory model, one of " +
                models + ")");
}

bool is_build_name(const std::string& text) {
    return !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
}

bool is_file(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

/// Where builds are looked for, in order: $FPGACNN_RTL_DIR, the build tree this library was built in,
/// the installed library folder.
std::vector<std::string> search_folders() {
    std::vector<std::string> folders;
    if (const char* dir = std::getenv("FPGACNN_RTL_DIR"); dir != nullptr && *dir != '\0')
        folders.emplace_back(dir);
#ifdef FPGACNN_RTL_BUILD_DIR
    folders.emplace_back(FPGACNN_RTL_BUILD_DIR);
#endif
#ifdef FPGACNN_RTL_INSTALL_DIR
    folders.emplace_back(FPGACNN_RTL_INSTALL_DIR);
#endif
    return folders;
}

}  // namespace

const std::vector<RtlMemoryModel>& rtl_memory_models() {
    // Zedboard: DDR3-1066 on a 32-bit bus (4.26 GB/s, 28 bytes per 150 MHz cycle) behind a Zynq-7000
    // HP port (read acceptance 8, UG585); about 200 ns from AR to data. Alveo: one DDR4-2400 bank on a
    // 64-bit bus (19.2 GB/s, 64 bytes per 300 MHz cycle), about 300 ns through the shell's
    // interconnect, Vitis HLS's default of 16 outstanding reads.
    static const std::vector<RtlMemoryModel> models = {
        {"zedboard", 30, 20, 8, 28, 150.0,
         "Zynq-7000 HP port to DDR3-1066 x32 at 150 MHz: 30 cycles read latency, 8 outstanding, 28 B/cycle"},
        {"alveo", 90, 40, 16, 64, 300.0,
         "Alveo DDR4-2400 x64 bank at 300 MHz: 90 cycles read latency, 16 outstanding, 64 B/cycle"},
    };
    return models;
}

PlanOptions rtl_plan_options(const RtlMemoryModel& memory, const KernelMaxima& maxima) {
    PlanOptions options;
    options.maxima = maxima;
    options.port_bits = maxima.port_bits;
    options.clock_mhz = memory.clock_mhz;
    options.bandwidth_gbs = memory.bytes_per_cycle * memory.clock_mhz * 1e6 / 1e9;
    options.read_latency_cycles = static_cast<int>(memory.read_latency);
    options.write_latency_cycles = static_cast<int>(memory.write_latency);
    options.outstanding_reads = static_cast<int>(memory.outstanding_reads);
    return options;
}

RtlOptions parse_rtl_spec(const std::string& spec) {
    if (spec.rfind("rtl", 0) != 0 || (spec.size() > 3 && spec[3] != ':'))
        malformed(spec, "not an rtl device");
    RtlOptions options;
    if (spec.size() == 3) return options;
    if (spec.size() == 4) malformed(spec, "nothing after 'rtl:'");
    bool build_given = false;
    bool memory_given = false;
    for (const std::string& option : split_spec_fields(spec.substr(4), ':')) {
        if (option.rfind("mem=", 0) == 0 && !memory_given) {
            const std::string name = option.substr(4);
            const auto& models = rtl_memory_models();
            const auto model = std::find_if(models.begin(), models.end(),
                                            [&](const RtlMemoryModel& m) { return m.name == name; });
            if (model == models.end()) malformed(spec, "no memory model '" + name + "'");
            options.memory = *model;
            memory_given = true;
        } else if (!build_given && (is_build_name(option) || option.find('/') != std::string::npos)) {
            options.build = option;
            build_given = true;
        } else {
            malformed(spec, "'" + option + "' is not an option (or is given twice)");
        }
    }
    return options;
}

std::string find_rtl_build(const std::string& build) {
    if (build.find('/') != std::string::npos) {
        if (!is_file(build)) throw Error("rtl: build '" + build + "' is not a file");
        return build;
    }
    const std::string file = kLibraryPrefix + build + kLibrarySuffix;
    std::string searched;
    for (const std::string& folder : search_folders()) {
        std::string path = folder;
        path += "/";
        path += file;
        if (is_file(path)) return path;
        searched += (searched.empty() ? "" : ", ") + folder;
    }
    throw Error("rtl: no build '" + build + "' (" + file + ") in " +
                (searched.empty() ? std::string("any folder") : searched) +
                ": build it (cmake --build <dir> --target fpgacnn_rtl_" + build +
                ", docs/kernel.md) or set FPGACNN_RTL_DIR to the folder that holds it");
}

std::unique_ptr<Device> open_rtl_device(const std::string& spec) {
    return make_rtl_device(parse_rtl_spec(spec));
}

std::vector<DeviceInfo> list_rtl_devices() {
    std::vector<DeviceInfo> devices;
    std::vector<std::string> seen;
    for (const std::string& folder : search_folders()) {
        DIR* dir = opendir(folder.c_str());
        if (dir == nullptr) continue;
        std::vector<std::string> names;
        while (const dirent* entry = readdir(dir)) {
            const std::string name = entry->d_name;
            const std::size_t prefix = std::string(kLibraryPrefix).size();
            const std::size_t suffix = std::string(kLibrarySuffix).size();
            if (name.size() > prefix + suffix && name.rfind(kLibraryPrefix, 0) == 0 &&
                name.compare(name.size() - suffix, suffix, kLibrarySuffix) == 0) {
                names.push_back(name.substr(prefix, name.size() - prefix - suffix));
            }
        }
        closedir(dir);
        std::sort(names.begin(), names.end());
        for (const std::string& build : names) {
            if (std::find(seen.begin(), seen.end(), build) != seen.end()) continue;  // an earlier folder wins
            seen.push_back(build);
            std::string path = folder;
            path.append("/").append(kLibraryPrefix).append(build).append(kLibrarySuffix);
            DeviceInfo info{"rtl:" + build, "the kernel's RTL, Verilated (" + path + ")", false, ""};
            try {
                const auto library = rtl::load_rtl_library(path);
                info.name = "the kernel's RTL, Verilated: " + library->build_text;
                info.usable = true;
                info.detail = "cycle-accurate simulation: slow; memory models: zedboard (default), alveo";
            } catch (const Error& e) {
                info.detail = e.what();
            }
            devices.push_back(info);
        }
    }
    if (devices.empty()) {
        std::string folders;
        for (const std::string& folder : search_folders()) folders += (folders.empty() ? "" : ", ") + folder;
        devices.push_back({"rtl", "the kernel's RTL, Verilated", false,
                           "no build (libfpgacnn_rtl_<build>.so) in " +
                               (folders.empty() ? "any folder" : folders) +
                               ": build one (docs/kernel.md) or set FPGACNN_RTL_DIR"});
    }
    return devices;
}

}  // namespace fpgacnn
