#include "rtl/rtl_library.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>

#include "fpgacnn/error.hpp"

namespace fpgacnn::rtl {

namespace {

template <class Function>
void resolve(void* handle, const std::string& path, const char* symbol, Function& function) {
    void* address = dlsym(handle, symbol);
    if (address == nullptr) {
        throw Error("rtl: " + path + " has no symbol " + symbol +
                    ": not a Verilated fpgacnn kernel build (kernels/rtl, fpgacnn_add_rtl_sim)");
    }
    function = reinterpret_cast<Function>(address);  // NOLINT: dlsym's void* is the C interface's function
}

/// Every function of the interface into `library`, after checking its version.
void resolve_all(void* handle, RtlLibrary& fields) {
    RtlLibrary* library = &fields;
    const std::string& path = library->path;
    decltype(&fpgacnn_rtl_abi_version) abi_version = nullptr;
    resolve(handle, path, "fpgacnn_rtl_abi_version", abi_version);
    const int version = abi_version();
    library->abi_version = version;
    if (version != FPGACNN_RTL_SIM_ABI_VERSION) {
        throw Error("rtl: " + path + " implements simulation interface version " + std::to_string(version) +
                    ", this library needs " + std::to_string(FPGACNN_RTL_SIM_ABI_VERSION) +
                    ": rebuild the model with this source tree");
    }
    decltype(&fpgacnn_rtl_build_text) build_text = nullptr;
    decltype(&fpgacnn_rtl_address64) address64 = nullptr;
    resolve(handle, path, "fpgacnn_rtl_build_text", build_text);
    resolve(handle, path, "fpgacnn_rtl_address64", address64);
    library->build_text = build_text();
    library->address64 = address64() != 0;
    resolve(handle, path, "fpgacnn_rtl_create", library->create);
    resolve(handle, path, "fpgacnn_rtl_destroy", library->destroy);
    resolve(handle, path, "fpgacnn_rtl_map", library->map);
    resolve(handle, path, "fpgacnn_rtl_unmap", library->unmap);
    resolve(handle, path, "fpgacnn_rtl_write_register", library->write_register);
    resolve(handle, path, "fpgacnn_rtl_read_register", library->read_register);
    resolve(handle, path, "fpgacnn_rtl_run", library->run);
    resolve(handle, path, "fpgacnn_rtl_read_counters", library->read_counters);
    resolve(handle, path, "fpgacnn_rtl_reset_counters", library->reset_counters);
    resolve(handle, path, "fpgacnn_rtl_last_error", library->last_error);
}

std::shared_ptr<const RtlLibrary> load(const std::string& path) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* why = dlerror();
        throw Error("rtl: cannot load " + path + ": " + (why != nullptr ? why : "unknown loader error") +
                    " (build it with the fpgacnn_rtl_<build> CMake target, docs/kernel.md)");
    }
    auto library = std::make_shared<RtlLibrary>();
    library->path = path;
    try {
        resolve_all(handle, *library);
    } catch (const Error&) {
        dlclose(handle);  // nothing was made from it yet
        throw;
    }
    return library;
}

}  // namespace

std::shared_ptr<const RtlLibrary> load_rtl_library(const std::string& path) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const RtlLibrary>> loaded;
    std::lock_guard<std::mutex> lock(mutex);
    auto found = loaded.find(path);
    if (found != loaded.end()) return found->second;
    return loaded[path] = load(path);
}

}  // namespace fpgacnn::rtl
