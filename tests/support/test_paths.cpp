#include "test_paths.hpp"

#include <cstdlib>
#include <filesystem>

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

std::string scratch_dir(const std::string& name) {
    const fs::path dir = fs::path(FPGACNN_BINARY_DIR) / "test-scratch" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
}

}  // namespace fpgacnn::test
