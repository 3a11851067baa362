// Typed, checked access to one cfg section's options. It remembers which keys the layer builder
// asked for, so that anything else in the section can be reported as unknown afterwards.
#pragma once

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"
#include "model/cfg_parser.hpp"

namespace fpgacnn::model {

class SectionReader {
public:
    /// `layer_index` < 0 means the [net] section (which is not a layer).
    SectionReader(const CfgFile& cfg, const CfgSection& section, int layer_index);

    const CfgSection& section() const { return section_; }

    /// The option, or nullptr when absent. Either way the key counts as known.
    const CfgOption* find(const std::string& key);

    int integer(const std::string& key, int fallback);
    /// An integer in [min, max]; out-of-range values are an error that quotes `hint`.
    int integer_in_range(const std::string& key, int fallback, int min, int max, const std::string& hint);
    /// 0 or 1 (darknet spells booleans as integers).
    bool flag(const std::string& key, bool fallback);
    std::vector<int> integer_list(const std::string& key);
    std::vector<float> real_list(const std::string& key);
    /// A finite number in [min, max].
    float real_in_range(const std::string& key, float fallback, float min, float max,
                        const std::string& hint);
    /// `activation`, `fallback` when absent (darknet: logistic in [convolutional], linear in [shortcut]).
    Activation activation(Activation fallback);

    /// Accepts `key` only when absent or equal to `required` (options darknet knows but that change
    /// the computation in ways fpgacnn does not implement).
    void require_default(const std::string& key, int required, const std::string& why);

    /// Marks options that only matter for training (or for other darknet forks) as known.
    void ignore(std::initializer_list<const char*> keys);
    /// Throws Error for the first option that was neither read nor ignored.
    void reject_unknown_options() const;

    /// "<file>:<line>: [<section>] layer <i>: <what>; <todo>" at the option's line (or the section's).
    [[noreturn]] void fail(const CfgOption* option, const std::string& what, const std::string& todo) const;
    /// Same, at the section header's line.
    [[noreturn]] void fail(const std::string& what, const std::string& todo) const;

private:
    [[noreturn]] void fail_list_item(const CfgOption& option, const std::string& item, const char* kind,
                                     const char* example) const;

    const CfgFile& cfg_;
    const CfgSection& section_;
    int layer_index_;
    std::set<std::string> read_keys_;     // options the builder understands (listed in errors)
    std::set<std::string> ignored_keys_;  // training-only options, accepted silently
};

}  // namespace fpgacnn::model
