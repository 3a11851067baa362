#include "http_listener.hpp"

#include <boost/beast/http/error.hpp>

#include "fpgacnn/error.hpp"

namespace fpgacnn::http {

namespace asio = boost::asio;
namespace beast = boost::beast;

void listen_on(asio::ip::tcp::acceptor& acceptor, const std::string& bind, unsigned short port,
               const std::string& port_flag) {
    beast::error_code ec;
    const asio::ip::address address = asio::ip::make_address(bind, ec);
    if (ec) throw Error("--bind " + bind + ": not an IP address (use e.g. 127.0.0.1, 0.0.0.0 or ::)");
    const asio::ip::tcp::endpoint endpoint(address, port);
    acceptor.open(endpoint.protocol(), ec);
    // SO_REUSEADDR only lets a restarted server take its port while old connections linger in
    // TIME_WAIT; a port another server listens on still fails below.
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        throw Error("cannot listen on " + host_port(bind, port) + ": " + ec.message() +
                    " (is another server using the port? " + port_flag + " 0 picks a free one)");
    }
}

bool is_parse_error(const beast::error_code& ec) {
    return ec.category() == beast::http::make_error_code(beast::http::error::bad_method).category() &&
           ec != beast::http::error::end_of_stream;
}

std::string host_port(const std::string& bind, unsigned short port) {
    const bool v6 = bind.find(':') != std::string::npos;
    return (v6 ? "[" + bind + "]" : bind) + ":" + std::to_string(port);
}

}  // namespace fpgacnn::http
