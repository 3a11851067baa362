// fpgacnn-serve's model repository: every folder's model.json checked key by key, paths resolved
// against the folder, and a malformed folder reported and skipped while the others serve.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "error_message.hpp"
#include "fpgacnn/error.hpp"
#include "model_repository.hpp"
#include "test_paths.hpp"

namespace fpgacnn::serve {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

void write_file(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

/// A repository folder with one model folder per test, holding stand-in model files (the repository
/// checks only that they are files; loading them is the Detector's job).
class ModelRepository : public ::testing::Test {
protected:
    void SetUp() override {
        root = fs::path(test::scratch_dir(std::string("serve_repository_") +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(root);
        fs::create_directories(root);
    }
    /// A model folder with files net.cfg, net.weights, net.names and net.fq16, and model.json.
    fs::path model(const std::string& name, const std::string& json) const {
        const fs::path folder = root / name;
        for (const char* file : {"net.cfg", "net.weights", "net.names", "net.fq16"})
            write_file(folder / file, "x");
        write_file(folder / "model.json", json);
        return folder;
    }
    std::string problem_of(const std::string& json) const {
        const fs::path folder = model("m", json);
        try {
            parse_model_config(folder.string(), json);
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    }
    fs::path root;
};

TEST_F(ModelRepository, RelativePathsAreTheFoldersAndDefaultsAreDetectsOnes) {
    const fs::path folder =
        model("yolo-lite", R"({"cfg": "net.cfg", "weights": "net.weights", "names": "net.names"})");
    const ModelConfig c = parse_model_config(folder.string(), R"({"cfg": "net.cfg", "weights": "net.weights",
                                                                  "names": "net.names"})");
    EXPECT_EQ(c.name, "yolo-lite");
    EXPECT_EQ(c.cfg, (folder / "net.cfg").string());
    EXPECT_EQ(c.weights, (folder / "net.weights").string());
    EXPECT_EQ(c.names, (folder / "net.names").string());
    EXPECT_EQ(c.quantized, "");
    EXPECT_EQ(c.devices, std::vector<std::string>{"auto"});
    EXPECT_EQ(c.precision, Precision::Auto);
    EXPECT_EQ(c.instances, 1);
    EXPECT_FLOAT_EQ(c.thresh, 0.5f);
    EXPECT_FLOAT_EQ(c.nms, 0.45f);
}

TEST_F(ModelRepository, EveryKeyIsRead) {
    const std::string json = R"({"cfg": "net.cfg", "quantized": "net.fq16", "names": "net.names",
        "device": "emu", "precision": "int16", "instances": 3, "thresh": 0.25, "nms": 0.3})";
    const ModelConfig c = parse_model_config(model("m", json).string(), json);
    EXPECT_EQ(c.weights, "") << "the float weights are optional with a quantized model";
    EXPECT_EQ(c.quantized, (root / "m" / "net.fq16").string());
    EXPECT_EQ(c.devices, std::vector<std::string>{"emu"});
    EXPECT_EQ(c.precision, Precision::Int16);
    EXPECT_EQ(c.instances, 3);
    EXPECT_FLOAT_EQ(c.thresh, 0.25f);
    EXPECT_FLOAT_EQ(c.nms, 0.3f);
}

TEST_F(ModelRepository, MalformedConfigsNameTheFileAndTheProblem) {
    const std::string files = R"("cfg": "net.cfg", "weights": "net.weights", "names": "net.names")";
    const std::string where = (root / "m" / "model.json").string();
    EXPECT_THAT(problem_of("{ not json"), AllOf(HasSubstr(where), HasSubstr("not valid JSON")));
    EXPECT_THAT(problem_of("[1, 2]"), HasSubstr("one JSON object"));
    EXPECT_THAT(problem_of("{" + files + R"(, "treshold": 0.3})"), HasSubstr("unknown key \"treshold\""));
    EXPECT_THAT(problem_of(R"({"weights": "net.weights", "names": "net.names"})"), HasSubstr("no \"cfg\""));
    EXPECT_THAT(problem_of(R"({"cfg": "net.cfg", "names": "net.names"})"), HasSubstr("no \"weights\""));
    EXPECT_THAT(problem_of(R"({"cfg": "missing.cfg", "weights": "net.weights", "names": "net.names"})"),
                AllOf(HasSubstr("\"cfg\""), HasSubstr("missing.cfg is not a readable file")));
    EXPECT_THAT(problem_of(R"({"cfg": 3, "weights": "net.weights", "names": "net.names"})"),
                HasSubstr("must be a non-empty string"));
    EXPECT_THAT(problem_of("{" + files + R"(, "thresh": 1.5})"),
                HasSubstr("\"thresh\" must be a number in [0, 1]"));
    EXPECT_THAT(problem_of("{" + files + R"(, "nms": "high"})"), HasSubstr("\"nms\" must be a number"));
    EXPECT_THAT(problem_of("{" + files + R"(, "instances": 0})"),
                HasSubstr("\"instances\" must be a whole number"));
    EXPECT_THAT(problem_of("{" + files + R"(, "instances": 1000})"), HasSubstr("[1, 64]"));
    EXPECT_THAT(problem_of("{" + files + R"(, "precision": "int4"})"), HasSubstr("\"precision\""));
    EXPECT_THAT(problem_of("{" + files + R"(, "device": []})"),
                HasSubstr("\"device\" must be a non-empty string or a list"));
    EXPECT_THAT(problem_of("{" + files + R"(, "device": ["cpu", 3]})"), HasSubstr("\"device\" must be"));
}

TEST_F(ModelRepository, AMalformedFolderIsSkippedAndTheOthersServe) {
    const std::string good = R"({"cfg": "net.cfg", "weights": "net.weights", "names": "net.names"})";
    model("b-model", good);
    model("a-model", good);
    model("broken", R"({"cfg": "net.cfg"})");
    fs::create_directories(root / "empty");
    write_file(root / "README.txt", "not a model");  // files beside the folders are not models
    const RepositoryScan scan = scan_model_repository(root.string());
    ASSERT_EQ(scan.models.size(), 2u);
    EXPECT_EQ(scan.models[0].name, "a-model");
    EXPECT_EQ(scan.models[1].name, "b-model");
    ASSERT_EQ(scan.problems.size(), 2u);
    EXPECT_THAT(scan.problems[0],
                AllOf(HasSubstr("broken"), HasSubstr("no \"weights\""), HasSubstr("skipped")));
    EXPECT_THAT(scan.problems[1], AllOf(HasSubstr("empty"), HasSubstr("no model.json")));
}

TEST_F(ModelRepository, ANameThatCannotBeARouteSegmentIsRefused) {
    const std::string json = R"({"cfg": "net.cfg", "weights": "net.weights", "names": "net.names"})";
    const fs::path folder = model("my model", json);
    EXPECT_THAT(test::error_message([&] { parse_model_config(folder.string(), json); }),
                HasSubstr("cannot be a model name in a URL"));
}

TEST_F(ModelRepository, TheRepositoryMustBeAFolder) {
    EXPECT_THAT(test::error_message([&] { scan_model_repository((root / "nowhere").string()); }),
                HasSubstr("is not a folder"));
    write_file(root / "huge" / "model.json", std::string(2 << 20, ' '));
    const RepositoryScan scan = scan_model_repository(root.string());
    ASSERT_EQ(scan.problems.size(), 1u);
    EXPECT_THAT(scan.problems[0], HasSubstr("too large for a model.json"));
}

}  // namespace
}  // namespace fpgacnn::serve
