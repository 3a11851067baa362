// fpgacnn-plan from the command line: the table, --json, and errors as exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

std::string plan_app() {
    const std::string path = app_path("plan", "fpgacnn-plan");
    if (!std::filesystem::exists(path)) ADD_FAILURE() << path << " is not built (build target fpgacnn-plan)";
    return path;
}

TEST(PlanApp, JsonDescribesEveryLayerOfYolov2) {
    std::string out, err;
    const int rc = run_command(plan_app() + " --cfg " + darknet_file("cfg/yolov2.cfg") +
                                   " --input 416x416 --clock-mhz 150 --tm 32 --tn 4 --tr 26 --tc 26 --json",
                               &out, &err);
    ASSERT_EQ(rc, 0) << err;
    const nlohmann::json plan = nlohmann::json::parse(out);
    EXPECT_EQ(plan["kernel"]["tm"], 32);
    EXPECT_EQ(plan["layers"].size(), 32u);
    EXPECT_NEAR(plan["gop"].get<double>(), 29.47, 0.01);
    EXPECT_GT(plan["total"]["milliseconds"].get<double>(), 0.0);
    EXPECT_EQ(plan["layers"][25]["type"], "route");
    EXPECT_FALSE(plan["layers"][25]["on_device"].get<bool>());
    EXPECT_EQ(plan["layers"][0]["tile"]["rows"], 26);
}

TEST(PlanApp, TablePrintsTotals) {
    std::string out, err;
    ASSERT_EQ(run_command(plan_app() + " --cfg " + darknet_file("cfg/yolov2-tiny.cfg") + " --tm 16 --tn 8",
                          &out, &err),
              0)
        << err;
    EXPECT_NE(out.find("Tm=16 Tn=8"), std::string::npos) << out;
    EXPECT_NE(out.find("total:"), std::string::npos) << out;
    EXPECT_NE(out.find("max 2x2/1"), std::string::npos) << out;
}

TEST(PlanApp, ErrorsExitNonZeroWithAMessage) {
    std::string out, err;
    EXPECT_EQ(
        run_command(plan_app() + " --cfg " + darknet_file("cfg/yolov2.cfg") + " --max-kernel 1", &out, &err),
        1);
    EXPECT_NE(err.find("layer 0"), std::string::npos) << err;
    EXPECT_EQ(
        run_command(plan_app() + " --cfg " + darknet_file("cfg/yolov2.cfg") + " --input bogus", &out, &err),
        2);  // a malformed flag value: the command line (apps/common/exit_codes.hpp)
    EXPECT_NE(err.find("--input"), std::string::npos) << err;
    EXPECT_EQ(run_command(plan_app() + " --no-such-option", &out, &err), 2);
}

}  // namespace
}  // namespace fpgacnn::test
