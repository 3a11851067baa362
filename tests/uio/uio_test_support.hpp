// Shared by the uio tests: a simulated IP in a fresh folder, driver options pointing at it, a
// quantized test network (the CLI tests' simulator process: tests/uio_cli/sim_process.hpp).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../emu/emu_test_support.hpp"
#include "error_message.hpp"
#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/error.hpp"
#include "sim_uio.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

/// A simulated IP under a fresh scratch folder named after the running test.
inline std::unique_ptr<SimUio> start_sim(SimUioOptions options = {}) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    options.root = scratch_dir(std::string("uio_") + info->test_suite_name() + "_" + info->name());
    return std::make_unique<SimUio>(options);
}

/// Driver options for `sim`: short grace periods so that fault tests stay quick.
inline UioOptions driver_options(const SimUio& sim) {
    UioOptions options;
    options.root = sim.options().root;
    options.identify_timeout = std::chrono::milliseconds(3000);
    options.stall_grace = std::chrono::milliseconds(200);
    return options;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace fpgacnn::test
