#include "fpgacnn/sysfs_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::sysfs {

namespace {

std::string reason_for(int error) {
    if (error == EACCES || error == EPERM) return "permission denied (needs root)";
    return std::strerror(error);
}

// read() until end of file: a sysfs attribute comes whole in the first read, procfs files such as
// /proc/meminfo can take several. errno is kept from the failing call.
std::optional<std::string> read_whole_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string text;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int saved = errno;
            ::close(fd);
            errno = saved;
            return std::nullopt;
        }
        if (n == 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

}  // namespace

std::string under_root(const std::string& root, const std::string& path) {
    std::string base = root.empty() ? "/" : root;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    std::string rest = path;
    while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
    if (base == "/") return "/" + rest;
    return base + "/" + rest;
}

std::optional<std::string> read_attribute(const std::string& path) {
    std::optional<std::string> value = read_whole_file(path);
    if (!value) return std::nullopt;
    while (!value->empty() && (value->back() == '\n' || value->back() == ' ')) value->pop_back();
    return value;
}

std::string require_attribute(const std::string& path, const std::string& what) {
    const std::optional<std::string> value = read_attribute(path);
    if (!value) {
        throw DeviceError("cannot read " + path + " (" + what + "): " + std::strerror(errno));
    }
    return *value;
}

long long read_integer(const std::string& path) {
    const std::optional<std::string> text = read_attribute(path);
    if (!text) throw Error(path + ": " + reason_for(errno));
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text->c_str(), &end, 10);
    if (end == text->c_str() || errno != 0) throw Error(path + ": not a number: '" + *text + "'");
    return value;
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

}  // namespace fpgacnn::sysfs
