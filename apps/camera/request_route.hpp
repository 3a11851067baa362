// Which handler serves a parsed HTTP request. Kept apart from the Beast session code so the rules
// are plain functions the unit tests call directly.
#pragma once

#include <cstddef>
#include <string_view>

namespace fpgacnn::camera {

/// Limits of one request, for the server's parser (and the fuzz harness, tests/fuzz): headers up to
/// 8 KiB; a GET carries no body, 1 KiB is slack for odd clients.
constexpr std::size_t kRequestHeaderLimit = 8 * 1024;
constexpr std::size_t kRequestBodyLimit = 1024;

enum class Route {
    Page,              // GET /          the HTML viewer
    Stream,            // GET /stream    MJPEG, multipart/x-mixed-replace
    Events,            // GET /events    Server-Sent Events (detections, FPS)
    NotFound,          // 404
    MethodNotAllowed,  // 405 (a known path with another method)
    BadRequest,        // 400 (a target that is not an origin-form path)
};

/// `method` and `target` as they appear on the request line; a query string is ignored.
Route route_request(std::string_view method, std::string_view target);

/// HTTP status code for a route that answers with an error (404, 405, 400); 200 otherwise.
int route_status(Route route);

}  // namespace fpgacnn::camera
