// Where the tests find their data: darknet's sample images and cfgs (Debian package 'darknet'),
// the project's shared/ folder with trained models, and a scratch directory.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace fpgacnn::test {

/// The shared/ folder (env FPGACNN_SHARED_DIR overrides the configured default); empty if absent.
std::string shared_dir();
/// shared/models/<name>/<file>, or empty when shared/ is absent.
std::string shared_model_file(const std::string& model, const std::string& file);
/// /usr/share/darknet/<relative>, e.g. darknet_file("cfg/yolov2.cfg").
std::string darknet_file(const std::string& relative);
/// The source tree, e.g. for tests/data files.
std::string source_dir();
/// A built app, e.g. app_path("detect", "fpgacnn-detect").
std::string app_path(const std::string& folder, const std::string& binary);
/// Runs a shell command, capturing stdout (and stderr into `err` if given); returns the exit code.
int run_command(const std::string& command, std::string* out, std::string* err = nullptr);
/// A fresh, empty directory for this test process's outputs (removed when the process exits).
std::string scratch_dir(const std::string& name);

}  // namespace fpgacnn::test

/// Skips the current test with a visible reason when the trained models of shared/ are absent.
#define FPGACNN_REQUIRE_SHARED_MODELS()                                                     \
    do {                                                                                    \
        if (::fpgacnn::test::shared_dir().empty())                                          \
            GTEST_SKIP() << "shared/models not found (set FPGACNN_SHARED_DIR); skipping a " \
                            "test that needs trained weights";                              \
    } while (0)
