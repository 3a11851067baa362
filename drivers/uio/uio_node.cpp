#include "uio/uio_node.hpp"

#include <algorithm>
#include <filesystem>

#include "fpgacnn/error.hpp"
#include "fpgacnn/sysfs_file.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::uio {

namespace {

int node_number(const std::string& node) { return node.size() > 3 ? std::atoi(node.c_str() + 3) : -1; }

}  // namespace

std::vector<UioNode> list_uio_nodes(const std::string& root) {
    std::vector<UioNode> nodes;
    const std::string class_dir = sysfs::under_root(root, "sys/class/uio");
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(class_dir, error)) {
        const std::string node = entry.path().filename().string();
        if (node.rfind("uio", 0) != 0) continue;
        UioNode n;
        n.node = node;
        n.sys_dir = entry.path().string();
        n.name = sysfs::read_attribute(n.sys_dir + "/name").value_or("");
        n.dev_path = sysfs::under_root(root, "dev/" + node);
        const std::string size_file = n.sys_dir + "/maps/map0/size";
        if (const auto size = sysfs::read_attribute(size_file))
            n.map_size = sysfs::parse_number(*size, size_file);
        nodes.push_back(n);
    }
    std::sort(nodes.begin(), nodes.end(),
              [](const UioNode& a, const UioNode& b) { return node_number(a.node) < node_number(b.node); });
    return nodes;
}

UioNode find_uio_node(const std::string& root, const std::string& name) {
    const std::vector<UioNode> nodes = list_uio_nodes(root);
    for (const UioNode& n : nodes) {
        if (n.name == name || n.node == name) return n;
    }
    std::string present;
    for (const UioNode& n : nodes) present += (present.empty() ? "" : ", ") + n.node + " '" + n.name + "'";
    throw DeviceError("uio:" + name + ": no UIO device named '" + name + "' under " +
                      sysfs::under_root(root, "sys/class/uio") + " (" +
                      (present.empty() ? "none present" : present) +
                      "); load the bitstream and a device-tree overlay binding the IP to generic-uio "
                      "(docs/drivers.md), or list what is present with fpgacnn-detect --list-devices");
}

}  // namespace fpgacnn::uio
