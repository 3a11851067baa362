// A tool's --help must offer every driver of the device registry and every precision: the help is
// generated from those tables, so a driver added to the registry shows up in each tool by itself.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/drivers/device_registry.hpp"

namespace fpgacnn::test {

inline void expect_help_lists_devices_and_precisions(const std::string& help, const std::string& tool) {
    ASSERT_FALSE(device_drivers().empty());
    for (const DeviceDriver& driver : device_drivers()) {
        EXPECT_NE(help.find(driver.grammar + " (" + driver.help), std::string::npos)
            << tool << " --help does not offer " << driver.prefix << ":\n"
            << help;
    }
    EXPECT_NE(help.find("auto (an accelerator if present, else cpu)"), std::string::npos) << help;
    for (const Precision precision : kPrecisions)
        EXPECT_NE(help.find(precision_name(precision) + " ("), std::string::npos) << tool << ": " << help;
}

}  // namespace fpgacnn::test
