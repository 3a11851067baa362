// The exit-code rule of apps/common/exit_codes.hpp, for every tool: 0 success, 1 a file, model,
// device or output that fails, 2 a malformed command line; each failure a message naming the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_files.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
namespace t = fpgacnn::test;

namespace {

struct Case {
    std::string arguments;
    int code;
    std::string message;  // a piece of stderr naming the problem ("" for success)
};

void expect_cases(const std::string& folder, const std::string& binary, const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        std::string out, err;
        const int code = t::run_command(t::app_path(folder, binary) + " " + c.arguments, &out, &err);
        EXPECT_EQ(code, c.code) << binary << " " << c.arguments << "\n" << err;
        if (!c.message.empty()) {
            EXPECT_NE(err.find(c.message), std::string::npos) << binary << " " << c.arguments << "\n" << err;
        }
        EXPECT_EQ(err.find("unexpected failure"), std::string::npos) << err;
        if (c.code == 2) {
            // One line naming the tool and the problem.
            EXPECT_EQ(err.rfind(binary + ": ", 0), 0u) << err;
            EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
        }
    }
}

std::string model(const std::string& cfg = t::files().cfg) {
    return "-q --cfg " + cfg + " --weights " + t::files().weights;
}

}  // namespace

TEST(ExitCodes, Detect) {
    const t::Files& f = t::files();
    expect_cases("detect", "fpgacnn-detect",
                 {{model() + " " + f.image, 0, ""},
                  {"--help", 0, ""},
                  {model(f.broken_cfg) + " " + f.image, 1, "broken.cfg"},
                  {model() + " /no/such.jpg", 1, "/no/such.jpg"},
                  {model() + " --thresh nan " + f.image, 2, "--thresh"},
                  {model() + " --nms inf " + f.image, 2, "--nms"},
                  {model() + " --hier -nan " + f.image, 2, "--hier"},
                  {model() + " --thresh 1.5 " + f.image, 2, "--thresh"},
                  {model() + " --input 0x0 " + f.image, 2, "--input"},
                  {model() + " --input abc " + f.image, 2, "--input"},
                  {model() + " --input 3x3x3 " + f.image, 2, "--input"},
                  {model() + " --input 99999999999999x32 " + f.image, 2, "--input"},
                  {model() + " --dump-region " + f.dir + " " + f.image, 2, "is a folder"},
                  {model() + " --dump-region " + f.image + " " + f.image + " " + f.image, 2, "exactly one"},
                  {model() + " --no-such-flag " + f.image, 2, "no-such-flag"},
                  {"--cfg " + f.cfg + " " + f.image, 2, "--weights"}});
}

TEST(ExitCodes, Bench) {
    const t::Files& f = t::files();
    const std::string base = "-q --cfg " + f.cfg + " --weights " + f.weights + " --images " + f.dir;
    // The folder holds clip.avi only: bench reads images, so give it one.
    fs::copy_file(f.image, f.dir + "/bench.jpg", fs::copy_options::skip_existing);
    expect_cases("bench", "fpgacnn-bench",
                 {{base + " --frames 1 --warmup 0 --device cpu --precision float", 0, ""},
                  {"-q --cfg " + f.broken_cfg + " --frames 1", 1, "broken.cfg"},
                  {base + " --input 16x0", 2, "--input"},
                  {base + " --frames nan", 2, "--frames"},
                  {base + " --frames 99999999999999999999", 2, "--frames"},
                  {base + " --csv /no/such/folder/x.csv", 2, "does not exist"},
                  {base + " --csv /proc/x.csv", 1, "--csv"},
                  {base + " --plot x.jpg", 2, ".png"},
                  {"-q --frames 1", 2, "--cfg is required"}});
#ifdef FPGACNN_TEST_HAVE_SERVE
    // --server: flags checked before any connection; nobody listening on port 1 is a failure (1).
    expect_cases("bench", "fpgacnn-bench",
                 {{"-q --server 127.0.0.1:1", 2, "--model"},
                  {"-q --server 127.0.0.1:1 --model m --cfg " + f.cfg, 2, "--cfg"},
                  {"-q --server 127.0.0.1:1 --model m --clients 0", 2, "--clients"},
                  {"-q --server 127.0.0.1:1 --model m --requests 1", 1, "127.0.0.1:1"}});
#endif
}

TEST(ExitCodes, Quantize) {
    const t::Files& f = t::files();
    const std::string base = "-q --cfg " + f.cfg + " --weights " + f.weights + " --images " + f.image;
    expect_cases("quantize", "fpgacnn-quantize",
                 {{base + " --out " + f.dir + "/tiny.fq16", 0, ""},
                  {"-q --cfg " + f.broken_cfg + " --weights " + f.weights + " --out " + f.dir + "/b.fq16", 1,
                   "broken.cfg"},
                  // The output is checked before the model loads: its error, not the cfg's.
                  {"-q --cfg " + f.broken_cfg + " --weights " + f.weights + " --out /proc/x.fq16", 1,
                   "--out /proc/x.fq16"},
                  {base + " --out " + f.dir + "/n.fq16 --percentile nan", 2, "--percentile"},
                  {base + " --out " + f.dir + "/n.fq16 --accumulator-margin inf", 2, "--accumulator-margin"},
                  {base + " --out " + f.dir + "/n.fq16 --activation-margin 1e3", 2, "--activation-margin"},
                  {base + " --out " + f.dir + "/n.fq16 --input x16", 2, "--input"},
                  {base + " --out /dev/null", 2, "not a regular file"}});
    EXPECT_FALSE(fs::exists(f.dir + "/b.fq16"));
    EXPECT_FALSE(fs::exists(f.dir + "/n.fq16"));
}

TEST(ExitCodes, Plan) {
    const t::Files& f = t::files();
    const std::string base = "--cfg " + f.cfg;
    expect_cases("plan", "fpgacnn-plan",
                 {{base, 0, ""},
                  {"--cfg " + f.broken_cfg, 1, "broken.cfg"},
                  {base + " --clock-mhz nan", 2, "--clock-mhz"},
                  {base + " --bandwidth inf", 2, "--bandwidth"},
                  {base + " --clock-mhz 0", 2, "--clock-mhz"},
                  {base + " --burst-overhead -5", 2, "--burst-overhead"},
                  {base + " --tm 0", 2, "--tm"},
                  {base + " --input 32x", 2, "--input"},
                  {"--cfg /no/such.cfg", 2, "/no/such.cfg"}});
}

// fpgacnn-train's command-line cases (its input errors: tests/train_tool).
TEST(ExitCodes, Train) {
    const t::Files& f = t::files();
    const std::string base = "-q --cfg " + f.cfg + " --weights " + f.weights;
    expect_cases(
        "train", "fpgacnn-train",
        {{base + " --out " + f.dir + "/t.weights", 2, "--data"},
         {"-q --cfg " + f.cfg + " --distill " + f.dir + " --out " + f.dir + "/t.weights", 2, "--weights"},
         {base + " --data /no/such.txt --out " + f.dir + "/t.weights", 2, "/no/such.txt"},
         {base + " --data " + f.cfg + " --out " + f.dir + "/t.weights --max-batches 0", 2, "--max-batches"},
         {base + " --data " + f.cfg + " --thresh 0.3 --out " + f.dir + "/t.weights", 2, "--distill"},
         {base + " --data " + f.cfg + " --out /proc/x.weights", 1, "--out /proc/x.weights"}});
    EXPECT_FALSE(fs::exists(f.dir + "/t.weights"));
}

TEST(ExitCodes, SynthWeights) {
    const t::Files& f = t::files();
    const std::string base = "-q --cfg " + f.cfg + " --seed 1 --out ";
    expect_cases(
        "synth-weights", "fpgacnn-synth-weights",
        {{base + f.dir + "/s.weights", 0, ""},
         {"-q --cfg " + f.broken_cfg + " --seed 1 --out " + f.dir + "/b.weights", 1, "broken.cfg"},
         {base + "/proc/s.weights", 1, "--out"},
         {"-q --cfg " + f.cfg + " --seed -5 --out " + f.dir + "/n.weights", 2, "--seed"},
         {"-q --cfg " + f.cfg + " --seed 18446744073709551616 --out " + f.dir + "/n.weights", 2, "--seed"},
         {"-q --cfg " + f.cfg + " --seed 1e3 --out " + f.dir + "/n.weights", 2, "--seed"},
         {base + f.dir + "/n.weights --input 0x16", 2, "--input"},
         {base + "/dev/null", 2, "not a regular file"},
         {base + "/no/such/folder/n.weights", 2, "does not exist"}});
    EXPECT_TRUE(fs::exists(f.dir + "/s.weights"));
    EXPECT_FALSE(fs::exists(f.dir + "/b.weights"));
    EXPECT_FALSE(fs::exists(f.dir + "/n.weights"));
}

TEST(ExitCodes, Camera) {
    const t::Files& f = t::files();
    const std::string base = model() + " --device cpu --precision float --port 0 --input " + f.video;
    expect_cases("camera", "fpgacnn-camera",
                 {{base + " --once", 0, ""},
                  {model(f.broken_cfg) + " --port 0 --input " + f.video + " --once", 1, "broken.cfg"},
                  {base + " --thresh nan", 2, "--thresh"},
                  {base + " --max-fps inf", 2, "--max-fps"},
                  {base + " --port 70000", 2, "--port"},
                  {model() + " --port 0 --input " + f.video + " --precision float --quantized " + f.cfg, 2,
                   "--quantized needs"}});
}

#ifdef FPGACNN_TEST_HAVE_SERVE
TEST(ExitCodes, Serve) {
    const t::Files& f = t::files();
    // A repository whose only folder has no model.json: nothing to serve is a failure, not a server
    // that answers 404 to everything.
    const std::string empty_repository = f.dir + "/serve-repository";
    fs::create_directories(empty_repository + "/no-model");
    const std::string empty_token = f.dir + "/empty-token";
    std::ofstream(empty_token).close();
    const std::string base = "-q --grpc-port 0 --http-port 0 --model-repository ";
    expect_cases("serve", "fpgacnn-serve",
                 {{"--help", 0, ""},
                  {"-q", 2, "--model-repository"},
                  {base + "/no/such/folder", 2, "/no/such/folder"},
                  {base + empty_repository + " --http-port 70000", 2, "--http-port"},
                  {base + empty_repository + " --fallback gpu", 2, "--fallback"},
                  {base + empty_repository + " --tls-cert " + f.cfg, 2, "--tls-key"},
                  {base + empty_repository + " --auth-token-file " + empty_token, 1, "empty"},
                  {base + empty_repository, 1, "no model to serve"}});
}
#endif
