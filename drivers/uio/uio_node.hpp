// Finding a UIO node: /sys/class/uio/uioN/{name, maps/map0/size} and its /dev/uioN.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fpgacnn::uio {

struct UioNode {
    std::string node;            // "uio0"
    std::string name;            // what the kernel driver named it (generic-uio: the device-tree node name)
    std::string sys_dir;         // <root>/sys/class/uio/uio0
    std::string dev_path;        // <root>/dev/uio0
    std::uint64_t map_size = 0;  // map0's size; 0 when the node has no memory map
};

/// Every node under <root>/sys/class/uio, sorted by number.
std::vector<UioNode> list_uio_nodes(const std::string& root);

/// The node named `name` or whose node is `name` ("uio0"). Throws Error listing what exists.
UioNode find_uio_node(const std::string& root, const std::string& name);

}  // namespace fpgacnn::uio
