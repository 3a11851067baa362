// Expands --images arguments (files and folders) into a sorted list of image files.
#pragma once

#include <string>
#include <vector>

namespace fpgacnn::quantize {

/// Folders contribute their image files (by extension, sorted, not recursive); files are kept as
/// given. Throws Error when a folder holds no image or the result is empty.
std::vector<std::string> expand_image_arguments(const std::vector<std::string>& arguments);

}  // namespace fpgacnn::quantize
