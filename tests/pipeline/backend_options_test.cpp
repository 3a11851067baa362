// Precision's one spelling, resolve_precision's device / precision pairs and make_backend's choice
// of backend for BackendOptions.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "../emu/emu_test_support.hpp"
#include "error_message.hpp"
#include "fpgacnn/backend.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "pipeline_test_support.hpp"

namespace fpgacnn::test {
namespace {

TEST(Precision, NamesRoundTrip) {
    for (const Precision precision : kPrecisions)
        EXPECT_EQ(parse_precision(precision_name(precision)), precision);
    EXPECT_EQ(precision_name(Precision::Auto), "auto");
    EXPECT_EQ(precision_name(Precision::Float), "float");
    EXPECT_EQ(precision_name(Precision::Int16), "int16");
    EXPECT_EQ(precision_name(Precision::Int8), "int8");
    EXPECT_EQ(precision_name(Precision::Mixed), "mixed");
}

TEST(Precision, UnknownNamesListTheValidOnes) {
    for (const char* bad : {"double", "", "Int16", "int4", "float "}) {
        const std::string message = error_message([&] { parse_precision(bad); });
        EXPECT_EQ(message, "unknown precision '" + std::string(bad) +
                               "': valid values are auto, float, int16, int8, mixed");
    }
    EXPECT_THROW(precision_name(static_cast<Precision>(7)), Error);
}

TEST(Precision, ResolvedForTheDevice) {
    EXPECT_EQ(resolve_precision("cpu", Precision::Auto), Precision::Float);
    EXPECT_EQ(resolve_precision("cpu", Precision::Int16), Precision::Int16);
    EXPECT_EQ(resolve_precision("emu", Precision::Auto), Precision::Int16);
    EXPECT_EQ(resolve_precision("emu:lenient", Precision::Int16), Precision::Int16);
    const std::string message = error_message([] { resolve_precision("emu", Precision::Float); });
    EXPECT_NE(message.find("device 'emu' computes in fixed point only"), std::string::npos) << message;
    EXPECT_NE(error_message([] { resolve_precision("fpga", Precision::Auto); }).find("valid values are auto"),
              std::string::npos);
}

TEST(MakeBackend, PicksTheBackendForTheOptions) {
    Network network = tiny_network();
    fold_batchnorm(network);  // the synthetic weights come with batch-norm, as darknet's files do
    BackendOptions options;
    options.device = "cpu";
    EXPECT_NE(make_backend(network, options)->name().find("float32"), std::string::npos);

    options.precision = Precision::Int16;
    EXPECT_NE(error_message([&] { make_backend(network, options); }).find("needs a quantized network"),
              std::string::npos);
    options.quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    EXPECT_NE(make_backend(network, options)->name().find("int16"), std::string::npos);

    // int8 promises 8-bit conv layers; this model has none. mixed runs whatever widths it has.
    options.precision = Precision::Int8;
    EXPECT_NE(error_message([&] { make_backend(network, options); }).find("--precision int8 means 8 bits"),
              std::string::npos);
    options.precision = Precision::Mixed;
    EXPECT_NE(make_backend(network, options)->name().find("int16"), std::string::npos);

    options.precision = Precision::Int16;
    options.device = "emu";
    const std::unique_ptr<Backend> emu = make_backend(network, options);
    EXPECT_NE(emu->device(), nullptr);
    EXPECT_NE(emu->name().find("emu"), std::string::npos) << emu->name();
}

}  // namespace
}  // namespace fpgacnn::test
