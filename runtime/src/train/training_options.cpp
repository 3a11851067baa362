#include "train/training_options.hpp"

#include <cmath>

#include "fpgacnn/error.hpp"
#include "model/section_reader.hpp"

namespace fpgacnn::train {

namespace {

RatePolicy read_policy(model::SectionReader& reader) {
    const model::CfgOption* option = reader.find("policy");
    if (option == nullptr) return RatePolicy::Constant;
    const std::string& name = option->value;
    if (name == "constant") return RatePolicy::Constant;
    if (name == "step") return RatePolicy::Step;
    if (name == "steps") return RatePolicy::Steps;
    if (name == "exp") return RatePolicy::Exp;
    if (name == "poly") return RatePolicy::Poly;
    if (name == "random") return RatePolicy::Random;
    if (name == "sigmoid") return RatePolicy::Sig;
    reader.fail(option, "unknown learning-rate policy '" + name + "'",
                "use constant, step, steps, exp, poly, random or sigmoid (darknet would silently go with "
                "constant)");
}

SolverOptions read_solver(model::SectionReader& reader) {
    SolverOptions solver;
    const int batch = reader.integer_in_range("batch", 1, 1, 1 << 20, "batch is a positive image count");
    solver.subdivisions =
        reader.integer_in_range("subdivisions", 1, 1, 1 << 20, "subdivisions is a positive count");
    // parse_net_options: batch /= subdivisions (integer division), the images of one pass.
    solver.batch = batch / solver.subdivisions;
    if (solver.batch < 1) {
        reader.fail(reader.find("subdivisions"),
                    "subdivisions=" + std::to_string(solver.subdivisions) +
                        " exceeds batch=" + std::to_string(batch) + ", leaving no image per pass",
                    "make batch a multiple of subdivisions");
    }
    constexpr float kHuge = 1e30f;
    solver.learning_rate = reader.real_in_range("learning_rate", 0.001f, 0, kHuge, "a non-negative rate");
    solver.momentum = reader.real_in_range("momentum", 0.9f, 0, kHuge, "momentum is usually 0.9");
    solver.decay = reader.real_in_range("decay", 0.0001f, 0, kHuge, "decay is usually 0.0005");
    solver.policy = read_policy(reader);
    solver.burn_in = reader.integer_in_range("burn_in", 0, 0, 1 << 30, "burn_in counts updates");
    solver.power = reader.real_in_range("power", 4, -kHuge, kHuge, "power is a number");
    solver.max_batches = reader.integer_in_range("max_batches", 0, 0, 1 << 30, "max_batches counts updates");
    switch (solver.policy) {
        case RatePolicy::Step:
            solver.step = reader.integer_in_range("step", 1, 1, 1 << 30, "step counts updates");
            solver.scale = reader.real_in_range("scale", 1, -kHuge, kHuge, "scale is a factor");
            break;
        case RatePolicy::Steps:
            solver.steps = reader.integer_list("steps");
            solver.scales = reader.real_list("scales");
            if (solver.steps.empty() || solver.steps.size() != solver.scales.size()) {
                reader.fail(
                    "policy=steps needs as many 'scales' as 'steps' (darknet: 'STEPS policy must have "
                    "steps and scales')",
                    "e.g. steps=40000,45000 scales=.1,.1");
            }
            break;
        case RatePolicy::Exp:
            solver.gamma = reader.real_in_range("gamma", 1, -kHuge, kHuge, "gamma is a factor");
            break;
        case RatePolicy::Sig:
            solver.gamma = reader.real_in_range("gamma", 1, -kHuge, kHuge, "gamma is a factor");
            solver.step = reader.integer_in_range("step", 1, 0, 1 << 30, "step counts updates");
            break;
        case RatePolicy::Constant:
        case RatePolicy::Poly:
        case RatePolicy::Random:
            break;
    }
    solver.adam = reader.flag("adam", false);
    if (solver.adam) {  // parse_net_options reads B1, B2 and eps only with adam=1
        solver.b1 = reader.real_in_range("B1", solver.b1, 0, 0.9999f, "B1 is a decay in [0, 1), usually .9");
        solver.b2 =
            reader.real_in_range("B2", solver.b2, 0, 0.999999f, "B2 is a decay in [0, 1), usually .999");
        solver.eps = reader.real_in_range("eps", solver.eps, 1e-30f, 1, "eps is a small positive number");
    }
    if (solver.policy == RatePolicy::Poly && solver.max_batches < 1) {
        reader.fail("policy=poly needs max_batches (the rate falls to 0 there)",
                    "add max_batches=N to [net]");
    }
    return solver;
}

RegionLossOptions read_region(model::SectionReader& reader) {
    constexpr float kHuge = 1e30f;
    RegionLossOptions region;
    region.object_scale = reader.real_in_range("object_scale", 1, 0, kHuge, "a non-negative weight");
    region.noobject_scale = reader.real_in_range("noobject_scale", 1, 0, kHuge, "a non-negative weight");
    region.class_scale = reader.real_in_range("class_scale", 1, 0, kHuge, "a non-negative weight");
    region.coord_scale = reader.real_in_range("coord_scale", 1, 0, kHuge, "a non-negative weight");
    region.thresh = reader.real_in_range("thresh", 0.5f, 0, 1, "thresh is an IoU in [0, 1]");
    region.rescore = reader.flag("rescore", false);
    region.bias_match = reader.flag("bias_match", false);
    return region;
}

// AlexeyAB's [yolo] options whose loss is not implemented; pjreddie's darknet has none of them.
void reject_unimplemented_yolo_loss(model::SectionReader& reader) {
    const char* const hint = "remove the option (or set it to its neutral value) to train without it";
    const struct {
        const char* key;
        float neutral;
    } factors[] = {{"focal_loss", 0}, {"label_smooth_eps", 0}, {"objectness_smooth", 0},
                   {"iou_thresh", 1}, {"uc_normalizer", 1},    {"delta_normalizer", 1}};
    for (const auto& factor : factors) {
        const model::CfgOption* option = reader.find(factor.key);
        if (option != nullptr &&
            reader.real_in_range(factor.key, factor.neutral, -1e30f, 1e30f, "a number") != factor.neutral) {
            reader.fail(option, std::string(factor.key) + " is AlexeyAB's and not implemented in training",
                        hint);
        }
    }
    for (const char* key : {"map", "counters_per_class"}) {
        if (reader.find(key) != nullptr)
            reader.fail(reader.find(key), std::string(key) + " is not implemented in training", "remove it");
    }
}

// AlexeyAB's parse_yolo: iou_loss names; iou, and any other name (his plain IoU loss), are errors here.
IouLoss read_iou_loss(model::SectionReader& reader) {
    const model::CfgOption* option = reader.find("iou_loss");
    if (option == nullptr) return IouLoss::Mse;
    const std::string& name = option->value;
    if (name == "mse") return IouLoss::Mse;
    if (name == "iou") {
        reader.fail(option, "iou_loss=iou is not implemented",
                    "use giou, diou or ciou (AlexeyAB's plain-IoU delta pushes disjoint boxes apart: "
                    "docs/darknet-semantics.md)");
    }
    if (name == "giou") return IouLoss::Giou;
    if (name == "diou") return IouLoss::Diou;
    if (name == "ciou") return IouLoss::Ciou;
    reader.fail(option, "unknown iou_loss '" + name + "'",
                "use mse, giou, diou or ciou (AlexeyAB's darknet would silently use its plain IoU loss)");
}

YoloLossOptions read_yolo(model::SectionReader& reader) {
    YoloLossOptions yolo;
    yolo.ignore_thresh = reader.real_in_range("ignore_thresh", 0.5f, -1e30f, 1e30f, "an IoU, e.g. .7");
    yolo.truth_thresh = reader.real_in_range("truth_thresh", 1, -1e30f, 1e30f, "an IoU, 1 to switch it off");
    // More than net->truths' 90 would read past darknet's truth array.
    yolo.max_boxes = reader.integer_in_range("max", 90, 0, 90, "max counts truth boxes an image, up to 90");
    reject_unimplemented_yolo_loss(reader);
    for (const char* key :
         {"scale_x_y", "iou_loss", "iou_normalizer", "obj_normalizer", "cls_normalizer", "max_delta"}) {
        if (reader.find(key) != nullptr) yolo.alexeyab = true;
    }
    yolo.iou_loss = read_iou_loss(reader);
    constexpr float kHuge = 1e30f;
    yolo.iou_normalizer =
        reader.real_in_range("iou_normalizer", yolo.iou_normalizer, 0, kHuge, "a non-negative weight");
    yolo.obj_normalizer =
        reader.real_in_range("obj_normalizer", yolo.obj_normalizer, 0, kHuge, "a non-negative weight");
    yolo.cls_normalizer =
        reader.real_in_range("cls_normalizer", yolo.cls_normalizer, 0, kHuge, "a non-negative weight");
    yolo.max_delta = reader.real_in_range("max_delta", yolo.max_delta, 0, yolo.max_delta,
                                          "a positive bound of the box deltas, e.g. 10");
    return yolo;
}

LayerTrainingOptions read_layer(model::SectionReader& reader) {
    LayerTrainingOptions layer;
    layer.learning_rate_scale =
        reader.real_in_range("learning_rate", 1, 0, 1e30f, "a layer's learning_rate scales the net's rate");
    layer.stop_backward = reader.flag("stopbackward", false);
    if (reader.flag("onlyforward", false)) {
        reader.fail(reader.find("onlyforward"), "onlyforward is not implemented", "remove onlyforward=1");
    }
    const model::CfgOption* smooth = reader.find("smooth");
    if (smooth != nullptr && reader.real_in_range("smooth", 0, -1e30f, 1e30f, "smooth is a rate") != 0) {
        reader.fail(smooth, "smooth is not implemented", "remove smooth");
    }
    return layer;
}

}  // namespace

TrainingOptions read_training_options(const model::CfgFile& cfg) {
    if (cfg.sections.empty()) throw Error(cfg.path + ": the cfg has no [net] section");
    TrainingOptions options;
    model::SectionReader net(cfg, cfg.sections.front(), -1);
    options.solver = read_solver(net);
    for (std::size_t s = 1; s < cfg.sections.size(); ++s) {
        const int index = static_cast<int>(s) - 1;
        model::SectionReader reader(cfg, cfg.sections[s], index);
        options.layers.push_back(read_layer(reader));
        if (cfg.sections[s].name == "region") options.regions[index] = read_region(reader);
        if (cfg.sections[s].name == "yolo") options.yolos[index] = read_yolo(reader);
    }
    return options;
}

// get_current_rate, expression for expression (pow and exp in double, as darknet's C calls them).
float current_learning_rate(const SolverOptions& solver, std::uint64_t batch_num, float uniform01) {
    const double rate = solver.learning_rate;
    if (batch_num < static_cast<std::uint64_t>(solver.burn_in)) {
        return static_cast<float>(rate *
                                  std::pow(static_cast<float>(batch_num) / static_cast<float>(solver.burn_in),
                                           static_cast<double>(solver.power)));
    }
    switch (solver.policy) {
        case RatePolicy::Constant:
            return solver.learning_rate;
        case RatePolicy::Step: {
            // Whole steps only: darknet divides size_t by int.
            const std::uint64_t steps_done = batch_num / static_cast<std::uint64_t>(solver.step);
            return static_cast<float>(
                rate * std::pow(static_cast<double>(solver.scale), static_cast<double>(steps_done)));
        }
        case RatePolicy::Steps: {
            float value = solver.learning_rate;
            for (std::size_t i = 0; i < solver.steps.size(); ++i) {
                if (static_cast<std::uint64_t>(solver.steps[i]) > batch_num) return value;
                value *= solver.scales[i];
            }
            return value;
        }
        case RatePolicy::Exp:
            return static_cast<float>(
                rate * std::pow(static_cast<double>(solver.gamma), static_cast<double>(batch_num)));
        case RatePolicy::Poly:
            return static_cast<float>(
                rate * std::pow(1 - static_cast<float>(batch_num) / static_cast<float>(solver.max_batches),
                                static_cast<double>(solver.power)));
        case RatePolicy::Random:
            return static_cast<float>(
                rate * std::pow(static_cast<double>(uniform01), static_cast<double>(solver.power)));
        case RatePolicy::Sig: {
            // darknet computes batch_num - step in size_t, which wraps below `step` and makes the rate 0
            // there; the sigmoid is meant to be centred on `step`, so the difference is signed here
            // (docs/darknet-semantics.md, "Training (float)").
            const double offset = static_cast<double>(static_cast<std::int64_t>(batch_num) - solver.step);
            return static_cast<float>(rate *
                                      (1. / (1. + std::exp(static_cast<double>(solver.gamma) * offset))));
        }
    }
    return solver.learning_rate;
}

}  // namespace fpgacnn::train
