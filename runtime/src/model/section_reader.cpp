#include "model/section_reader.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

#include "fpgacnn/error.hpp"

namespace fpgacnn::model {

namespace {

// Options darknet's parser reads for every layer; they steer training or weight saving only.
constexpr const char* kPerLayerTrainingOptions[] = {"onlyforward", "stopbackward", "learning_rate", "smooth"};

std::optional<int> parse_int(const std::string& text) {
    int value = 0;
    const char* begin = text.data();
    const char* end = begin + text.size();
    if (begin != end && *begin == '+') ++begin;
    const auto [stop, error] = std::from_chars(begin, end, value);
    if (error != std::errc() || stop != end || begin == end) return std::nullopt;
    return value;
}

std::optional<float> parse_float(const std::string& text) {
    float value = 0.0f;
    const char* begin = text.data();
    const char* end = begin + text.size();
    if (begin != end && *begin == '+') ++begin;
    const auto [stop, error] = std::from_chars(begin, end, value);
    if (error != std::errc() || stop != end || begin == end || !std::isfinite(value)) return std::nullopt;
    return value;
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        items.push_back(
            trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    // darknet tolerates one trailing comma ("anchors = 1,2,3,4,"); so do we.
    if (items.size() > 1 && items.back().empty()) items.pop_back();
    return items;
}

}  // namespace

SectionReader::SectionReader(const CfgFile& cfg, const CfgSection& section, int layer_index)
    : cfg_(cfg), section_(section), layer_index_(layer_index) {
    for (const char* key : kPerLayerTrainingOptions) ignored_keys_.insert(key);
}

const CfgOption* SectionReader::find(const std::string& key) {
    read_keys_.insert(key);
    for (const CfgOption& option : section_.options) {
        if (option.key == key) return &option;
    }
    return nullptr;
}

int SectionReader::integer(const std::string& key, int fallback) {
    const CfgOption* option = find(key);
    if (option == nullptr) return fallback;
    const std::optional<int> value = parse_int(option->value);
    if (!value) {
        fail(option, "option '" + key + "' = '" + option->value + "' is not an integer",
             "write a whole number, e.g. " + key + "=" + std::to_string(fallback));
    }
    return *value;
}

int SectionReader::integer_in_range(const std::string& key, int fallback, int min, int max,
                                    const std::string& hint) {
    const int value = integer(key, fallback);
    if (value < min || value > max) {
        fail(find(key),
             "option '" + key + "' = " + std::to_string(value) + " is out of range [" + std::to_string(min) +
                 ", " + std::to_string(max) + "]",
             hint);
    }
    return value;
}

bool SectionReader::flag(const std::string& key, bool fallback) {
    return integer_in_range(key, fallback ? 1 : 0, 0, 1, "write " + key + "=0 or " + key + "=1") == 1;
}

std::vector<int> SectionReader::integer_list(const std::string& key) {
    const CfgOption* option = find(key);
    if (option == nullptr) return {};
    std::vector<int> values;
    for (const std::string& item : split_commas(option->value)) {
        const std::optional<int> value = parse_int(item);
        if (!value) fail_list_item(*option, item, "an integer", "-1,-4");
        values.push_back(*value);
    }
    return values;
}

std::vector<float> SectionReader::real_list(const std::string& key) {
    const CfgOption* option = find(key);
    if (option == nullptr) return {};
    std::vector<float> values;
    for (const std::string& item : split_commas(option->value)) {
        const std::optional<float> value = parse_float(item);
        if (!value) fail_list_item(*option, item, "a number", "1.08,1.19,3.42,4.41");
        values.push_back(*value);
    }
    return values;
}

void SectionReader::fail_list_item(const CfgOption& option, const std::string& item, const char* kind,
                                   const char* example) const {
    fail(&option, "option '" + option.key + "' = '" + option.value + "': '" + item + "' is not " + kind,
         std::string("write a comma-separated list, e.g. ") + option.key + "=" + example);
}

float SectionReader::real_in_range(const std::string& key, float fallback, float min, float max,
                                   const std::string& hint) {
    const CfgOption* option = find(key);
    if (option == nullptr) return fallback;
    const std::optional<float> value = parse_float(option->value);
    if (!value) fail(option, "option '" + key + "' = '" + option->value + "' is not a number", hint);
    if (*value < min || *value > max) {
        fail(option,
             "option '" + key + "' = " + option->value + " is out of range [" + std::to_string(min) + ", " +
                 std::to_string(max) + "]",
             hint);
    }
    return *value;
}

Activation SectionReader::activation(Activation fallback) {
    const CfgOption* option = find("activation");
    if (option == nullptr) return fallback;
    for (const Activation known :
         {Activation::Linear, Activation::Leaky, Activation::Relu, Activation::Logistic, Activation::Mish}) {
        if (option->value == activation_name(known)) return known;
    }
    fail(option, "activation '" + option->value + "' is not supported",
         "fpgacnn runs activation=leaky, linear, relu, logistic and mish (mish on the float path only)");
}

void SectionReader::require_default(const std::string& key, int required, const std::string& why) {
    const CfgOption* option = find(key);
    if (option == nullptr) return;
    if (integer(key, required) != required) {
        fail(option, "option '" + key + "' = " + option->value + " is not supported (" + why + ")",
             "remove it or set " + key + "=" + std::to_string(required));
    }
}

void SectionReader::ignore(std::initializer_list<const char*> keys) {
    for (const char* key : keys) ignored_keys_.insert(key);
}

void SectionReader::reject_unknown_options() const {
    for (const CfgOption& option : section_.options) {
        if (read_keys_.count(option.key) != 0 || ignored_keys_.count(option.key) != 0) continue;
        std::string supported;
        for (const std::string& key : read_keys_) supported += (supported.empty() ? "" : ", ") + key;
        fail(&option, "unknown option '" + option.key + "'",
             "check its spelling; [" + section_.name + "] understands " + supported +
                 " (and ignores darknet's training-only options)");
    }
}

void SectionReader::fail(const CfgOption* option, const std::string& what, const std::string& todo) const {
    const int line = option != nullptr ? option->line : section_.line;
    std::string where = cfg_.path + ":" + std::to_string(line) + ": [" + section_.name + "]";
    if (layer_index_ >= 0) where += " layer " + std::to_string(layer_index_);
    throw Error(where + ": " + what + "; " + todo);
}

void SectionReader::fail(const std::string& what, const std::string& todo) const {
    fail(nullptr, what, todo);
}

}  // namespace fpgacnn::model
