#include "request_route.hpp"

namespace fpgacnn::camera {

namespace {

std::string_view path_of(std::string_view target) {
    const std::size_t query = target.find_first_of("?#");
    return query == std::string_view::npos ? target : target.substr(0, query);
}

// Origin-form only (RFC 9112 3.2.1): "/" followed by printable ASCII. Absolute-form targets are
// for proxies, and control characters or spaces mean the request line was mangled.
bool is_origin_form(std::string_view target) {
    if (target.empty() || target.front() != '/') return false;
    for (const char c : target) {
        if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
    }
    return true;
}

}  // namespace

Route route_request(std::string_view method, std::string_view target) {
    if (!is_origin_form(target)) return Route::BadRequest;
    const std::string_view path = path_of(target);
    Route route = Route::NotFound;
    if (path == "/" || path == "/index.html") {
        route = Route::Page;
    } else if (path == "/stream") {
        route = Route::Stream;
    } else if (path == "/events") {
        route = Route::Events;
    }
    if (route != Route::NotFound && method != "GET") return Route::MethodNotAllowed;
    return route;
}

int route_status(Route route) {
    switch (route) {
        case Route::NotFound:
            return 404;
        case Route::MethodNotAllowed:
            return 405;
        case Route::BadRequest:
            return 400;
        default:
            return 200;
    }
}

}  // namespace fpgacnn::camera
