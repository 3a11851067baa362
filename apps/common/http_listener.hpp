// The HTTP plumbing the project's two Boost.Beast servers share (fpgacnn-camera's viewer and
// fpgacnn-serve's REST front end): opening the listening socket with an error that names the address
// and what to do, and telling bytes that are not HTTP (answer 400) from a client that left (close).
#pragma once

#include <string>
#include <string_view>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/string.hpp>

namespace fpgacnn::http {

/// Opens `acceptor` on bind:port and listens. Throws Error naming the address when `bind` is not an IP
/// address or the port cannot be taken; `port_flag` is the tool's flag for another port (its value 0
/// lets the system pick a free one).
void listen_on(boost::asio::ip::tcp::acceptor& acceptor, const std::string& bind, unsigned short port,
               const std::string& port_flag);

/// True when a read failed because the request is not valid HTTP (including a header or body above
/// the parser's limits); false when the client left, timed out, or sent nothing.
bool is_parse_error(const boost::beast::error_code& ec);

inline std::string_view to_std(boost::beast::string_view text) { return {text.data(), text.size()}; }

/// "host:port", with IPv6 addresses in brackets, as URLs and log lines write them.
std::string host_port(const std::string& bind, unsigned short port);

}  // namespace fpgacnn::http
