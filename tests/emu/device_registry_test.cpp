// The device registry: every driver's grammar, the valid-values messages built from the table,
// resolve_device and list_devices reading it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "error_message.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::test {
namespace {

TEST(DeviceRegistry, EveryDriverParsesItsExampleAndNamesItself) {
    std::set<std::string> prefixes;
    for (const DeviceDriver& driver : device_drivers()) {
        EXPECT_TRUE(prefixes.insert(driver.prefix).second) << "two drivers with prefix " << driver.prefix;
        ASSERT_TRUE(driver.check && driver.list) << driver.prefix;
        EXPECT_NO_THROW(driver.check(driver.example)) << driver.example;
        EXPECT_EQ(&device_driver(driver.example), &driver) << driver.example;
        EXPECT_EQ(resolve_device(driver.example), driver.example);
        EXPECT_EQ(driver.grammar.rfind(driver.prefix, 0), 0u) << driver.grammar;
    }
    // The drivers every build has; xrt joins them when libxrt-dev was found.
    for (const char* always : {"cpu", "emu", "rtl", "uio"}) EXPECT_EQ(prefixes.count(always), 1u) << always;
#ifdef FPGACNN_HAVE_XRT
    EXPECT_EQ(prefixes.count("xrt"), 1u);
#else
    EXPECT_EQ(prefixes.count("xrt"), 0u);
#endif
}

TEST(DeviceRegistry, OnlyCpuIsNotADevice) {
    for (const DeviceDriver& driver : device_drivers())
        EXPECT_EQ(static_cast<bool>(driver.open), driver.prefix != "cpu") << driver.prefix;
    EXPECT_FALSE(device_driver("cpu").hardware);
    EXPECT_FALSE(device_driver("emu").hardware);  // --device auto never picks the slow emulation
    EXPECT_FALSE(device_driver("rtl").hardware);  // nor the slower simulation
    EXPECT_TRUE(device_driver("uio:x").hardware);
}

TEST(DeviceRegistry, UnknownDeviceListsEveryValidValueFromTheTable) {
    const std::string message = error_message([] { resolve_device("gpu:0"); });
    EXPECT_NE(message.find("unknown device 'gpu:0': valid values are auto, cpu, "), std::string::npos)
        << message;
    for (const DeviceDriver& driver : device_drivers())
        EXPECT_NE(message.find(driver.grammar), std::string::npos) << driver.prefix << ": " << message;
    // A prefix is a whole word: "emulator" is not the emu driver.
    EXPECT_NE(error_message([] { device_driver("emulator"); }).find("unknown device 'emulator'"),
              std::string::npos);
}

TEST(DeviceRegistry, OpenDeviceOffersOnlyDevices) {
    const std::string message = error_message([] { open_device("cpu"); });
    EXPECT_NE(message.find("valid values are emu[:lenient]"), std::string::npos) << message;
    EXPECT_EQ(message.find("auto"), std::string::npos) << message;
}

TEST(DeviceRegistry, MalformedSpecsOfKnownDriversNameTheGrammar) {
    EXPECT_NE(error_message([] { resolve_device("emu:fast"); }).find("expected emu[:lenient]"),
              std::string::npos);
    EXPECT_NE(error_message([] { resolve_device("cpu:1"); }).find("expected cpu"), std::string::npos);
    EXPECT_NE(error_message([] { resolve_device("uio:"); }).find("name the IP's UIO device"),
              std::string::npos);
    const std::string option = error_message([] { resolve_device("uio:accel:fast"); });
    EXPECT_NE(option.find("unknown option 'fast'"), std::string::npos) << option;
    EXPECT_NE(option.find(device_driver("uio").grammar), std::string::npos) << option;
}

TEST(DeviceRegistry, UioSpecSuffixesBecomeOptions) {
    const UioSpec spec = parse_uio_spec("uio:fpgacnn_accel:addr32:poll:udmabuf1");
    EXPECT_EQ(spec.name, "fpgacnn_accel");
    EXPECT_EQ(spec.options.address_bits, 32);
    EXPECT_TRUE(spec.options.poll);
    EXPECT_EQ(spec.options.udmabuf, "udmabuf1");
    EXPECT_FALSE(parse_emu_spec("emu:lenient").strict_sync);
    EXPECT_TRUE(parse_emu_spec("emu").strict_sync);
}

// Found by fuzz_device_spec: the u-dma-buf name becomes /dev/<name>, so a '/' would leave /dev.
TEST(DeviceRegistry, UdmabufOptionIsOneFileName) {
    const std::string message = error_message([] { resolve_device("uio:accel:udmabuf0/../../tmp/x"); });
    EXPECT_NE(message.find("'udmabuf0/../../tmp/x' is not a u-dma-buf device name"), std::string::npos)
        << message;
    EXPECT_EQ(parse_uio_spec("uio:accel:udmabuf-ddr").options.udmabuf, "udmabuf-ddr");
}

TEST(DeviceRegistry, ListDevicesFollowsTheTableOrder) {
    const std::vector<DeviceInfo> devices = list_devices();
    ASSERT_GE(devices.size(), 2u);
    EXPECT_EQ(devices[0].spec, "cpu");
    EXPECT_EQ(devices[1].spec, "emu");
    EXPECT_TRUE(devices[0].usable && devices[1].usable);
    for (const DeviceInfo& info : devices) EXPECT_NO_THROW(device_driver(info.spec)) << info.spec;
}

TEST(DeviceRegistry, HelpAndValuesTextComeFromTheTable) {
    const std::string help = device_option_help();
    const std::string values = device_values_text();
    EXPECT_EQ(values.rfind("auto, ", 0), 0u) << values;
    for (const DeviceDriver& driver : device_drivers()) {
        EXPECT_NE(help.find(driver.grammar + " (" + driver.help), std::string::npos) << help;
        EXPECT_NE(values.find(driver.grammar), std::string::npos) << values;
    }
}

}  // namespace
}  // namespace fpgacnn::test
