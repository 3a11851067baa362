// Loads the media plugins (media_codecs.hpp says why they are plugins). Where each is looked for, in
// order:
//   1. $FPGACNN_MEDIA_PLUGIN_DIR/<plugin>, when set (a build of one's own, a test): only there;
//   2. <libfpgacnn's folder>/fpgacnn/<plugin>: installed (/usr/lib/<triplet>/) or in the build tree
//      (runtime/), also under a moved install prefix. "libfpgacnn" is the file that holds
//      fpgacnn::host_memory_budget() (core): the shared library, or an executable linked with the
//      static one;
//   3. <that folder>/../<libdir>/fpgacnn/<plugin>: such an executable installed in <prefix>/bin
//      (fpgacnn-train);
//   4. the plugin's path in the build tree that built this loader: tests and tools run from it.
// A plugin is never unloaded: its object lives as long as the process.
// Built with FPGACNN_MEDIA_PLUGIN_LINKED, the plugins' sources are linked in instead and nothing is
// loaded: the fuzzing build does that, so that OpenCV's decoders run where its sanitizers see them.
#include <string>

#include "media/media_codecs.hpp"

#if defined(FPGACNN_MEDIA_PLUGIN_LINKED)

extern "C" const fpgacnn::media::ImageCodecs* fpgacnn_image_codecs();
extern "C" const fpgacnn::media::VideoFiles* fpgacnn_video_files();

namespace fpgacnn::media {
const ImageCodecs& image_codecs(const std::string& /*context*/) { return *fpgacnn_image_codecs(); }
const VideoFiles& video_files(const std::string& /*context*/) { return *fpgacnn_video_files(); }
}  // namespace fpgacnn::media

#else

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/version.hpp"

namespace fpgacnn::media {

namespace {

namespace fs = std::filesystem;

/// The file (shared library or executable) that holds libfpgacnn's code. A public function of core,
/// not one of this file: the tools' common code carries its own copy of this loader.
fs::path library_file() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&fpgacnn::host_memory_budget), &info) == 0 ||
        info.dli_fname == nullptr || info.dli_fname[0] == '\0') {
        return {};
    }
    fs::path file(info.dli_fname);
    // As the loader found it, e.g. <prefix>/bin/../lib/<triplet>/ through the tools' RUNPATH.
    if (file.is_absolute()) return file.lexically_normal();
    // The main program may be named as it was started (relative to a folder it has left since):
    // the kernel knows its real path.
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && exe.filename() == file.filename()) return exe;
    return fs::absolute(file, ec);
}

std::vector<fs::path> candidate_paths(const char* file_name, const char* build_path) {
    if (const char* dir = std::getenv("FPGACNN_MEDIA_PLUGIN_DIR"); dir != nullptr && *dir != '\0') {
        return {fs::path(dir) / file_name};  // named on purpose: no other one may stand in for it
    }
    std::vector<fs::path> paths;
    const fs::path library_dir = library_file().parent_path();
    if (!library_dir.empty()) {
        paths.push_back(library_dir / "fpgacnn" / file_name);
        paths.push_back(
            (library_dir / ".." / FPGACNN_INSTALL_LIBDIR / "fpgacnn" / file_name).lexically_normal());
    }
    paths.emplace_back(build_path);
    return paths;
}

/// What is needed to find, check and use one plugin.
struct PluginSpec {
    const char* what;        // "image codecs"
    const char* needed_for;  // what the plugin does, for the message
    const char* file_name;
    const char* build_path;
    const char* symbol;   // the C function returning its object
    const char* package;  // the Debian package it belongs to
};

/// The plugin at `path` opened, if it is one of this build's that exports `symbol`; null with the
/// reason in `why`.
void* open_plugin(const fs::path& path, const char* symbol, std::string& why) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        why = "not there";
        return nullptr;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* message = dlerror();
        why = message != nullptr ? message : "dlopen failed";
        return nullptr;
    }
    auto version = reinterpret_cast<const char* (*)()>(dlsym(handle, kPluginVersionSymbol));
    if (version == nullptr || dlsym(handle, symbol) == nullptr) {
        why = std::string("not the fpgacnn plugin it should be (no ") + symbol + ")";
        dlclose(handle);
        return nullptr;
    }
    if (std::strcmp(version(), FPGACNN_VERSION_STRING) != 0) {
        why = std::string("its version is ") + version() + ", this library's " FPGACNN_VERSION_STRING;
        dlclose(handle);
        return nullptr;
    }
    return handle;
}

/// The plugin's object (its symbol called through its own type: UBSan's -fsanitize=function checks
/// that), or Error naming every path tried and why each failed.
template <class Object>
const Object& load_plugin(const PluginSpec& spec) {
    std::string tried;
    for (const fs::path& path : candidate_paths(spec.file_name, spec.build_path)) {
        std::string why;
        if (void* handle = open_plugin(path, spec.symbol, why)) {
            auto object = reinterpret_cast<const Object* (*)()>(dlsym(handle, spec.symbol));
            return *object();
        }
        tried += "\n  " + path.string() + ": " + why;
    }
    throw Error(std::string("cannot load fpgacnn's ") + spec.what + " plugin " + spec.file_name + " (" +
                spec.needed_for + "); tried:" + tried + "\nreinstall the " + spec.package +
                " package (the plugin belongs to it), or set FPGACNN_MEDIA_PLUGIN_DIR to the folder that "
                "holds the plugin");
}

/// The plugin's object, loaded once; a failure is reported with `context` in front.
template <class Object>
const Object& loaded_once(const std::string& context, const PluginSpec& spec) {
    try {
        static const Object& object = load_plugin<Object>(spec);  // a throw: tried again next call
        return object;
    } catch (const Error& e) {
        throw Error(context + ": " + e.what());
    }
}

}  // namespace

const ImageCodecs& image_codecs(const std::string& context) {
    static const PluginSpec spec{
        "image codecs",
        "OpenCV imgcodecs: reads PNG, BMP, PNM, WebP and damaged JPEG images, writes images",
        FPGACNN_IMAGE_PLUGIN_FILE,
        FPGACNN_IMAGE_PLUGIN_BUILD_PATH,
        kImageCodecsSymbol,
        "libfpgacnn"};
    return loaded_once<ImageCodecs>(context, spec);
}

const VideoFiles& video_files(const std::string& context) {
    static const PluginSpec spec{"video files",
                                 "OpenCV videoio: reads and writes videos",
                                 FPGACNN_VIDEO_PLUGIN_FILE,
                                 FPGACNN_VIDEO_PLUGIN_BUILD_PATH,
                                 kVideoFilesSymbol,
                                 "fpgacnn-tools"};
    return loaded_once<VideoFiles>(context, spec);
}

}  // namespace fpgacnn::media

#endif  // FPGACNN_MEDIA_PLUGIN_LINKED
