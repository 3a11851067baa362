// The XRT tests run on XRT's no-op device: XCL_EMULATION_MODE=noop and XILINX_XRT pointing at a
// prefix whose lib/ is the directory holding Debian's XRT libraries (made in the scratch folder).
// Both must be set before XRT is first touched in the process, so every test calls
// use_xrt_noop_device() first. A test run as a child process (run_child) sets its own environment.
#pragma once

#include <functional>
#include <string>

#include "error_message.hpp"
#include "xclbin_writer.hpp"

namespace fpgacnn::test {

/// Sets the no-op environment unless this process is a child started by run_child (which got its
/// environment from the parent). Idempotent.
void use_xrt_noop_device();

/// A prefix directory whose lib/ links to the XRT library directory.
std::string xrt_prefix();

/// The fingerprint line of the kernel this library was built with.
std::string native_fingerprint_line();

/// An xclbin for the native kernel's fingerprint (spec.user_metadata defaults to it when unset by
/// `with_metadata`), written to the scratch folder under `name`; returns its path.
std::string write_test_xclbin(const std::string& name, XclbinSpec spec = {}, bool with_metadata = true);

/// Runs this test binary again with only `test` selected and `environment` ("-u C A=1 B=2":
/// options first, as env(1) takes them); returns the exit code, `output` gets stdout + stderr.
int run_child(const std::string& test, const std::string& environment, std::string* output);

/// True in a process started by run_child.
bool in_child();

}  // namespace fpgacnn::test
