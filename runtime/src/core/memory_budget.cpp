// The host memory budget (docs/reliability.md, "Memory budget"): what a network or an image needs,
// compared with what the machine has, before the allocation that would otherwise throw bad_alloc.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

#include "fpgacnn/error.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn {

namespace {

constexpr const char* kLimitVariable = "FPGACNN_MEMORY_LIMIT";

// "8G", "512M", "1048576", "off"; nullopt-like false on anything else.
bool parse_limit(const std::string& text, std::uint64_t& bytes) {
    if (text.empty()) return false;
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 15) return false;
    std::uint64_t value = std::stoull(text.substr(0, digits));
    const std::string unit = text.substr(digits);
    int shift = 0;
    if (unit.empty() || unit == "B") {
        shift = 0;
    } else if (unit == "K" || unit == "KiB") {
        shift = 10;
    } else if (unit == "M" || unit == "MiB") {
        shift = 20;
    } else if (unit == "G" || unit == "GiB") {
        shift = 30;
    } else if (unit == "T" || unit == "TiB") {
        shift = 40;
    } else {
        return false;
    }
    if (value > (UINT64_MAX >> shift)) return false;
    bytes = value << shift;
    return true;
}

bool read_mem_available(std::uint64_t& bytes) {
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        std::istringstream fields(line.substr(13));
        std::uint64_t kib = 0;
        if (!(fields >> kib)) return false;
        bytes = kib * 1024;
        return true;
    }
    return false;
}

// What is left of the address-space limit (ulimit -v, RLIMIT_AS): an allocation past it fails with
// bad_alloc however much memory the machine has, so it bounds the budget too. False when unlimited.
bool read_address_space_left(std::uint64_t& bytes) {
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return false;
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    if (!(statm >> pages)) return false;
    const std::uint64_t used = pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    const auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
    bytes = cap > used ? cap - used : 0;
    return true;
}

std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

}  // namespace

NetworkMemory estimate_network_memory(const Network& network) {
    NetworkMemory memory;
    constexpr std::uint64_t kFloat = sizeof(float);
    constexpr std::uint64_t kInt16 = sizeof(std::int16_t);
    for (const Layer& layer : network.layers) {
        memory.activations += saturating_product(layer.output.size(), kFloat);
        const std::uint64_t io =
            saturating_product(layer.input.size(), kInt16) + saturating_product(layer.output.size(), kInt16);
        memory.largest_layer_io = std::max(memory.largest_layer_io, io);
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& conv = layer.conv();
        const auto filters = static_cast<std::uint64_t>(conv.filters);
        const std::uint64_t kernel = static_cast<std::uint64_t>(layer.input.c) * conv.size * conv.size;
        const std::uint64_t per_filter = kernel + 1 + (conv.batch_normalize ? 3 : 0);
        memory.weights += saturating_product(saturating_product(filters, per_filter), kFloat);
        memory.quantized_parameters += saturating_product(saturating_product(filters, kernel + 1), kInt16);
        const std::uint64_t columns = static_cast<std::uint64_t>(layer.output.h) * layer.output.w;
        memory.workspace =
            std::max(memory.workspace, saturating_product(saturating_product(kernel, columns), kFloat));
    }
    return memory;
}

HostMemoryBudget host_memory_budget() {
    HostMemoryBudget budget;
    if (const char* limit = std::getenv(kLimitVariable); limit != nullptr && *limit != '\0') {
        const std::string text = limit;
        budget.source = std::string(kLimitVariable) + "=" + text;
        if (text == "off") return budget;
        if (!parse_limit(text, budget.bytes)) {
            throw Error(
                std::string(kLimitVariable) + "='" + text +
                "' is not a size; write bytes with an optional K, M, G or T suffix (e.g. 8G), or off");
        }
        budget.limited = true;
        return budget;
    }
    budget.limited = read_mem_available(budget.bytes);
    budget.source = budget.limited ? "MemAvailable in /proc/meminfo" : "no /proc/meminfo: not checked";
    std::uint64_t address_space = 0;
    if (read_address_space_left(address_space) && (!budget.limited || address_space < budget.bytes)) {
        budget.bytes = address_space;
        budget.limited = true;
        budget.source = "what is left of the address-space limit, ulimit -v";
    }
    return budget;
}

std::string bytes_text(std::uint64_t bytes) {
    constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return std::to_string(bytes) + " bytes";
    double value = static_cast<double>(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 5) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
    return text;
}

void require_host_memory(std::uint64_t needed, const std::string& what, const std::string& breakdown,
                         const std::string& todo) {
    const HostMemoryBudget budget = host_memory_budget();
    if (!budget.limited || needed <= budget.bytes) return;
    throw Error(what + " needs " + bytes_text(needed) + " of memory (" + breakdown + ") but only " +
                bytes_text(budget.bytes) + " are available (" + budget.source + "); " + todo + ", or set " +
                kLimitVariable + " (e.g. " + kLimitVariable + "=64G, or off) if the machine really has it");
}

}  // namespace fpgacnn
