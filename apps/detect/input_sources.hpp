// Turns the command line's INPUT arguments (images, folders, video files) into a list of sources.
#pragma once

#include <string>
#include <vector>

namespace fpgacnn::detect {

enum class SourceKind { Image, Video };

struct InputSource {
    SourceKind kind = SourceKind::Image;
    std::string path;
};

/// Folders expand to the images and videos they hold (sorted, not recursive). A missing path or a
/// file of an unknown type is an Error naming it.
std::vector<InputSource> collect_input_sources(const std::vector<std::string>& arguments);

}  // namespace fpgacnn::detect
