// --precision values to Precision and back: the one spelling every tool and report uses.
#include <string>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

std::string precision_name(Precision precision) {
    switch (precision) {
        case Precision::Auto:
            return "auto";
        case Precision::Float:
            return "float";
        case Precision::Int16:
            return "int16";
    }
    throw Error("invalid Precision value " + std::to_string(static_cast<int>(precision)));
}

Precision parse_precision(const std::string& text) {
    std::string valid;
    for (const Precision precision : kPrecisions) {
        if (text == precision_name(precision)) return precision;
        valid += (valid.empty() ? "" : ", ") + precision_name(precision);
    }
    throw Error("unknown precision '" + text + "': valid values are " + valid);
}

}  // namespace fpgacnn
