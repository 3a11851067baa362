#include "model_repository.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fpgacnn/error.hpp"

namespace fpgacnn::serve {

namespace fs = std::filesystem;

namespace {

/// model.json is a few lines; anything larger is not one.
constexpr std::uintmax_t kMaxModelFileBytes = 1 << 20;

const std::set<std::string>& known_keys() {
    static const std::set<std::string> keys = {"cfg",       "weights",   "names",  "quantized", "device",
                                               "precision", "instances", "thresh", "nms"};
    return keys;
}

/// Model names are path segments of the protocol's routes: letters, digits, '.', '_', '-'.
bool is_route_safe(const std::string& name) {
    if (name.empty() || name == "." || name == "..") return false;
    return std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
    });
}

class ConfigReader {
public:
    ConfigReader(const std::string& folder, const nlohmann::json& json)
        : folder_(folder), where_((fs::path(folder) / kModelFile).string()), json_(json) {}

    [[noreturn]] void fail(const std::string& problem, const std::string& todo) const {
        throw Error(where_ + ": " + problem + "; " + todo);
    }

    /// A string key's value; empty when absent and not required.
    std::string text(const char* key, bool required) const {
        if (!json_.contains(key)) {
            if (required) fail(std::string("no \"") + key + "\"", "add it (see docs/tools/fpgacnn-serve.md)");
            return "";
        }
        const nlohmann::json& value = json_.at(key);
        if (!value.is_string() || value.get<std::string>().empty())
            fail(std::string("\"") + key + "\" must be a non-empty string", "give a path or a name");
        return value.get<std::string>();
    }

    /// A key holding one non-empty string or a non-empty list of them.
    std::vector<std::string> texts(const char* key) const {
        const nlohmann::json& value = json_.at(key);
        if (value.is_string()) return {text(key, true)};
        std::vector<std::string> values;
        if (value.is_array()) {
            for (const nlohmann::json& item : value) {
                if (!item.is_string() || item.get<std::string>().empty()) break;
                values.push_back(item.get<std::string>());
            }
        }
        if (values.empty() || values.size() != value.size())
            fail(std::string("\"") + key + "\" must be a non-empty string or a list of them",
                 "e.g. \"auto\" or [\"xrt:0\", \"xrt:1\"]");
        return values;
    }

    /// A file key's path, relative to the folder unless absolute; it must be a regular file.
    std::string file(const char* key, bool required) const {
        const std::string given = text(key, required);
        if (given.empty()) return "";
        const fs::path path = fs::path(given).is_absolute() ? fs::path(given) : fs::path(folder_) / given;
        std::error_code error;
        if (!fs::is_regular_file(path, error))
            fail(std::string("\"") + key + "\": " + path.string() + " is not a readable file",
                 "fix the path (relative paths are relative to the model's folder)");
        return path.lexically_normal().string();
    }

    float probability(const char* key, float fallback) const {
        if (!json_.contains(key)) return fallback;
        const nlohmann::json& value = json_.at(key);
        if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0 ||
            value.get<double>() > 1)
            fail(std::string("\"") + key + "\" must be a number in [0, 1]", "e.g. 0.5");
        return value.get<float>();
    }

    int count(const char* key, int fallback, int maximum) const {
        if (!json_.contains(key)) return fallback;
        const nlohmann::json& value = json_.at(key);
        if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > maximum)
            fail(
                std::string("\"") + key + "\" must be a whole number in [1, " + std::to_string(maximum) + "]",
                "e.g. 1");
        return value.get<int>();
    }

private:
    std::string folder_;
    std::string where_;
    const nlohmann::json& json_;
};

std::string read_small_file(const fs::path& path) {
    std::error_code error;
    const std::uintmax_t size = fs::file_size(path, error);
    if (error || !fs::is_regular_file(path, error))
        throw Error(path.string() + ": cannot be read (" +
                    (error ? error.message() : std::string("not a regular file")) + ")");
    if (size > kMaxModelFileBytes)
        throw Error(path.string() + ": " + std::to_string(size) +
                    " bytes is too large for a model.json (at most 1 MiB); is this the right file?");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw Error(path.string() + ": cannot be read");
    return text.str();
}

}  // namespace

ModelConfig parse_model_config(const std::string& folder, const std::string& json_text) {
    const std::string where = (fs::path(folder) / kModelFile).string();
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(json_text);
    } catch (const nlohmann::json::parse_error& e) {
        throw Error(where + ": not valid JSON (" + e.what() + "); fix the file");
    }
    if (!json.is_object())
        throw Error(where + ": must hold one JSON object; see docs/tools/fpgacnn-serve.md");
    for (const auto& item : json.items()) {
        if (known_keys().count(item.key()) == 0)
            throw Error(where + ": unknown key \"" + item.key() +
                        "\"; the keys are cfg, weights, names, quantized, device, precision, instances, "
                        "thresh, nms");
    }
    const ConfigReader reader(folder, json);
    ModelConfig config;
    config.folder = fs::absolute(folder).lexically_normal().string();
    config.name = fs::path(config.folder).filename().string();
    if (!is_route_safe(config.name))
        reader.fail("the folder's name '" + config.name + "' cannot be a model name in a URL",
                    "rename it using letters, digits, '.', '_' and '-' only");
    config.cfg = reader.file("cfg", true);
    config.quantized = reader.file("quantized", false);
    // A board runs from the cfg and the quantized model alone; the float weights are needed otherwise.
    config.weights = reader.file("weights", config.quantized.empty());
    config.names = reader.file("names", true);
    if (json.contains("device")) config.devices = reader.texts("device");
    if (json.contains("precision")) {
        try {
            config.precision = parse_precision(reader.text("precision", true));
        } catch (const Error& e) {
            reader.fail(std::string("\"precision\": ") + e.what(), "use one of the values listed");
        }
    }
    config.instances = reader.count("instances", config.instances, kMaxInstances);
    config.thresh = reader.probability("thresh", config.thresh);
    config.nms = reader.probability("nms", config.nms);
    return config;
}

RepositoryScan scan_model_repository(const std::string& repository) {
    std::error_code error;
    if (!fs::is_directory(repository, error))
        throw Error(repository +
                    ": the model repository is not a folder (--model-repository DIR: one folder "
                    "per model, each with a model.json)");
    std::vector<fs::path> folders;
    for (fs::directory_iterator it(repository, error), end; !error && it != end; it.increment(error)) {
        if (it->is_directory(error)) folders.push_back(it->path());
    }
    if (error) throw Error(repository + ": cannot list the model repository (" + error.message() + ")");
    std::sort(folders.begin(), folders.end());
    RepositoryScan scan;
    for (const fs::path& folder : folders) {
        const fs::path file = folder / kModelFile;
        if (!fs::exists(file, error)) {
            scan.problems.push_back(folder.string() + ": no " + kModelFile +
                                    "; skipped (add one to serve it)");
            continue;
        }
        try {
            scan.models.push_back(parse_model_config(folder.string(), read_small_file(file)));
        } catch (const Error& e) {
            scan.problems.push_back(std::string(e.what()) + " (model skipped)");
        }
    }
    return scan;
}

}  // namespace fpgacnn::serve
