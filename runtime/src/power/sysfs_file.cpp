#include "power/sysfs_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::power_detail {
namespace {

std::string reason_for(int error) {
    if (error == EACCES || error == EPERM) return "permission denied (needs root)";
    return std::strerror(error);
}

// sysfs attributes are a few bytes; one read() returns them whole.
bool read_small_file(const std::string& path, std::string& text, int& error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = errno;
        return false;
    }
    char buffer[128];
    const ssize_t n = ::read(fd, buffer, sizeof(buffer) - 1);
    error = n < 0 ? errno : 0;
    ::close(fd);
    if (n < 0) return false;
    text.assign(buffer, static_cast<std::size_t>(n));
    return true;
}

}  // namespace

long long read_sysfs_integer(const std::string& path) {
    std::string text;
    int error = 0;
    if (!read_small_file(path, text, error)) throw Error(path + ": " + reason_for(error));
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || errno != 0) throw Error(path + ": not a number: '" + text + "'");
    return value;
}

std::string read_sysfs_text(const std::string& path) {
    std::string text;
    int error = 0;
    if (!read_small_file(path, text, error)) return {};
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

std::string under_root(const std::string& root, const std::string& path) {
    if (root.empty() || root == "/") return path;
    return (root.back() == '/' ? root.substr(0, root.size() - 1) : root) + path;
}

}  // namespace fpgacnn::power_detail
