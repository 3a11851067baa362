// list_uio_devices: every UIO node with what stands between it and a detection run. A node that
// passes the file checks is opened (identify command) unless another process holds it.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/error.hpp"
#include "uio/cma_info.hpp"
#include "uio/udmabuf.hpp"
#include "uio/uio_node.hpp"

namespace fpgacnn {

namespace {

DeviceInfo describe(const std::string& root, const uio::UioNode& node,
                    const std::vector<std::string>& udmabufs) {
    DeviceInfo info;
    info.spec = "uio:" + (node.name.empty() ? node.node : node.name);
    info.name = node.node + " '" + node.name + "', registers " + std::to_string(node.map_size) + " bytes";
    if (::access(node.dev_path.c_str(), R_OK | W_OK) != 0) {
        const int saved = errno;
        info.detail = node.dev_path + ": " + std::strerror(saved) +
                      (saved == EACCES ? " (add the udev rule of docs/drivers.md, or run as root)" : "");
        return info;
    }
    if (node.map_size == 0) {
        info.detail = "no memory map (maps/map0): not an IP with registers";
        return info;
    }
    if (udmabufs.empty()) {
        info.detail = "no u-dma-buf device for its DMA buffers: " +
                      uio::udmabuf_size_advice(32u << 20, uio::read_cma_info(root));
        return info;
    }
    try {
        UioOptions options;
        options.root = root;
        options.identify_timeout = std::chrono::milliseconds(500);
        const std::unique_ptr<Device> device = make_uio_device(node.node, options);
        info.usable = true;
        info.name = device->name();
        info.detail = device->fingerprint().text() + "; " + udmabufs.front() + ", " +
                      uio::cma_text(uio::read_cma_info(root));
    } catch (const Error& e) {
        info.detail = e.what();
    }
    return info;
}

}  // namespace

std::vector<DeviceInfo> list_uio_devices(const std::string& root_option) {
    const std::string root = uio_root(root_option);
    std::vector<DeviceInfo> devices;
    try {
        const std::vector<std::string> udmabufs = uio::list_udmabufs(root);
        for (const uio::UioNode& node : uio::list_uio_nodes(root))
            devices.push_back(describe(root, node, udmabufs));
    } catch (const std::exception& e) {
        devices.push_back({"uio", "UIO devices", false, std::string("enumeration failed: ") + e.what()});
    }
    return devices;
}

}  // namespace fpgacnn
