// The viewer page served at `/`: page.html, embedded at build time (see CMakeLists.txt).
#pragma once

#include <string_view>

namespace fpgacnn::camera {

std::string_view viewer_page();

}  // namespace fpgacnn::camera
