// The xrt driver's parts that need no device: the spec grammar, the xclbin fingerprint line and the
// sensor readings out of XRT's JSON reports.
#include <gtest/gtest.h>

#include <cstdlib>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/xrt_device.hpp"
#include "fpgacnn/error.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

struct ScopedUnsetXclbinEnv {
    ScopedUnsetXclbinEnv() { unsetenv("FPGACNN_XCLBIN"); }
};

TEST(XrtSpec, IndexBdfComputeUnitAndXclbin) {
    ScopedUnsetXclbinEnv clean;
    XrtSpec s = parse_xrt_spec("xrt:0");
    EXPECT_EQ(s.device, "0");
    EXPECT_EQ(s.index, 0);
    EXPECT_FALSE(s.compute_unit);
    EXPECT_TRUE(s.xclbin.empty());

    s = parse_xrt_spec("xrt:0000:65:00.1/cu3@/opt/fpgacnn/u50.xclbin");
    EXPECT_EQ(s.device, "0000:65:00.1");
    EXPECT_FALSE(s.index);
    EXPECT_EQ(s.compute_unit, 3);
    EXPECT_EQ(s.xclbin, "/opt/fpgacnn/u50.xclbin");
    EXPECT_EQ(xrt_spec_text(s), "xrt:0000:65:00.1/cu3@/opt/fpgacnn/u50.xclbin");

    s = parse_xrt_spec("xrt:12/cu0");
    EXPECT_EQ(s.index, 12);
    EXPECT_EQ(s.compute_unit, 0);
    EXPECT_EQ(xrt_spec_text(s), "xrt:12/cu0");
}

TEST(XrtSpec, XclbinFromTheEnvironmentUnlessGiven) {
    setenv("FPGACNN_XCLBIN", "/env/a.xclbin", 1);
    XrtSpec s = parse_xrt_spec("xrt:1");
    EXPECT_EQ(s.xclbin, "/env/a.xclbin");
    EXPECT_TRUE(s.xclbin_from_environment);
    EXPECT_EQ(xrt_spec_text(s), "xrt:1");  // the environment's path is not part of the spec
    s = parse_xrt_spec("xrt:1@b.xclbin");
    EXPECT_EQ(s.xclbin, "b.xclbin");
    EXPECT_FALSE(s.xclbin_from_environment);
    unsetenv("FPGACNN_XCLBIN");
}

TEST(XrtSpec, MalformedSpecsNameTheGrammar) {
    for (const char* bad :
         {"xrt:", "xrt:zero", "xrt:0/core1", "xrt:0/cu", "xrt:0/cux", "xrt:0@", "xrt0", "xrt:0:1"}) {
        try {
            parse_xrt_spec(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("xrt:<index|BDF>[/cu<k>][@<path.xclbin>]"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(XclbinFingerprintLine, RoundTripsTheNativeFingerprint) {
    const KernelFingerprint native = native_kernel_fingerprint();
    const std::string line = fingerprint_metadata(native);
    EXPECT_EQ(line.rfind("fpgacnn-fingerprint format=", 0), 0u) << line;
    const std::optional<KernelFingerprint> back = parse_fingerprint_metadata(line, "test");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->text(), native.text());
    EXPECT_EQ(back->format, native.format);
}

TEST(XclbinFingerprintLine, TheVitisMakefileWritesTheLineTheDriverReads) {
    // kernels/hls/vitis/Makefile puts this line into every xclbin it links (USER_METADATA).
    std::string out;
    ASSERT_EQ(run_command("make -s -C '" + source_dir() + "/kernels/hls/vitis' print-fingerprint", &out), 0)
        << out;
    const std::optional<KernelFingerprint> made = parse_fingerprint_metadata(out, "Makefile");
    ASSERT_TRUE(made) << out;
    EXPECT_EQ(made->text(), native_kernel_fingerprint().text());
    EXPECT_EQ(fingerprint_metadata(*made), out);
}

TEST(XclbinFingerprintLine, TheMakefilesPortWidthReachesTheMaximaAndOldLinesMeanSixteenBits) {
    std::string out;
    ASSERT_EQ(run_command(
                  "make -s -C '" + source_dir() + "/kernels/hls/vitis' print-fingerprint PORT_BITS=64", &out),
              0)
        << out;
    const std::optional<KernelFingerprint> wide = parse_fingerprint_metadata(out, "Makefile");
    ASSERT_TRUE(wide) << out;
    EXPECT_EQ(wide->maxima.port_bits, 64);
    // An xclbin linked before the HLS top had wide ports carries no port_bits: its ports are 16 bits.
    const std::string old = out.substr(0, out.find(" port_bits=")) + "\n";
    const std::optional<KernelFingerprint> narrow = parse_fingerprint_metadata(old, "old xclbin");
    ASSERT_TRUE(narrow) << old;
    EXPECT_EQ(narrow->maxima.port_bits, 16);
}

TEST(XclbinFingerprintLine, OtherMetadataIsNotAFingerprintButABrokenOneIsAnError) {
    EXPECT_FALSE(parse_fingerprint_metadata("{\"vendor\": \"someone\"}", "x"));
    EXPECT_FALSE(parse_fingerprint_metadata("", "x"));
    EXPECT_THROW(parse_fingerprint_metadata("fpgacnn-fingerprint format=1 contract=1", "x"), Error);
    EXPECT_THROW(parse_fingerprint_metadata("fpgacnn-fingerprint format=one", "x"), Error);
    EXPECT_THROW(parse_fingerprint_metadata("fpgacnn-fingerprint format", "x"), Error);
}

TEST(XrtSensors, ReadsPowerAndFpgaTemperatureFromXrtReports) {
    const std::string electrical =
        R"({"power_rails": [], "power_consumption_max_watts": "75.000", "power_consumption_watts": "23.125"})";
    EXPECT_DOUBLE_EQ(power_from_electrical_report(electrical).value_or(-1), 23.125);
    const std::string thermal = R"({"thermals": [
        {"location_id": "pcb_top_front", "temp_C": "35", "is_present": "true"},
        {"location_id": "fpga0", "temp_C": "61", "is_present": "true"}]})";
    EXPECT_DOUBLE_EQ(fpga_temperature_from_thermal_report(thermal).value_or(-1), 61.0);
}

TEST(XrtSensors, AbsentWhereTheCardHasNoSensor) {
    // What XRT 2.13's no-op device answers (abridged): N/A power, every thermal not present.
    EXPECT_FALSE(power_from_electrical_report(R"({"power_consumption_watts": "N\/A"})"));
    EXPECT_FALSE(fpga_temperature_from_thermal_report(
        R"({"thermals": [{"location_id": "fpga0", "temp_C": "0", "is_present": "false"}]})"));
    EXPECT_FALSE(power_from_electrical_report("not json"));
    EXPECT_FALSE(fpga_temperature_from_thermal_report("[1, 2]"));
    EXPECT_FALSE(fpga_temperature_from_thermal_report(R"({"thermals": {"fpga0": 3}})"));
}

}  // namespace
}  // namespace fpgacnn::test
