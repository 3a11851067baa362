// libFuzzer harness: fpgacnn-camera's request handling up to the choice of handler: Beast's HTTP/1.1
// request parser configured as the server's sessions configure it (header and body limits from
// apps/camera/request_route.hpp), fed the bytes in client-sized pieces, then route_request and
// route_status on what parsed. Beast's errors are the expected outcome for malformed input.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <cstdint>
#include <string_view>

#include "request_route.hpp"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    // The first byte picks the piece size (1..256), as TCP splits requests at arbitrary points.
    const std::size_t piece = static_cast<std::size_t>(data[0]) + 1;
    ++data;
    --size;
    http::request_parser<http::string_body> parser;
    parser.header_limit(fpgacnn::camera::kRequestHeaderLimit);
    parser.body_limit(fpgacnn::camera::kRequestBodyLimit);
    parser.eager(true);
    std::string pending;
    std::size_t offset = 0;
    boost::beast::error_code ec;
    while (!parser.is_done() && offset < size) {
        const std::size_t take = std::min(piece, size - offset);
        pending.append(reinterpret_cast<const char*>(data) + offset, take);
        offset += take;
        const std::size_t used = parser.put(boost::asio::buffer(pending), ec);
        pending.erase(0, used);
        if (ec == http::error::need_more) {
            ec = {};
            continue;
        }
        if (ec) return 0;
    }
    if (!parser.is_done()) {
        parser.put_eof(ec);
        if (ec || !parser.is_header_done()) return 0;
    }
    const auto& request = parser.get();
    const auto method = request.method_string();
    const auto target = request.target();
    const fpgacnn::camera::Route route = fpgacnn::camera::route_request(
        std::string_view(method.data(), method.size()), std::string_view(target.data(), target.size()));
    const int status = fpgacnn::camera::route_status(route);
    if (status != 200 && status != 400 && status != 404 && status != 405) __builtin_trap();
    return 0;
}
