#include "test_paths.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace fpgacnn::test {

std::string shared_dir() {
    const char* from_env = std::getenv("FPGACNN_SHARED_DIR");
    const fs::path dir = from_env != nullptr ? fs::path(from_env) : fs::path(FPGACNN_SHARED_DIR_DEFAULT);
    std::error_code ec;
    if (!fs::is_directory(dir / "models", ec)) return {};
    return fs::canonical(dir, ec).string();
}

std::string shared_model_file(const std::string& model, const std::string& file) {
    const std::string dir = shared_dir();
    if (dir.empty()) return {};
    return (fs::path(dir) / "models" / model / file).string();
}

std::string darknet_file(const std::string& relative) { return "/usr/share/darknet/" + relative; }

std::string source_dir() { return FPGACNN_SOURCE_DIR; }

std::string app_path(const std::string& folder, const std::string& binary) {
    return (fs::path(FPGACNN_BINARY_DIR) / "apps" / folder / binary).string();
}

namespace {
std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}
}  // namespace

int run_command(const std::string& command, std::string* out, std::string* err) {
    static int counter = 0;
    const fs::path base = fs::temp_directory_path() /
                          ("fpgacnn-cmd-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    const std::string full = command + " >" + base.string() + ".out 2>" + base.string() + ".err";
    const int status = std::system(full.c_str());
    if (out != nullptr) *out = slurp(base.string() + ".out");
    if (err != nullptr) *err = slurp(base.string() + ".err");
    fs::remove(base.string() + ".out");
    fs::remove(base.string() + ".err");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

namespace {

// ctest runs every test case in its own process, several at once: each process gets its own
// scratch folders (suffixed with its pid) and removes them when it exits.
class ScratchFolders {
public:
    ~ScratchFolders() {
        std::error_code ec;
        for (const fs::path& dir : created_) fs::remove_all(dir, ec);
    }
    fs::path create(const std::string& name) {
        const fs::path dir =
            fs::path(FPGACNN_BINARY_DIR) / "test-scratch" / (name + "." + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        created_.push_back(dir);
        return dir;
    }

private:
    std::vector<fs::path> created_;
};

}  // namespace

std::string scratch_dir(const std::string& name) {
    static ScratchFolders folders;
    return folders.create(name).string();
}

}  // namespace fpgacnn::test
