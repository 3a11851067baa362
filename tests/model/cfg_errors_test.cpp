// The broken-cfg corpus: every malformed cfg must fail with "<file>:<line>: [section] layer <i>:
// <what>; <what to do>". The cfgs are small variations of small_cfg_text(), written by the tests.
#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the cfg";
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

class CfgErrors : public ::testing::Test {
protected:
    std::string dir = test::scratch_dir(std::string("cfg_errors_") +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());

    std::string write(const std::string& text) { return test::write_text_file(dir, "broken.cfg", text); }
    std::string load_error(const std::string& text) {
        const std::string path = write(text);
        return test::error_message([&] { load_darknet_cfg(path); });
    }
    std::string variant_error(const std::string& from, const std::string& to) {
        return load_error(replaced(test::small_cfg_text(), from, to));
    }
};

TEST_F(CfgErrors, SmallCfgIsValid) {
    const Network net = load_darknet_cfg(write(test::small_cfg_text()));
    ASSERT_EQ(net.layers.size(), 4u);
    EXPECT_EQ(net.layers[0].cfg_line, 6);
    EXPECT_EQ(net.layers[2].cfg_line, 19);
    EXPECT_EQ(net.layers[1].output, (TensorShape{8, 16, 16}));
    EXPECT_EQ(net.layers[3].output, (TensorShape{30, 16, 16}));
}

TEST_F(CfgErrors, UnknownSections) {
    for (const char* section : {"local", "gru", "rnn", "detection"}) {
        const std::string message = variant_error("[maxpool]", std::string("[") + section + "]");
        EXPECT_THAT(message,
                    AllOf(HasSubstr("broken.cfg:15: [" + std::string(section) + "] layer 1: "),
                          HasSubstr("unsupported section"), HasSubstr("[convolutional], [maxpool]")));
    }
}

TEST_F(CfgErrors, YoloV3SectionOptions) {
    const std::string pool = "[maxpool]\nsize=2\nstride=2";
    EXPECT_THAT(variant_error(pool, "[upsample]\nstride=-2"),
                AllOf(HasSubstr("broken.cfg:16: [upsample] layer 1: stride=-2"), HasSubstr("downsampling")));
    EXPECT_THAT(variant_error(pool, "[upsample]\nscale=0.5"),
                HasSubstr("option 'scale' other than 1 is not implemented"));
    EXPECT_THAT(variant_error(pool, "[shortcut]\nfrom=1"),
                HasSubstr("from=1 refers to layer 1, which is not an earlier layer"));
    EXPECT_THAT(variant_error(pool, "[shortcut]\nactivation=linear"), HasSubstr("option 'from' is missing"));
    EXPECT_THAT(variant_error(pool, "[yolo]\nmask=0,3\nanchors=1,2,3,4\nnum=2"),
                HasSubstr("mask entry 3 is not one of the num=2 anchors"));
    EXPECT_THAT(variant_error(pool, "[yolo]\nmask=0\nanchors=1,2\nnum=1\nclasses=4"),
                AllOf(HasSubstr("yolo needs mask entries*(classes+5) = 1*(4+5) = 9 input channels"),
                      HasSubstr("set filters=9")));
    EXPECT_THAT(variant_error(pool, "[route]\nlayers=-1\ngroups=3"),
                HasSubstr("whose channels do not split into groups=3"));
    EXPECT_THAT(variant_error(pool, "[route]\nlayers=-1\ngroups=2\ngroup_id=2"),
                HasSubstr("option 'group_id' = 2 is out of range [0, 1]"));
}

TEST_F(CfgErrors, UnknownOption) {
    const std::string message = variant_error("filters=8", "filtres=8");
    EXPECT_THAT(message, AllOf(HasSubstr("broken.cfg:8: [convolutional] layer 0: unknown option 'filtres'"),
                               HasSubstr("check its spelling"), HasSubstr("filters")));
}

TEST_F(CfgErrors, UnknownNetOption) {
    const std::string message = variant_error("channels=3", "channels=3\nwidht=32");
    EXPECT_THAT(message, HasSubstr("broken.cfg:5: [net]: unknown option 'widht'"));
}

TEST_F(CfgErrors, ZeroFilters) {
    const std::string message = variant_error("filters=8", "filters=0");
    EXPECT_THAT(message, AllOf(HasSubstr("broken.cfg:8: [convolutional] layer 0: option 'filters' = 0"),
                               HasSubstr("out of range"), HasSubstr("; ")));
}

TEST_F(CfgErrors, NegativeSizeAndZeroStride) {
    EXPECT_THAT(variant_error("size=3", "size=-3"),
                HasSubstr("broken.cfg:9: [convolutional] layer 0: option 'size'"));
    EXPECT_THAT(variant_error("stride=2", "stride=0"),
                HasSubstr("broken.cfg:17: [maxpool] layer 1: option 'stride'"));
}

TEST_F(CfgErrors, NonNumericValue) {
    const std::string message = variant_error("size=3", "size=three");
    EXPECT_THAT(message, AllOf(HasSubstr("broken.cfg:9: [convolutional] layer 0:"),
                               HasSubstr("'size' = 'three' is not an integer")));
    EXPECT_THAT(variant_error("size=3", "size=3.5"), HasSubstr("is not an integer"));
    EXPECT_THAT(variant_error("3,3, 4,4", "3,3, 4,x"), HasSubstr("'x' is not a number"));
}

TEST_F(CfgErrors, UnsupportedActivation) {
    EXPECT_THAT(
        variant_error("activation=leaky", "activation=swish"),
        AllOf(HasSubstr("broken.cfg:12: [convolutional] layer 0: activation 'swish' is not supported"),
              HasSubstr("leaky, linear, relu, logistic and mish")));
    // darknet's default activation is logistic.
    const Network net = load_darknet_cfg(write(replaced(test::small_cfg_text(), "activation=leaky\n", "")));
    EXPECT_EQ(net.layers[0].conv().activation, Activation::Logistic);
}

TEST_F(CfgErrors, UnsupportedConvFeature) {
    EXPECT_THAT(
        variant_error("filters=8", "filters=8\ngroups=2"),
        AllOf(HasSubstr("broken.cfg:9: [convolutional] layer 0: option 'groups' = 2 is not supported"),
              HasSubstr("set groups=1")));
}

TEST_F(CfgErrors, RouteToMissingLayer) {
    const std::string message = variant_error("[maxpool]\nsize=2\nstride=2\n", "[route]\nlayers=-5\n");
    EXPECT_THAT(message, AllOf(HasSubstr("broken.cfg:16: [route] layer 1: route input -5"),
                               HasSubstr("before the first layer")));
}

TEST_F(CfgErrors, RouteToLaterLayer) {
    const std::string message = variant_error("[maxpool]\nsize=2\nstride=2\n", "[route]\nlayers=2\n");
    EXPECT_THAT(message, AllOf(HasSubstr("broken.cfg:16: [route] layer 1: route input 2 refers to layer 2"),
                               HasSubstr("a later layer"), HasSubstr("earlier layers")));
    EXPECT_THAT(variant_error("[maxpool]\nsize=2\nstride=2\n", "[route]\nlayers=1\n"),
                HasSubstr("the route itself"));
}

TEST_F(CfgErrors, RouteInputsOfDifferentSizes) {
    const std::string message =
        variant_error("[convolutional]\nfilters=30", "[route]\nlayers=-1,-2\n\n[convolutional]\nfilters=30");
    EXPECT_THAT(message, AllOf(HasSubstr("broken.cfg:20: [route] layer 2: route inputs differ in size"),
                               HasSubstr("16x16x8"), HasSubstr("32x32x8")));
}

TEST_F(CfgErrors, RouteWithoutLayers) {
    EXPECT_THAT(variant_error("[maxpool]\nsize=2\nstride=2\n", "[route]\n"),
                HasSubstr("broken.cfg:15: [route] layer 1: option 'layers' is missing"));
}

TEST_F(CfgErrors, ReorgOnOddSizes) {
    const std::string message = variant_error("width=32\nheight=32", "width=30\nheight=30");
    EXPECT_THAT(message, HasSubstr("<no error>"));  // 30 -> 15 after the maxpool: fine so far
    const std::string odd = load_error(
        replaced(replaced(test::small_cfg_text(), "width=32\nheight=32", "width=30\nheight=30"),
                 "[convolutional]\nfilters=30", "[reorg]\nstride=2\n\n[convolutional]\nfilters=30"));
    EXPECT_THAT(odd, AllOf(HasSubstr("broken.cfg:19: [reorg] layer 2: reorg on odd sizes"),
                           HasSubstr("15x15x8"), HasSubstr("multiple of 32")));
}

TEST_F(CfgErrors, RegionWithWrongChannelCount) {
    const std::string message = variant_error("filters=30", "filters=31");
    EXPECT_THAT(message, AllOf(HasSubstr("broken.cfg:24: [region] layer 3: region needs"), HasSubstr("= 30"),
                               HasSubstr("16x16x31"), HasSubstr("filters=30")));
}

TEST_F(CfgErrors, RegionAnchorCountMustMatchNum) {
    EXPECT_THAT(variant_error("num=5", "num=4"),
                AllOf(HasSubstr("broken.cfg:25: [region] layer 3: 'anchors' has 10"), HasSubstr("needs 8")));
}

TEST_F(CfgErrors, EmptyFile) {
    EXPECT_THAT(load_error(""), AllOf(HasSubstr("broken.cfg: the cfg has no sections"), HasSubstr("[net]")));
    EXPECT_THAT(load_error("# only a comment\n\n"), HasSubstr("no sections"));
}

TEST_F(CfgErrors, MissingFileNamesThePath) {
    const std::string path = dir + "/does-not-exist.cfg";
    EXPECT_THAT(test::error_message([&] { load_darknet_cfg(path); }),
                AllOf(HasSubstr(path), HasSubstr("the cfg file does not exist")));
}

TEST_F(CfgErrors, FirstSectionMustBeNet) {
    EXPECT_THAT(variant_error("[net]", "[convolutional]"),
                HasSubstr("broken.cfg:1: [convolutional]: the first section must be [net]"));
    EXPECT_THAT(variant_error("[maxpool]", "[net]"),
                HasSubstr("broken.cfg:15: [net] layer 1: a second [net]"));
}

TEST_F(CfgErrors, MalformedLines) {
    EXPECT_THAT(variant_error("stride=1", "stride 1"),
                HasSubstr("broken.cfg:10: 'stride 1' is not an option"));
    EXPECT_THAT(variant_error("stride=1", "stride="),
                HasSubstr("broken.cfg:10: option 'stride' has no value"));
    EXPECT_THAT(variant_error("[maxpool]", "[maxpool"),
                HasSubstr("broken.cfg:15: section header '[maxpool'"));
    EXPECT_THAT(load_error("batch=1\n[net]\n"),
                HasSubstr("broken.cfg:1: option 'batch' comes before any section"));
    EXPECT_THAT(
        variant_error("stride=1", "stride=1\nstride=2"),
        HasSubstr("broken.cfg:11: [convolutional] option 'stride' is given twice (first on line 10)"));
}

TEST_F(CfgErrors, MissingInputSize) {
    EXPECT_THAT(variant_error("width=32\n", ""),
                HasSubstr("broken.cfg:1: [net]: the network input size is missing"));
}

TEST_F(CfgErrors, ConvOutputWouldBeEmpty) {
    EXPECT_THAT(variant_error("size=1", "size=20\nstride=1"),
                AllOf(HasSubstr("broken.cfg:19: [convolutional] layer 2: the output would be empty"),
                      HasSubstr("16x16x8")));
}

TEST_F(CfgErrors, LenientSyntaxThatRealCfgsUse) {
    std::string text = test::small_cfg_text();
    text = replaced(text, "[net]\n",
                    "[network]\n; semicolon comment\nbatch = 64\nsubdivisions=16\nmomentum=0.9\n"
                    "angle=0\nsaturation = 1.5\nhue=.1\nsteps=-1,100\npolicy=steps\nflip=0\n");
    text = replaced(text, "[convolutional]\nbatch", "  [conv]  \r\nbatch");
    text = replaced(text, "[maxpool]", "[max]");
    text = replaced(text, "size=3\n", "  size =  3  \r\n");
    text =
        replaced(text, "softmax=1", "softmax=1\nbias_match=1\njitter=.2\nrescore=0\nthresh = .6\nrandom=1");
    const Network net = load_darknet_cfg(write(text));
    ASSERT_EQ(net.layers.size(), 4u);
    EXPECT_EQ(net.layers[0].type, LayerType::Convolutional);
    EXPECT_EQ(net.layers[0].conv().size, 3);
    EXPECT_EQ(net.layers[0].conv().pad, 1);
    EXPECT_EQ(net.layers[1].type, LayerType::MaxPool);
    EXPECT_EQ(net.layers[3].region().anchors.size(), 10u);
}

TEST_F(CfgErrors, PaddingRules) {
    // pad=1 means size/2 and wins over `padding`; without pad, `padding` is used as given.
    const Network same =
        load_darknet_cfg(write(replaced(test::small_cfg_text(), "pad=1", "pad=1\npadding=0")));
    EXPECT_EQ(same.layers[0].conv().pad, 1);
    const Network explicit_padding =
        load_darknet_cfg(write(replaced(test::small_cfg_text(), "pad=1", "pad=0\npadding=2")));
    EXPECT_EQ(explicit_padding.layers[0].conv().pad, 2);
    EXPECT_EQ(explicit_padding.layers[0].output, (TensorShape{8, 34, 34}));
    // Maxpool's default padding (size - 1) rounds odd sizes up: 17 -> 9.
    const Network odd = load_darknet_cfg(
        write(replaced(test::small_cfg_text(), "width=32\nheight=32", "width=17\nheight=17")));
    EXPECT_EQ(odd.layers[1].output, (TensorShape{8, 9, 9}));
}

}  // namespace
}  // namespace fpgacnn
