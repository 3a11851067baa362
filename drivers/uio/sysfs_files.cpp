#include "uio/sysfs_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "fpgacnn/error.hpp"

namespace fpgacnn::uio {

std::string under_root(const std::string& root, const std::string& path) {
    std::string base = root.empty() ? "/" : root;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    std::string rest = path;
    while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
    if (base == "/") return "/" + rest;
    return base + "/" + rest;
}

std::optional<std::string> read_attribute(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    std::string value = text.str();
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
    return value;
}

std::string require_attribute(const std::string& path, const std::string& what) {
    const std::optional<std::string> value = read_attribute(path);
    if (!value) {
        throw DeviceError("cannot read " + path + " (" + what + "): " + std::strerror(errno));
    }
    return *value;
}

std::uint64_t parse_number(const std::string& text, const std::string& path) {
    try {
        std::size_t used = 0;
        const unsigned long long value = std::stoull(text, &used, 0);  // base 0: 0x.. hex, else decimal
        if (used == text.size()) return value;
    } catch (const std::exception&) {  // fall through to the message below
    }
    throw DeviceError(path + ": expected a number, read '" + text + "'");
}

void write_attribute(const std::string& path, const std::string& value) {
    // O_TRUNC: a no-op on sysfs, but keeps a simulated attribute file holding only the new value.
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw DeviceError("cannot open " + path + " for writing: " + std::strerror(errno));
    const ssize_t written = ::write(fd, value.data(), value.size());
    const int saved = errno;
    ::close(fd);
    if (written != static_cast<ssize_t>(value.size())) {
        throw DeviceError("writing '" + value + "' to " + path + " failed: " + std::strerror(saved));
    }
}

bool path_exists(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0;
}

}  // namespace fpgacnn::uio
