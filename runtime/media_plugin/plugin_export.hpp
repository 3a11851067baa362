// How the media plugins export their C entry points (the rest of a plugin is hidden).
#pragma once

#define FPGACNN_MEDIA_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
