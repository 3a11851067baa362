// What the REST front end's tests share beyond recording_core.hpp: an HTTP client on Boost.Beast
// (plain or TLS, every call bounded in time) and the infer bodies of darknet's sample images in both
// input forms and both encodings (JSON, binary tensor data extension), with their responses decoded
// as a client decodes them.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <nlohmann/json.hpp>

#include "fpgacnn/vision.hpp"
#include "front_end.hpp"
#include "protocol_tensors.hpp"
#include "recording_core.hpp"
#include "repository_core.hpp"
#include "serve_test_repository.hpp"
#include "test_paths.hpp"

namespace fpgacnn::serve::test_support {

struct HttpAnswer {
    int status = 0;  // 0: no answer (the connection failed or closed)
    std::string body;
    std::map<std::string, std::string> headers;  // names in lower case
    std::string error;                           // why there is no answer
};

using Headers = std::vector<std::pair<std::string, std::string>>;

/// One request on a fresh connection to 127.0.0.1:port; over TLS (trusting any certificate) when `tls`.
inline HttpAnswer http_call(unsigned short port, const std::string& method, const std::string& target,
                            const std::string& body = "", const Headers& headers = {}, bool tls = false,
                            std::chrono::seconds timeout = std::chrono::seconds(120)) {
    namespace asio = boost::asio;
    namespace beast = boost::beast;
    namespace http = beast::http;
    HttpAnswer answer;
    try {
        asio::io_context io;
        const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
        http::request<http::string_body> request(http::string_to_verb(method), target, 11);
        request.set(http::field::host, "127.0.0.1");
        for (const auto& [name, value] : headers) request.set(name, value);
        request.body() = body;
        request.prepare_payload();
        request.keep_alive(false);
        beast::flat_buffer buffer;
        http::response_parser<http::string_body> parser;
        parser.body_limit(1u << 30);
        const auto exchange = [&](auto& stream, beast::tcp_stream& lowest) {
            lowest.expires_after(timeout);
            http::write(stream, request);
            http::read(stream, buffer, parser);
        };
        if (tls) {
            asio::ssl::context context(asio::ssl::context::tls_client);
            context.set_verify_mode(asio::ssl::verify_none);
            beast::ssl_stream<beast::tcp_stream> stream(io, context);
            beast::get_lowest_layer(stream).expires_after(timeout);
            beast::get_lowest_layer(stream).connect(endpoint);
            stream.handshake(asio::ssl::stream_base::client);
            exchange(stream, beast::get_lowest_layer(stream));
        } else {
            beast::tcp_stream stream(io);
            stream.expires_after(timeout);
            stream.connect(endpoint);
            exchange(stream, stream);
        }
        const auto& response = parser.get();
        answer.status = static_cast<int>(response.result_int());
        answer.body = response.body();
        for (const auto& field : response) {
            std::string name(field.name_string());
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            answer.headers[name] = std::string(field.value());
        }
    } catch (const std::exception& e) {
        answer.error = e.what();
    }
    return answer;
}

inline std::string base64(const std::string& bytes) {
    static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string text;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                           (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                           static_cast<unsigned char>(bytes[i + 2]);
        for (int shift : {18, 12, 6, 0}) text += alphabet[(v >> shift) & 63];
    }
    if (i + 1 == bytes.size()) {
        const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        text += std::string{alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63]} + "==";
    } else if (i + 2 == bytes.size()) {
        const unsigned v =
            (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
        text +=
            std::string{alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63], alphabet[(v >> 6) & 63]} + "=";
    }
    return text;
}

/// An infer request: the JSON and, for the binary extension, the bytes after it.
struct RestRequestBody {
    std::string body;
    Headers headers;
};

enum class InputForm { EncodedJson, PixelsJson, EncodedBinary, PixelsBinary };

inline RestRequestBody infer_body(const std::string& image_file, const std::string& id, InputForm form,
                                  nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json message = std::move(extra);
    message["id"] = id;
    nlohmann::json input = {{"name", "image"}};
    std::string binary;
    if (form == InputForm::EncodedJson || form == InputForm::EncodedBinary) {
        input["datatype"] = "BYTES";
        input["shape"] = {1};
        const std::string file = file_text(image_file);
        if (form == InputForm::EncodedJson) {
            input["data"] = {{{"b64", base64(file)}}};
        } else {
            binary = join_raw_bytes({file});
        }
    } else {
        const Image image = load_image(image_file);
        input["datatype"] = "UINT8";
        input["shape"] = {image.h, image.w, 3};
        const std::string pixels = rgb_pixels(image);
        if (form == InputForm::PixelsJson) {
            std::vector<int> values(pixels.begin(), pixels.end());
            for (int& v : values) v &= 0xFF;
            input["data"] = values;
        } else {
            binary = pixels;
        }
    }
    if (!binary.empty()) input["parameters"] = {{"binary_data_size", binary.size()}};
    message["inputs"] = nlohmann::json::array({input});  // {input} alone is the object itself under clang
    RestRequestBody request{message.dump(), {{"Content-Type", "application/json"}}};
    if (!binary.empty()) {
        request.headers = {{"Content-Type", "application/octet-stream"},
                           {"Inference-Header-Content-Length", std::to_string(request.body.size())}};
        request.body += binary;
    }
    return request;
}

/// The detections of an infer answer, from JSON `data` or binary data after the JSON.
inline Detections detections_of(const HttpAnswer& answer, std::string* id = nullptr) {
    std::size_t json_size = answer.body.size();
    const auto length = answer.headers.find("inference-header-content-length");
    if (length != answer.headers.end()) json_size = std::stoul(length->second);
    const nlohmann::json message = nlohmann::json::parse(answer.body.substr(0, json_size));
    if (id) *id = message.value("id", "");
    Detections d;
    std::size_t offset = json_size;
    for (const nlohmann::json& output : message.at("outputs")) {
        const std::string name = output.at("name");
        std::string raw;
        const bool binary =
            output.contains("parameters") && output["parameters"].contains("binary_data_size");
        if (binary) {
            const std::size_t size = output["parameters"]["binary_data_size"];
            raw = answer.body.substr(offset, size);
            offset += size;
        }
        if (name == "boxes")
            d.boxes = binary ? raw_values<float>(raw) : output.at("data").get<std::vector<float>>();
        if (name == "scores")
            d.scores = binary ? raw_values<float>(raw) : output.at("data").get<std::vector<float>>();
        if (name == "classes")
            d.classes =
                binary ? raw_values<std::int32_t>(raw) : output.at("data").get<std::vector<std::int32_t>>();
        if (name == "labels") {
            if (binary) {
                for (const std::string_view label : split_raw_bytes(raw, "labels"))
                    d.labels.emplace_back(label);
            } else {
                d.labels = output.at("data").get<std::vector<std::string>>();
            }
        }
    }
    return d;
}

}  // namespace fpgacnn::serve::test_support
