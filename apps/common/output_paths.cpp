#include "output_paths.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "exit_codes.hpp"
#include "fpgacnn/error.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::apps {
namespace {

// Whether a file can be created in `folder`: a probe file created and removed at once. access(W_OK)
// is not enough: root passes it everywhere, also on /proc and /sys where nothing can be created.
void require_writable_folder(const fs::path& folder, const std::string& path, const std::string& flag) {
    std::string probe = (folder / ".fpgacnn-write-probe-XXXXXX").string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0) {
        const int error = errno;
        throw Error(flag + " " + path + ": cannot write into the folder " + folder.string() + " (" +
                    std::strerror(error) + "); choose a folder you can write to");
    }
    ::close(fd);
    ::unlink(probe.c_str());
}

fs::path folder_of(const std::string& path) {
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

}  // namespace

void check_output_file(const std::string& path, const std::string& flag) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (fs::is_directory(status))
        throw CommandLineError(flag + " " + path + ": is a folder; give a file name");
    if (fs::exists(status) && !fs::is_regular_file(status)) {
        throw CommandLineError(flag + " " + path +
                               ": is not a regular file (a device, FIFO or socket); the output is written "
                               "to a temporary file and renamed, which would replace it: give a file name");
    }
    const fs::path folder = folder_of(path);
    if (!fs::is_directory(folder, ec))
        throw CommandLineError(flag + " " + path + ": the folder " + folder.string() + " does not exist");
    require_writable_folder(folder, path, flag);
}

void check_output_folder(const std::string& path, const std::string& flag) {
    std::error_code ec;
    fs::path existing = fs::path(path);
    while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
    if (existing.empty()) existing = ".";
    if (!fs::is_directory(existing, ec)) {
        throw CommandLineError(flag + " " + path + ": " + existing.string() +
                               " is a file, not a folder; give a folder name");
    }
    require_writable_folder(existing, path, flag);
}

}  // namespace fpgacnn::apps
