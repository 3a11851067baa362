// Both media plugins' version symbol (media/media_codecs.hpp): the project version of their build,
// which the loader compares with the library's own.
#include "plugin_export.hpp"

FPGACNN_MEDIA_PLUGIN_EXPORT const char* fpgacnn_media_plugin_version() {
    return FPGACNN_MEDIA_PLUGIN_VERSION;  // the project version (runtime/CMakeLists.txt)
}
