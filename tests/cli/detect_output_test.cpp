// fpgacnn-detect's output on odd inputs: file and class names that are not UTF-8 (legal on Linux)
// and damaged images.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_files.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
namespace t = fpgacnn::test;

namespace {

const std::string kReplacement = "\xef\xbf\xbd";  // U+FFFD in UTF-8

std::string detect(const std::string& arguments) {
    return t::app_path("detect", "fpgacnn-detect") + " --cfg " + t::files().cfg + " --weights " +
           t::files().weights + " " + arguments;
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
    std::vector<nlohmann::json> objects;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) objects.push_back(nlohmann::json::parse(line));
    return objects;
}

void write_truncated_copy(const std::string& from, const std::string& to, std::size_t bytes) {
    std::ifstream in(from, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(to, std::ios::binary) << data.substr(0, bytes);
}

}  // namespace

TEST(DetectOutput, InvalidUtf8InFileAndClassNamesIsReplacedNotFatal) {
    const std::string dir = t::scratch_dir("detect_utf8");
    const std::string odd = dir + "/odd\xff\xfe.jpg";  // not UTF-8
    fs::copy_file(t::darknet_file("data/dog.jpg"), odd);
    fs::copy_file(t::darknet_file("data/person.jpg"), dir + "/plain.jpg");
    const std::string names = dir + "/names.txt";
    std::ofstream(names) << "cat\xc3\x28\n";  // a truncated two-byte sequence
    std::string out, err;
    // --thresh 0: every candidate box is reported, so the class name is printed.
    ASSERT_EQ(t::run_command(detect("-q --json --thresh 0 --names " + names + " " + dir), &out, &err), 0)
        << err;
    const std::vector<nlohmann::json> objects = json_lines(out);
    ASSERT_EQ(objects.size(), 2u);
    EXPECT_EQ(objects[0]["image"], dir + "/odd" + kReplacement + kReplacement + ".jpg");
    EXPECT_EQ(objects[1]["image"], dir + "/plain.jpg");
    ASSERT_FALSE(objects[0]["detections"].empty());
    EXPECT_EQ(objects[0]["detections"][0]["class"], "cat" + kReplacement + "(");
}

TEST(DetectOutput, DamagedImagesAreWarnedFlaggedOrRefused) {
    const std::string dir = t::scratch_dir("detect_damaged");
    const std::string damaged = dir + "/truncated.jpg";
    write_truncated_copy(t::darknet_file("data/person.jpg"), damaged, 20000);
    const std::string healthy = t::darknet_file("data/dog.jpg");
    std::string out, err;
    ASSERT_EQ(t::run_command(detect("--json " + healthy + " " + damaged), &out, &err), 0) << err;
    const std::vector<nlohmann::json> objects = json_lines(out);
    ASSERT_EQ(objects.size(), 2u);
    EXPECT_EQ(objects[0]["damaged"], false);
    EXPECT_EQ(objects[1]["damaged"], true);
    EXPECT_NE(err.find(damaged + ": damaged JPEG"), std::string::npos) << err;

    // --strict-images: refused, named, counted as a failed input; the healthy image still runs.
    ASSERT_EQ(t::run_command(detect("-q --json --strict-images " + healthy + " " + damaged), &out, &err), 1);
    EXPECT_EQ(json_lines(out).size(), 1u);
    EXPECT_NE(err.find(damaged + ": damaged image"), std::string::npos) << err;
    EXPECT_NE(err.find("--strict-images"), std::string::npos) << err;
}

TEST(DetectOutput, UnwritableOutputIsReportedBeforeTheModelLoads) {
    std::string out, err;
    // A cfg that does not parse: had the model loaded first, its error would be the one reported.
    const std::string command = t::app_path("detect", "fpgacnn-detect") + " --cfg " + t::files().broken_cfg +
                                " --weights " + t::files().weights + " --output /proc/fpgacnn-out " +
                                t::darknet_file("data/dog.jpg");
    EXPECT_EQ(t::run_command(command, &out, &err), 1);
    EXPECT_NE(err.find("--output /proc/fpgacnn-out: cannot write"), std::string::npos) << err;
    EXPECT_EQ(err.find("broken.cfg"), std::string::npos) << err;
}
