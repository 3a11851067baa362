// [net] and [region] training options as darknet's parser reads them, and the learning-rate policies.
#include <gtest/gtest.h>

#include <string>

#include "fpgacnn/error.hpp"
#include "model/cfg_parser.hpp"
#include "test_paths.hpp"
#include "train/training_options.hpp"

namespace fpgacnn::train {
namespace {

TrainingOptions options_of(const std::string& net, const std::string& rest = "[maxpool]\n") {
    return read_training_options(model::parse_cfg_text("[net]\n" + net + "\n" + rest, "options.cfg"));
}

TEST(TrainingOptions, DarknetDefaults) {
    const SolverOptions solver = options_of("width=8").solver;
    EXPECT_EQ(solver.batch, 1);
    EXPECT_EQ(solver.subdivisions, 1);
    EXPECT_FLOAT_EQ(solver.learning_rate, 0.001f);
    EXPECT_FLOAT_EQ(solver.momentum, 0.9f);
    EXPECT_FLOAT_EQ(solver.decay, 0.0001f);
    EXPECT_EQ(solver.policy, RatePolicy::Constant);
    EXPECT_FLOAT_EQ(solver.power, 4.0f);
}

TEST(TrainingOptions, BatchIsDividedBySubdivisions) {
    const SolverOptions solver = options_of("batch=64\nsubdivisions=16").solver;
    EXPECT_EQ(solver.batch, 4);
    EXPECT_EQ(solver.images_per_update(), 64);
}

TEST(TrainingOptions, RegionLossOptions) {
    const TrainingOptions options =
        options_of("batch=1",
                   "[convolutional]\nfilters=12\nsize=1\n[region]\nanchors=1,1,2,2\nnum=2\nclasses=1\n"
                   "object_scale=5\nnoobject_scale=0.5\nclass_scale=2\ncoord_scale=3\nthresh=.6\nrescore=1\n"
                   "bias_match=1\n");
    ASSERT_EQ(options.regions.count(1), 1U);
    const RegionLossOptions& region = options.regions.at(1);
    EXPECT_FLOAT_EQ(region.object_scale, 5);
    EXPECT_FLOAT_EQ(region.noobject_scale, 0.5f);
    EXPECT_FLOAT_EQ(region.class_scale, 2);
    EXPECT_FLOAT_EQ(region.coord_scale, 3);
    EXPECT_FLOAT_EQ(region.thresh, 0.6f);
    EXPECT_TRUE(region.rescore);
    EXPECT_TRUE(region.bias_match);
}

TEST(TrainingOptions, YoloLossOptions) {
    const std::string head =
        "[convolutional]\nfilters=7\nsize=1\n[yolo]\nmask=0\nanchors=1,1\nnum=1\nclasses=2\n";
    const YoloLossOptions defaults = options_of("batch=1", head).yolos.at(1);
    EXPECT_FLOAT_EQ(defaults.ignore_thresh, 0.5f);
    EXPECT_FLOAT_EQ(defaults.truth_thresh, 1);
    EXPECT_EQ(defaults.max_boxes, 90);
    const YoloLossOptions set =
        options_of("batch=1", head + "ignore_thresh=.7\ntruth_thresh=.9\nmax=5\niou_loss=mse\n").yolos.at(1);
    EXPECT_FLOAT_EQ(set.ignore_thresh, 0.7f);
    EXPECT_FLOAT_EQ(set.truth_thresh, 0.9f);
    EXPECT_EQ(set.max_boxes, 5);
    EXPECT_THROW(options_of("batch=1", head + "map=data/coco9k.map\n"), Error);
}

// yolov4-tiny's [yolo] sections: AlexeyAB's loss with its options read; pjreddie's heads are not his.
TEST(TrainingOptions, AlexeyABYoloLossOptions) {
    const TrainingOptions v4 =
        read_training_options(model::read_cfg_file(fpgacnn::test::source_dir() + "/cfg/yolov4-tiny.cfg"));
    ASSERT_EQ(v4.yolos.size(), 2U);
    for (const auto& [layer, yolo] : v4.yolos) {
        EXPECT_TRUE(yolo.alexeyab) << layer;
        EXPECT_EQ(yolo.iou_loss, IouLoss::Ciou);
        EXPECT_FLOAT_EQ(yolo.iou_normalizer, 0.07f);
        EXPECT_FLOAT_EQ(yolo.cls_normalizer, 1);
        EXPECT_FLOAT_EQ(yolo.obj_normalizer, 1);
        EXPECT_FLOAT_EQ(yolo.ignore_thresh, 0.7f);
        EXPECT_FLOAT_EQ(yolo.truth_thresh, 1);
    }
    const std::string head =
        "[convolutional]\nfilters=7\nsize=1\n[yolo]\nmask=0\nanchors=1,1\nnum=1\nclasses=2\n";
    EXPECT_FALSE(options_of("batch=1", head).yolos.at(1).alexeyab);
    // Any of his keys switches to his loss, with his defaults (iou_normalizer 0.75, mse).
    const YoloLossOptions scaled = options_of("batch=1", head + "scale_x_y=1.1\n").yolos.at(1);
    EXPECT_TRUE(scaled.alexeyab);
    EXPECT_EQ(scaled.iou_loss, IouLoss::Mse);
    EXPECT_FLOAT_EQ(scaled.iou_normalizer, 0.75f);
    const YoloLossOptions clipped =
        options_of("batch=1", head + "iou_loss=giou\nmax_delta=5\nobj_normalizer=.4\n").yolos.at(1);
    EXPECT_EQ(clipped.iou_loss, IouLoss::Giou);
    EXPECT_FLOAT_EQ(clipped.max_delta, 5);
    EXPECT_FLOAT_EQ(clipped.obj_normalizer, 0.4f);
    const auto error_of = [&](const std::string& option) -> std::string {
        try {
            options_of("batch=1", head + option + "\n");
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    };
    for (const char* option :
         {"focal_loss=1", "label_smooth_eps=0.1", "objectness_smooth=1", "iou_thresh=0.213",
          "uc_normalizer=0.5", "delta_normalizer=2", "counters_per_class=1,2", "map=data/coco9k.map"}) {
        const std::string key = std::string(option).substr(0, std::string(option).find('='));
        EXPECT_NE(error_of(option).find(key + " is"), std::string::npos)
            << option << ": " << error_of(option);
    }
    EXPECT_NE(error_of("iou_loss=iou").find("iou_loss=iou is not implemented"), std::string::npos);
    EXPECT_NE(error_of("iou_loss=ciuo").find("unknown iou_loss 'ciuo'"), std::string::npos);
    EXPECT_EQ(error_of("iou_thresh=1"), "");  // the neutral value
}

TEST(TrainingOptions, PerLayerOptions) {
    const TrainingOptions options =
        options_of("batch=1", "[maxpool]\n[convolutional]\nfilters=2\nlearning_rate=0.1\nstopbackward=1\n");
    ASSERT_EQ(options.layers.size(), 2U);
    EXPECT_FLOAT_EQ(options.layers[0].learning_rate_scale, 1);
    EXPECT_FALSE(options.layers[0].stop_backward);
    EXPECT_FLOAT_EQ(options.layers[1].learning_rate_scale, 0.1f);
    EXPECT_TRUE(options.layers[1].stop_backward);
    EXPECT_THROW(options_of("batch=1", "[maxpool]\nonlyforward=1\n"), Error);
}

// parse_net_options: B1, B2 and eps only with adam=1, darknet's defaults otherwise.
TEST(TrainingOptions, Adam) {
    const SolverOptions sgd = options_of("B1=.5").solver;
    EXPECT_FALSE(sgd.adam);
    EXPECT_FLOAT_EQ(sgd.b1, 0.9f);
    const SolverOptions defaults = options_of("adam=1").solver;
    EXPECT_TRUE(defaults.adam);
    EXPECT_FLOAT_EQ(defaults.b1, 0.9f);
    EXPECT_FLOAT_EQ(defaults.b2, 0.999f);
    EXPECT_FLOAT_EQ(defaults.eps, 0.0000001f);
    const SolverOptions set = options_of("adam=1\nB1=.8\nB2=.99\neps=.001").solver;
    EXPECT_FLOAT_EQ(set.b1, 0.8f);
    EXPECT_FLOAT_EQ(set.b2, 0.99f);
    EXPECT_FLOAT_EQ(set.eps, 0.001f);
    try {
        options_of("adam=1\nB2=1");
        FAIL() << "B2=1 divides by zero in the bias correction";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("B2"), std::string::npos) << e.what();
    }
}

TEST(TrainingOptions, UnknownPolicyNamesTheLine) {
    try {
        options_of("batch=1\npolicy=cosine");
        FAIL() << "an unknown policy was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("options.cfg:3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("cosine"), std::string::npos) << e.what();
    }
}

TEST(TrainingOptions, StepsNeedAsManyScales) {
    EXPECT_THROW(options_of("policy=steps\nsteps=10,20\nscales=.1"), Error);
    EXPECT_THROW(options_of("policy=poly"), Error);
    EXPECT_THROW(options_of("batch=2\nsubdivisions=4"), Error);
}

TEST(LearningRate, StepsWithBurnIn) {
    const SolverOptions solver =
        options_of("learning_rate=0.1\nburn_in=10\npower=2\npolicy=steps\nsteps=20,30\nscales=.5,.1").solver;
    EXPECT_FLOAT_EQ(current_learning_rate(solver, 0), 0.0f);
    EXPECT_FLOAT_EQ(current_learning_rate(solver, 5), 0.1f * 0.25f);
    EXPECT_FLOAT_EQ(current_learning_rate(solver, 10), 0.1f);
    EXPECT_FLOAT_EQ(current_learning_rate(solver, 20), 0.05f);
    EXPECT_FLOAT_EQ(current_learning_rate(solver, 35), 0.005f);
}

TEST(LearningRate, PolyStepExpRandom) {
    EXPECT_FLOAT_EQ(
        current_learning_rate(options_of("learning_rate=1\npolicy=poly\npower=2\nmax_batches=10").solver, 5),
        0.25f);
    EXPECT_FLOAT_EQ(
        current_learning_rate(options_of("learning_rate=1\npolicy=step\nstep=3\nscale=.5").solver, 7), 0.25f);
    EXPECT_FLOAT_EQ(current_learning_rate(options_of("learning_rate=1\npolicy=exp\ngamma=.5").solver, 3),
                    0.125f);
    EXPECT_FLOAT_EQ(
        current_learning_rate(options_of("learning_rate=1\npolicy=random\npower=1").solver, 3, 0.3f), 0.3f);
}

TEST(LearningRate, SigmoidIsCentredOnStep) {
    // darknet's size_t subtraction would give 0 below step; the sigmoid is 1/2 at step and near 1 before.
    const SolverOptions solver = options_of("learning_rate=1\npolicy=sigmoid\ngamma=1\nstep=10").solver;
    EXPECT_FLOAT_EQ(current_learning_rate(solver, 10), 0.5f);
    EXPECT_GT(current_learning_rate(solver, 0), 0.99f);
    EXPECT_LT(current_learning_rate(solver, 20), 0.01f);
}

}  // namespace
}  // namespace fpgacnn::train
