#include "rest_messages.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "protocol_tensors.hpp"

namespace fpgacnn::serve {

namespace {

using nlohmann::json;

ServeError invalid(const std::string& reason) { return ServeError(ErrorKind::InvalidArgument, reason); }

std::vector<std::string_view> path_segments(std::string_view path) {
    std::vector<std::string_view> segments;
    while (!path.empty()) {
        const std::size_t slash = path.find('/');
        const std::string_view segment = path.substr(0, slash);
        if (!segment.empty()) segments.push_back(segment);
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return segments;
}

/// The route of a path, whatever the method; the kind's method is checked by route_rest.
RestRoute route_of_path(std::string_view target) {
    const std::string_view path = target.substr(0, target.find('?'));
    const std::vector<std::string_view> s = path_segments(path);
    RestRoute route;
    if (s.size() == 1 && s[0] == "metrics") route.kind = RestRouteKind::Metrics;
    if (s.size() == 1 && s[0] == "v2") route.kind = RestRouteKind::ServerMetadata;
    if (s.size() == 3 && s[0] == "v2" && s[1] == "health" && s[2] == "live") route.kind = RestRouteKind::Live;
    if (s.size() == 3 && s[0] == "v2" && s[1] == "health" && s[2] == "ready")
        route.kind = RestRouteKind::Ready;
    if (s.size() >= 3 && s[0] == "v2" && s[1] == "models") {
        route.model = std::string(s[2]);
        std::size_t next = 3;
        if (s.size() >= 5 && s[3] == "versions") {
            route.version = std::string(s[4]);
            next = 5;
        }
        if (s.size() == next) route.kind = RestRouteKind::ModelMetadata;
        if (s.size() == next + 1 && s[next] == "ready") route.kind = RestRouteKind::ModelReady;
        if (s.size() == next + 1 && s[next] == "infer") route.kind = RestRouteKind::Infer;
    }
    if (s.size() >= 3 && s[0] == "v2" && s[1] == "systemsharedmemory") {
        std::size_t next = 2;
        if (s.size() >= 4 && s[2] == "region") {
            route.region = std::string(s[3]);
            next = 4;
        }
        if (s.size() == next + 1 && s[next] == "status") route.kind = RestRouteKind::SharedMemoryStatus;
        if (s.size() == next + 1 && s[next] == "unregister")
            route.kind = RestRouteKind::SharedMemoryUnregister;
        // Registering needs a name: there is no "register everything".
        if (s.size() == next + 1 && s[next] == "register" && next == 4)
            route.kind = RestRouteKind::SharedMemoryRegister;
    }
    return route;
}

/// The one method each route answers.
const char* method_of(RestRouteKind kind) {
    const bool post = kind == RestRouteKind::Infer || kind == RestRouteKind::SharedMemoryRegister ||
                      kind == RestRouteKind::SharedMemoryUnregister;
    return post ? "POST" : "GET";
}

const json* member(const json& object, const char* name) {
    const auto found = object.find(name);
    return found == object.end() ? nullptr : &*found;
}

/// A probability or a time in seconds: a JSON number (clients in some languages send a numeric text).
double number_parameter(const json& value, const std::string& where) {
    if (value.is_number()) return value.get<double>();
    if (value.is_string()) {
        const std::string& text = value.get_ref<const std::string&>();
        double number = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
        if (error == std::errc() && end == text.data() + text.size() && std::isfinite(number)) return number;
    }
    throw invalid(where + " must be a number, got " + value.dump());
}

std::int64_t json_int(const json& value, const std::string& where) {
    if (!value.is_number_integer()) throw invalid(where + " must be an integer, got " + value.dump());
    return value.get<std::int64_t>();
}

/// The JSON `data` of the image input in the raw form image_from_tensor reads.
void append_json_data(const json& data, const std::string& datatype, const std::string& where,
                      std::string& raw, std::vector<std::string>& elements) {
    if (data.is_array()) {
        for (const json& element : data) append_json_data(element, datatype, where, raw, elements);
        return;
    }
    if (datatype == "UINT8") {
        if (!data.is_number_integer() || data.get<std::int64_t>() < 0 || data.get<std::int64_t>() > 255)
            throw invalid(where + ": UINT8 data must be integers 0..255, got " + data.dump());
        raw += static_cast<char>(data.get<std::int64_t>());
    } else if (datatype == "BYTES") {
        if (data.is_string()) {
            elements.push_back(data.get<std::string>());
        } else if (data.is_object() && data.size() == 1 && member(data, "b64") && data["b64"].is_string()) {
            elements.push_back(decode_base64(data["b64"].get_ref<const std::string&>(), where + " b64"));
        } else {
            throw invalid(where + ": BYTES data must be strings or {\"b64\": \"<base64>\"} objects");
        }
    }
    // Other datatypes: image_from_tensor names the datatype it does not serve.
}

struct ParsedInput {
    std::string name;
    std::string datatype;
    std::vector<std::int64_t> shape;
    std::optional<std::size_t> binary_size;
    std::optional<SharedMemoryInput> shared_memory;
    const json* data = nullptr;
};

/// The input's shared-memory parameters, when it names a region.
std::optional<SharedMemoryInput> shared_memory_of(const json& parameters, const std::string& where) {
    const json* region = member(parameters, kSharedMemoryRegionParameter);
    if (region == nullptr) return std::nullopt;
    if (!region->is_string())
        throw invalid(where + ": " + kSharedMemoryRegionParameter + " must be a string");
    SharedMemoryInput shared;
    shared.region = region->get<std::string>();
    if (const json* offset = member(parameters, kSharedMemoryOffsetParameter))
        shared.offset = json_int(*offset, where + " " + kSharedMemoryOffsetParameter);
    if (const json* size = member(parameters, kSharedMemoryByteSizeParameter))
        shared.byte_size = json_int(*size, where + " " + kSharedMemoryByteSizeParameter);
    return shared;
}

ParsedInput parse_input(const json& input, const std::string& who) {
    if (!input.is_object()) throw invalid(who + ": each entry of 'inputs' must be an object");
    ParsedInput parsed;
    const json* name = member(input, "name");
    const json* datatype = member(input, "datatype");
    const json* shape = member(input, "shape");
    if (!name || !name->is_string()) throw invalid(who + ": an input has no 'name' string");
    parsed.name = name->get<std::string>();
    const std::string where = who + " input '" + parsed.name + "'";
    if (!datatype || !datatype->is_string()) throw invalid(where + ": no 'datatype' string");
    parsed.datatype = datatype->get<std::string>();
    if (!shape || !shape->is_array()) throw invalid(where + ": no 'shape' array");
    for (const json& dimension : *shape) parsed.shape.push_back(json_int(dimension, where + " shape"));
    if (const json* parameters = member(input, "parameters")) {
        if (!parameters->is_object()) throw invalid(where + ": 'parameters' must be an object");
        if (const json* size = member(*parameters, "binary_data_size")) {
            const std::int64_t bytes = json_int(*size, where + " binary_data_size");
            if (bytes < 0) throw invalid(where + ": binary_data_size is negative");
            parsed.binary_size = static_cast<std::size_t>(bytes);
        }
        parsed.shared_memory = shared_memory_of(*parameters, where);
    }
    parsed.data = member(input, "data");
    if (parsed.shared_memory) {
        if (parsed.binary_size || parsed.data)
            throw invalid(where + ": names a shared-memory region and also carries data (send one)");
        return parsed;
    }
    if (parsed.binary_size && parsed.data)
        throw invalid(where + ": both 'data' and binary_data_size are given (send one)");
    if (!parsed.binary_size && !parsed.data) throw invalid(where + ": no 'data' and no binary_data_size");
    return parsed;
}

void parse_parameters(const json& parameters, RestInferRequest& request, const std::string& who) {
    if (!parameters.is_object()) throw invalid(who + ": 'parameters' must be an object");
    for (const auto& [name, value] : parameters.items()) {
        std::string where = who;
        where.append(": parameter '").append(name).append("'");
        if (name == "thresh") request.inference.thresh = static_cast<float>(number_parameter(value, where));
        if (name == "nms") request.inference.nms = static_cast<float>(number_parameter(value, where));
        if (name == "timeout")
            request.inference.deadline = deadline_after_seconds(number_parameter(value, where));
        if (name == "binary_data_output") {
            if (!value.is_boolean()) throw invalid(where + " must be true or false");
            request.all_outputs_binary = value.get<bool>();
        }
    }
}

void parse_outputs(const json& outputs, RestInferRequest& request, const std::string& who) {
    if (!outputs.is_array()) throw invalid(who + ": 'outputs' must be an array");
    for (const json& output : outputs) {
        const json* name = output.is_object() ? member(output, "name") : nullptr;
        if (!name || !name->is_string())
            throw invalid(who + ": each entry of 'outputs' needs a 'name' string");
        request.inference.requested_outputs.push_back(name->get<std::string>());
        const json* parameters = member(output, "parameters");
        if (parameters == nullptr) continue;
        if (parameters->is_object() && member(*parameters, kSharedMemoryRegionParameter))
            throw shared_memory_output_error(who, name->get<std::string>());
        const json* binary = parameters->is_object() ? member(*parameters, "binary_data") : nullptr;
        if (binary == nullptr) continue;
        if (!binary->is_boolean())
            throw invalid(who + ": output '" + name->get<std::string>() +
                          "' binary_data must be true or false");
        if (binary->get<bool>()) request.binary_outputs.push_back(name->get<std::string>());
    }
}

std::size_t parse_json_length(std::string_view text, std::size_t body_size) {
    std::size_t length = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), length);
    if (error != std::errc() || end != text.data() + text.size())
        throw invalid("Inference-Header-Content-Length '" + std::string(text) + "' is not a byte count");
    if (length > body_size) {
        throw invalid("Inference-Header-Content-Length " + std::string(text) + " is beyond the body's " +
                      std::to_string(body_size) + " bytes");
    }
    return length;
}

json tensor_metadata_json(const std::vector<TensorMetadata>& tensors) {
    json list = json::array();
    for (const TensorMetadata& tensor : tensors)
        list.push_back({{"name", tensor.name}, {"datatype", tensor.datatype}, {"shape", tensor.shape}});
    return list;
}

}  // namespace

RestRoute route_rest(std::string_view method, std::string_view target) {
    RestRoute route = route_of_path(target);
    if (route.kind == RestRouteKind::NotFound) return route;
    if (method != method_of(route.kind)) route.kind = RestRouteKind::MethodNotAllowed;
    return route;
}

const char* rest_route_method(std::string_view target) { return method_of(route_of_path(target).kind); }

bool rest_route_is_probe(RestRouteKind kind) {
    return kind == RestRouteKind::Live || kind == RestRouteKind::Ready;
}

RestInferRequest request_from_rest(const std::string& model, const std::string& version,
                                   std::string_view body, std::optional<std::string_view> json_length,
                                   const SharedMemoryRegions* regions) {
    const std::size_t header_size = json_length ? parse_json_length(*json_length, body.size()) : body.size();
    const json message = json::parse(body.substr(0, header_size), nullptr, false);
    if (message.is_discarded()) throw invalid("the request body is not valid JSON");
    if (!message.is_object()) throw invalid("the request body must be a JSON object");
    RestInferRequest request;
    request.inference.model = model;
    request.inference.model_version = version;
    if (const json* id = member(message, "id")) {
        if (!id->is_string()) throw invalid("the request's 'id' must be a string");
        request.inference.id = id->get<std::string>();
    }
    const std::string who = "request '" + request.inference.id + "'";
    if (const json* parameters = member(message, "parameters")) parse_parameters(*parameters, request, who);
    if (const json* outputs = member(message, "outputs")) parse_outputs(*outputs, request, who);

    const json* inputs = member(message, "inputs");
    if (!inputs || !inputs->is_array()) throw invalid(who + ": no 'inputs' array");
    if (inputs->size() != 1) {
        throw invalid(who + ": the model takes one input, 'image', but the request has " +
                      std::to_string(inputs->size()));
    }
    const ParsedInput input = parse_input((*inputs)[0], who);
    std::string_view binary = body.substr(header_size);
    if (input.shared_memory) {
        if (!binary.empty())
            throw invalid(who + ": " + std::to_string(binary.size()) +
                          " bytes after the JSON that no input claims");
        request.inference.image = image_from_shared_memory(request.inference.id, input.name, input.datatype,
                                                           input.shape, *input.shared_memory, regions);
        return request;
    }
    std::string raw;
    if (input.binary_size) {
        if (!json_length)
            throw invalid(who + " input '" + input.name +
                          "': binary_data_size without Inference-Header-Content-Length");
        if (*input.binary_size != binary.size()) {
            throw invalid(who + " input '" + input.name + "': binary_data_size " +
                          std::to_string(*input.binary_size) + " but " + std::to_string(binary.size()) +
                          " bytes follow the JSON");
        }
        raw = std::string(binary);
    } else {
        if (!binary.empty())
            throw invalid(who + ": " + std::to_string(binary.size()) +
                          " bytes after the JSON that no input claims");
        std::vector<std::string> elements;
        append_json_data(*input.data, input.datatype, who + " input '" + input.name + "'", raw, elements);
        if (input.datatype == "BYTES") raw = join_raw_bytes(elements);
    }
    request.inference.image =
        image_from_tensor(request.inference.id, input.name, input.datatype, input.shape, std::move(raw));
    return request;
}

RestBody response_to_rest(const InferenceResponse& response, const RestInferRequest& request) {
    json message = {{"model_name", response.model}, {"model_version", response.model_version}};
    if (!response.id.empty()) message["id"] = response.id;
    message["outputs"] = json::array();
    std::string binary;
    for (const OutputTensor& tensor : output_tensors(response)) {
        json output = {{"name", tensor.name}, {"datatype", tensor.datatype}, {"shape", tensor.shape}};
        const bool as_binary = request.all_outputs_binary ||
                               std::find(request.binary_outputs.begin(), request.binary_outputs.end(),
                                         tensor.name) != request.binary_outputs.end();
        if (as_binary) {
            output["parameters"] = {{"binary_data_size", tensor.raw.size()}};
            binary += tensor.raw;
        } else if (tensor.name == "boxes") {
            output["data"] = response.boxes;
        } else if (tensor.name == "scores") {
            output["data"] = response.scores;
        } else if (tensor.name == "classes") {
            output["data"] = response.classes;
        } else {
            output["data"] = response.labels;
        }
        message["outputs"].push_back(std::move(output));
    }
    // Labels are class names from a names file: invalid UTF-8 there is replaced, not thrown.
    RestBody body{message.dump(-1, ' ', false, json::error_handler_t::replace), std::nullopt};
    if (request.all_outputs_binary || !request.binary_outputs.empty()) {
        body.json_length = body.bytes.size();
        body.bytes += binary;
    }
    return body;
}

SharedMemoryRegionStatus register_request_from_rest(const std::string& region, std::string_view body) {
    const std::string what = "shared-memory register request for region '" + region + "'";
    const json message = json::parse(body, nullptr, false);
    if (message.is_discarded() || !message.is_object())
        throw invalid(what + ": the body must be a JSON object {\"key\", \"offset\", \"byte_size\"}");
    const json* key = member(message, "key");
    if (!key || !key->is_string()) throw invalid(what + ": no 'key' string");
    const json* size = member(message, "byte_size");
    if (!size) throw invalid(what + ": no 'byte_size'");
    const json* offset = member(message, "offset");
    const std::int64_t byte_size = json_int(*size, what + " byte_size");
    const std::int64_t start = offset ? json_int(*offset, what + " offset") : 0;
    if (byte_size < 0 || start < 0) throw invalid(what + ": offset and byte_size must not be negative");
    return {region, key->get<std::string>(), static_cast<std::uint64_t>(start),
            static_cast<std::uint64_t>(byte_size)};
}

std::string shared_memory_status_to_json(const std::vector<SharedMemoryRegionStatus>& regions) {
    json list = json::array();
    for (const SharedMemoryRegionStatus& region : regions) {
        list.push_back({{"name", region.name},
                        {"key", region.key},
                        {"offset", region.offset},
                        {"byte_size", region.byte_size}});
    }
    return list.dump();
}

std::string metadata_to_json(const ServerMetadata& metadata) {
    return json{{"name", metadata.name}, {"version", metadata.version}, {"extensions", metadata.extensions}}
        .dump();
}

std::string metadata_to_json(const ModelMetadata& metadata) {
    return json{{"name", metadata.name},
                {"versions", metadata.versions},
                {"platform", metadata.platform},
                {"inputs", tensor_metadata_json(metadata.inputs)},
                {"outputs", tensor_metadata_json(metadata.outputs)}}
        .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string error_to_json(const std::string& reason) {
    // Reasons quote what the client sent, which need not be UTF-8.
    return json{{"error", reason}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string decode_base64(std::string_view text, const std::string& what) {
    static const std::array<std::int8_t, 256> values = [] {
        std::array<std::int8_t, 256> table{};
        table.fill(-1);
        const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (std::size_t i = 0; i < alphabet.size(); ++i)
            table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
        return table;
    }();
    while (!text.empty() && text.back() == '=') text.remove_suffix(1);
    if (text.size() % 4 == 1) throw invalid(what + ": not base64 (its length is wrong)");
    std::string bytes;
    bytes.reserve(text.size() / 4 * 3 + 2);
    std::uint32_t bits = 0;
    int count = 0;
    for (const char c : text) {
        const std::int8_t value = values[static_cast<unsigned char>(c)];
        if (value < 0) throw invalid(what + ": not base64 (the character '" + std::string(1, c) + "')");
        bits = (bits << 6) | static_cast<std::uint32_t>(value);
        count += 6;
        if (count >= 8) {
            count -= 8;
            bytes += static_cast<char>((bits >> count) & 0xFF);
        }
    }
    return bytes;
}

}  // namespace fpgacnn::serve
