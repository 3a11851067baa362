// The training phases of a plan's conv layers on the Tm x Tn array (fpgacnn/training_plan.hpp), timed
// with the forward model's own parts (latency_parts.hpp): the same job pipeline, loads, stores and
// memory, so the three phases differ only in their loops (docs/training-utilization.md):
//   FP: the layer's planned command (estimate_command), once per image.
//   BP: dX tiled Tr x Tc like a conv output; a job is one tile, Tm of the forward input channels (N),
//       Tn of its output channels (M): the dY rows the tile needs on the feature-map master, the
//       rotated weight block (Tm * Tn * K * K) on the parameter master; compute is one array pass per
//       stride class (a, b) of the tile with taps: Ka * Kb * rows_a * cols_b cycles plus the pipeline's
//       drain, so no cycle multiplies a zero the stride would insert. Once per image.
//   WG: a block of Tm output x Tn input channels x K * K taps of 64-bit sums stays on chip over the
//       whole batch; per image and Tr x Tc tile of dY, a job loads the dY tile (Tm maps) and the tile's
//       forward input window (Tn maps), both on the feature-map master (the command's error_offset
//       and input_offset), then runs K * K * rows * cols cycles; nothing overlaps (the kernel does not
//       ping-pong WG's tiles); the block is written once per batch.
// The loops are conv_train.hpp's (the kernel's BP and WG modes).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "fpgacnn/error.hpp"
#include "fpgacnn/training_plan.hpp"
#include "plan/latency_parts.hpp"

namespace fpgacnn {

double PhaseEstimate::utilization(int array_macs) const {
    if (total_cycles <= 0 || array_macs <= 0) return 0;
    return static_cast<double>(useful_macs) / (static_cast<double>(array_macs) * total_cycles);
}

PhaseEstimate& PhaseEstimate::operator+=(const PhaseEstimate& other) {
    useful_macs += other.useful_macs;
    compute_cycles += other.compute_cycles;
    total_cycles += other.total_cycles;
    milliseconds += other.milliseconds;
    return *this;
}

PhaseEstimate TrainingEstimate::backward_and_gradient() const {
    PhaseEstimate sum = backward;
    sum += weight_gradient;
    return sum;
}

PhaseEstimate TrainingEstimate::overall() const {
    PhaseEstimate sum = forward;
    sum += backward_and_gradient();
    return sum;
}

namespace {

using namespace plan_detail;  // NOLINT(google-build-using-namespace): the latency model's own parts

/// The forward layer's dimensions as the phases see them.
struct ConvShape {
    int in_c, in_h, in_w;     // N, H, W (X)
    int out_c, out_h, out_w;  // M, R, C (Y, dY)
    int k, s, pad;
    std::uint64_t macs_per_image() const {
        return static_cast<std::uint64_t>(in_c) * out_c * k * k * out_h * out_w;
    }
};

ConvShape shape_of(const kernel::LayerCommand& c) {
    return {static_cast<int>(c.in_c),        static_cast<int>(c.in_h),   static_cast<int>(c.in_w),
            static_cast<int>(c.out_c),       static_cast<int>(c.out_h),  static_cast<int>(c.out_w),
            static_cast<int>(c.kernel_size), static_cast<int>(c.stride), static_cast<int>(c.pad)};
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// Taps of the kernel in stride class `a` along one axis: i = a, a + S, ... < K.
int class_taps(int k, int s, int a) { return a < k ? ceil_div(k - a, s) : 0; }

/// Cycles of one phase's pipeline for a batch: `per_image` jobs repeat for each image (FP, BP).
double with_command(double pipeline_cycles, const Model& model) {
    return pipeline_cycles + model.write_latency() + kControl.command;
}

/// The bursts of `t` for `images` images (a folded job loads each image's rows).
Transfer repeated(Transfer t, int images) {
    const auto n = static_cast<std::uint64_t>(images);
    t.fm_elements *= n, t.fm_beats *= n, t.fm_bytes *= n, t.fm_bursts *= n;
    return t;
}

/// A pass loop of the array as the forward conv runs it: the output tiled rows x cols with Tm of its
/// channels per map group, the streamed operand's Tn channels per job, one K x K weight block per job.
/// `images` images share each job (folding, TrainingOptions::fold_batch): their tiles side by side in
/// the accumulators, their windows loaded one after the other, the weight block once.
struct PassLoop {
    int out_c, out_h, out_w;  // what the accumulators hold: Tm over out_c, tiled
    int red_c, in_h, in_w;    // the streamed operand: Tn over red_c
    int k;                    // taps of the weight block
    int tile_rows, tile_cols;
    int images = 1;
    bool resident_inputs = false;  // TrainingOptions::resident_inputs
    /// The operand rows (columns) an output tile [first, first + count) reads: {first, count}, before
    /// clipping to the tensor.
    std::function<std::pair<int, int>(int first, int count)> row_window, col_window;
    /// Array cycles of one image's tile, without the per-pass drain, and the passes it takes.
    std::function<std::pair<double, int>(int row0, int rows, int col0, int cols)> tile_compute;
};

/// {compute cycles, pipeline cycles} of one job group (loop.images images) of a pass loop.
std::pair<double, double> run_passes(const PassLoop& loop, const PlanOptions& o, const Model& model) {
    const int tm = o.maxima.tm, tn = o.maxima.tn;
    const int in_groups = ceil_div(loop.red_c, tn);
    const std::uint64_t element_bytes = static_cast<std::uint64_t>(o.element_bits / 8);
    const std::uint64_t block_words = static_cast<std::uint64_t>(tm) * tn * loop.k * loop.k;
    const PortBeats port = port_beats(o);
    TensorPlace place;
    place.plane = static_cast<std::uint64_t>(loop.in_h) * loop.in_w;
    place.width = static_cast<std::uint64_t>(loop.in_w);
    JobPipeline pipeline;
    double compute_cycles = 0;
    for (int row0 = 0; row0 < loop.out_h; row0 += loop.tile_rows) {
        const int rows = std::min(loop.tile_rows, loop.out_h - row0);
        const auto [in_row, in_rows] = loop.row_window(row0, rows);
        for (int col0 = 0; col0 < loop.out_w; col0 += loop.tile_cols) {
            const int cols = std::min(loop.tile_cols, loop.out_w - col0);
            const auto [in_col, in_cols] = loop.col_window(col0, cols);
            const auto [cycles, passes] = loop.tile_compute(row0, rows, col0, cols);
            const double compute = cycles * loop.images + kControl.compute * passes;
            for (int m0 = 0; m0 < loop.out_c; m0 += tm) {
                const Transfer store = repeated(
                    output_tile(element_bytes, std::min(tm, loop.out_c - m0), rows, cols), loop.images);
                const double store_cycles = model.write(store) + kControl.store_group;
                for (int g = 0; g < in_groups; ++g) {
                    place.map_offset = static_cast<std::uint64_t>(g) * tn * place.plane;
                    Transfer t = input_tile(element_bytes, port, place, tn, loop.red_c - g * tn, loop.in_h,
                                            loop.in_w, in_row, in_col, in_rows, in_cols);
                    // Resident inputs: the first map group's loads brought every channel's window.
                    if (loop.resident_inputs && m0 > 0) t = Transfer{};
                    t = repeated(t, loop.images);
                    t.param_bytes = element_bytes * block_words;
                    t.param_beats = port.of(static_cast<std::uint64_t>(g) * block_words, block_words);
                    t.param_bursts = 1;
                    pipeline.job(model.read(t) + kControl.job, compute, g == 0, g + 1 == in_groups,
                                 store_cycles);
                    compute_cycles += compute;
                }
            }
        }
    }
    return {compute_cycles, pipeline.end()};
}

/// Images whose tiles share one job when folding: as many as the accumulators' Tr x Tc pixels hold.
int folded_images(const TrainingOptions& t, const KernelMaxima& m, int tile_rows, int tile_cols) {
    if (!t.fold_batch) return 1;
    return std::clamp((m.tr * m.tc) / std::max(1, tile_rows * tile_cols), 1, t.batch);
}

/// FP as a pass loop (only when folding or with resident inputs: otherwise the planner's own
/// estimate_command).
std::pair<double, double> forward_group(const ConvShape& l, const kernel::LayerCommand& c, int images,
                                        bool resident, const PlanOptions& o, const Model& model) {
    PassLoop loop;
    loop.out_c = l.out_c, loop.out_h = l.out_h, loop.out_w = l.out_w;
    loop.red_c = l.in_c, loop.in_h = l.in_h, loop.in_w = l.in_w;
    loop.k = l.k;
    loop.tile_rows = static_cast<int>(c.tile_rows), loop.tile_cols = static_cast<int>(c.tile_cols);
    loop.images = images;
    loop.resident_inputs = resident;
    loop.row_window = [&l](int first, int count) {
        return std::make_pair(first * l.s - l.pad, (count - 1) * l.s + l.k);
    };
    loop.col_window = loop.row_window;
    loop.tile_compute = [&l](int, int rows, int, int cols) {
        return std::make_pair(static_cast<double>(l.k) * l.k * rows * cols, 1);
    };
    return run_passes(loop, o, model);
}

/// The stride classes with taps: the BP passes of a tile.
int stride_classes(const ConvShape& l) {
    int classes = 0;
    for (int a = 0; a < l.s; ++a)
        for (int b = 0; b < l.s; ++b)
            classes += class_taps(l.k, l.s, a) * class_taps(l.k, l.s, b) > 0 ? 1 : 0;
    return classes;
}

/// BP dX tiles: balanced like a conv output of H x W.
std::pair<int, int> backward_tile(const ConvShape& l, const KernelMaxima& m) {
    return {balanced_tiles(l.in_h, m.tr).tile, balanced_tiles(l.in_w, m.tc).tile};
}

/// BP of a job group: dX tiled like a conv output (Tm over N), dY streamed (Tn over M), one array pass
/// per stride class of the tile.
std::pair<double, double> backward_group(const ConvShape& l, int images, bool resident, const PlanOptions& o,
                                         const Model& model) {
    PassLoop loop;
    loop.out_c = l.in_c, loop.out_h = l.in_h, loop.out_w = l.in_w;
    loop.red_c = l.out_c, loop.in_h = l.out_h, loop.in_w = l.out_w;
    loop.k = l.k;
    std::tie(loop.tile_rows, loop.tile_cols) = backward_tile(l, o.maxima);
    loop.images = images;
    loop.resident_inputs = resident;
    // dY rows (columns) a dX tile [first, first + count) reads, as conv_train.hpp's window: from
    // floor((first + P - K + 1) / S) to floor((first + count - 1 + P) / S) (input_tile clips them to the
    // tensor).
    loop.row_window = [&l](int first, int count) {
        const int lowest = first + l.pad - (l.k - 1);
        const int lo = lowest >= 0 ? lowest / l.s : -ceil_div(-lowest, l.s);  // floor, as the kernel's
        const int hi = (first + count - 1 + l.pad) / l.s;
        return std::make_pair(lo, hi - lo + 1);
    };
    loop.col_window = loop.row_window;
    // Each stride class (a, b) with taps is one pass: Ka * Kb taps over its rows_a x cols_b pixels.
    loop.tile_compute = [&l](int row0, int rows, int col0, int cols) {
        double cycles = 0;
        int passes = 0;
        for (int a = 0; a < l.s; ++a) {
            int rows_a = 0;
            for (int h = row0; h < row0 + rows; ++h) rows_a += (h + l.pad) % l.s == a ? 1 : 0;
            for (int b = 0; b < l.s; ++b) {
                int cols_b = 0;
                for (int w = col0; w < col0 + cols; ++w) cols_b += (w + l.pad) % l.s == b ? 1 : 0;
                const int taps = class_taps(l.k, l.s, a) * class_taps(l.k, l.s, b);
                if (taps == 0 || rows_a == 0 || cols_b == 0) continue;
                cycles += static_cast<double>(taps) * rows_a * cols_b;
                ++passes;
            }
        }
        return std::make_pair(cycles, passes);
    };
    return run_passes(loop, o, model);
}

/// WG of a batch. As the kernel runs it (conv_train.hpp weight_gradient_layer): for each block of Tm
/// output x Tn input channels, its 64-bit sums on chip over every image and dY tile; a job loads the dY
/// tile (Tm maps) and then the tile's forward input window (Tn maps), both on the feature-map master,
/// then runs its pass: nothing overlaps (WG's tiles are not ping-ponged). The block is written after
/// the batch, one burst per output map. With `reuse` (TrainingOptions::wg_reuse): the sums of G input
/// groups stay on chip, G as many as one accumulator bank holds (Tr * Tc / 2 int64 per output lane over
/// Tn * K * K), the dY tile is loaded once for their G windows, and loads overlap the passes through
/// FP's job pipeline. `images` images share each job when folding (their dY tiles side by side in the
/// tile buffer). Returns {compute cycles, cycles}.
std::pair<double, double> weight_gradient_batch(const ConvShape& l, const PlanOptions& o, const Model& model,
                                                int batch, bool reuse, int images) {
    const int tm = o.maxima.tm, tn = o.maxima.tn;
    const TileSplit rows_split = balanced_tiles(l.out_h, o.maxima.tr);
    const TileSplit cols_split = balanced_tiles(l.out_w, o.maxima.tc);
    const std::uint64_t element_bytes = static_cast<std::uint64_t>(o.element_bits / 8);
    const PortBeats port = port_beats(o);
    const int resident_groups = reuse ? std::max(1, (o.maxima.tr * o.maxima.tc / 2) / (tn * l.k * l.k)) : 1;
    TensorPlace x_place;
    x_place.plane = static_cast<std::uint64_t>(l.in_h) * l.in_w;
    x_place.width = static_cast<std::uint64_t>(l.in_w);
    TensorPlace dy_place;
    dy_place.plane = static_cast<std::uint64_t>(l.out_h) * l.out_w;
    dy_place.width = static_cast<std::uint64_t>(l.out_w);
    struct Job {
        double load, compute;
    };
    double compute_cycles = 0;
    double serial_cycles = 0;
    JobPipeline pipeline;
    for (int m0 = 0; m0 < l.out_c; m0 += tm) {
        const int maps_m = std::min(tm, l.out_c - m0);
        dy_place.map_offset = static_cast<std::uint64_t>(m0) * dy_place.plane;
        for (int first = 0; first < l.in_c; first += tn * resident_groups) {
            const int end = std::min(l.in_c, first + tn * resident_groups);
            // One image's jobs stand for each (the images' offsets move a wide port's beats by at most
            // one a row).
            std::vector<Job> jobs;
            for (int row0 = 0; row0 < l.out_h; row0 += rows_split.tile) {
                const int rows = std::min(rows_split.tile, l.out_h - row0);
                for (int col0 = 0; col0 < l.out_w; col0 += cols_split.tile) {
                    const int cols = std::min(cols_split.tile, l.out_w - col0);
                    const Transfer dy = repeated(input_tile(element_bytes, port, dy_place, maps_m, maps_m,
                                                            l.out_h, l.out_w, row0, col0, rows, cols),
                                                 images);
                    for (int n0 = first; n0 < end; n0 += tn) {
                        x_place.map_offset = static_cast<std::uint64_t>(n0) * x_place.plane;
                        const Transfer x =
                            repeated(input_tile(element_bytes, port, x_place, tn, l.in_c - n0, l.in_h, l.in_w,
                                                row0 * l.s - l.pad, col0 * l.s - l.pad,
                                                (rows - 1) * l.s + l.k, (cols - 1) * l.s + l.k),
                                     images);
                        const double load =
                            (n0 == first ? model.read(dy) : 0.0) + model.read(x) + kControl.job;
                        jobs.push_back({load, static_cast<double>(l.k) * l.k * rows * cols * images});
                    }
                }
            }
            // The gradients of the resident groups: their channels x K * K words for each output map.
            Transfer store;
            store.fm_elements = static_cast<std::uint64_t>(maps_m) * (end - first) * l.k * l.k;
            store.fm_bursts = static_cast<std::uint64_t>(maps_m);
            store.fm_bytes = store.fm_elements * element_bytes;
            const double store_cycles = model.write(store) + kControl.store_group;
            // The batch in groups of `images` (the last group's share when they do not divide it).
            const double groups = static_cast<double>(batch) / images;
            for (const Job& job : jobs) compute_cycles += job.compute * groups;
            if (!reuse) {
                for (const Job& job : jobs)
                    serial_cycles += (job.load + job.compute + kControl.compute) * groups;
                serial_cycles += store_cycles;
                continue;
            }
            const int whole_groups = (batch + images - 1) / images;
            for (int group = 0; group < whole_groups; ++group) {
                for (std::size_t j = 0; j < jobs.size(); ++j) {
                    pipeline.job(jobs[j].load, jobs[j].compute + kControl.compute, group == 0 && j == 0,
                                 group + 1 == whole_groups && j + 1 == jobs.size(), store_cycles);
                }
            }
        }
    }
    return {compute_cycles, reuse ? pipeline.end() : serial_cycles};
}

PhaseEstimate phase(std::uint64_t macs, double compute, double total, double clock_mhz) {
    PhaseEstimate p;
    p.useful_macs = macs;
    p.compute_cycles = compute;
    p.total_cycles = total;
    p.milliseconds = total / (clock_mhz * 1e3);
    return p;
}

}  // namespace

TrainingEstimate estimate_training(const NetworkPlan& plan, const TrainingOptions& options) {
    if (options.batch < 1)
        throw Error(fmt::format("training estimate: batch {} is not positive", options.batch));
    if (options.weight_bandwidth_gbs < 0)
        throw Error(fmt::format("training estimate: weight bandwidth {} GB/s is negative",
                                options.weight_bandwidth_gbs));
    const PlanOptions& o = plan.options;
    const Model model(o, options.weight_bandwidth_gbs);
    TrainingEstimate result;
    result.options = options;
    result.array_macs = o.maxima.tm * o.maxima.tn;
    result.clock_mhz = o.clock_mhz;
    const double batch = options.batch;
    bool first_conv = true;
    for (const LayerPlan& lp : plan.layers) {
        // The [connected] layers (1x1 convs over a flattened input) are left out, as docs/training-
        // utilization.md says: its tables are the conv layers'.
        if (!lp.on_device || lp.type != LayerType::Convolutional || lp.connected) continue;
        const ConvShape l = shape_of(lp.command);
        TrainingLayerEstimate t;
        t.index = lp.index;
        const std::uint64_t macs = l.macs_per_image() * static_cast<std::uint64_t>(options.batch);

        // A phase run in groups of `images` images: one group's cycles, times the groups of the batch.
        const auto per_batch = [&](std::pair<double, double> group, int images) {
            const double groups = batch / images;
            return phase(macs, group.first * groups, with_command(group.second * groups, model), o.clock_mhz);
        };
        const bool resident = options.resident_inputs;
        if (options.fold_batch || resident) {
            const int images = folded_images(options, o.maxima, static_cast<int>(lp.command.tile_rows),
                                             static_cast<int>(lp.command.tile_cols));
            t.forward = per_batch(forward_group(l, lp.command, images, resident, o, model), images);
        } else {
            // The planner's own estimate of the command, once per image.
            const LayerEstimate fp = estimate_command_on(lp.command, o, model);
            t.forward = phase(macs, fp.compute_cycles * batch, fp.total_cycles * batch, o.clock_mhz);
        }
        t.stride_classes = stride_classes(l);
        if (!first_conv || options.first_layer_delta) {
            const auto [rows, cols] = backward_tile(l, o.maxima);
            const int images = folded_images(options, o.maxima, rows, cols);
            t.backward = per_batch(backward_group(l, images, resident, o, model), images);
        }
        const auto [compute, pipeline] =
            weight_gradient_batch(l, o, model, options.batch, options.wg_reuse,
                                  folded_images(options, o.maxima, balanced_tiles(l.out_h, o.maxima.tr).tile,
                                                balanced_tiles(l.out_w, o.maxima.tc).tile));
        t.weight_gradient = phase(macs, compute, with_command(pipeline, model), o.clock_mhz);
        first_conv = false;

        result.forward += t.forward;
        result.backward += t.backward;
        result.weight_gradient += t.weight_gradient;
        result.layers.push_back(t);
    }
    return result;
}

std::string format_training_table(const NetworkPlan& plan, const TrainingEstimate& e) {
    const int array = e.array_macs;
    std::string text = fmt::format(
        "training, batch {}: FP, BP (input delta) and WG (weight gradient) of every conv layer on the "
        "{}-MAC array at {:g} MHz; util = useful MACs / (array MACs x cycles)\n",
        e.options.batch, array, e.clock_mhz);
    text += fmt::format("{:>4} {:<11} {:>14} {:>14} {:>9} {:>10} {:>6} {:>10} {:>6} {:>10} {:>6}\n", "#",
                        "conv", "input", "output", "GMAC", "FP ms", "util", "BP ms", "util", "WG ms", "util");
    const auto shape = [](const TensorShape& s) { return fmt::format("{}x{}x{}", s.w, s.h, s.c); };
    const auto util = [array](const PhaseEstimate& p) {
        return p.total_cycles > 0 ? fmt::format("{:.1f}%", 100.0 * p.utilization(array)) : std::string("-");
    };
    const auto ms = [](const PhaseEstimate& p) {
        return p.total_cycles > 0 ? fmt::format("{:.2f}", p.milliseconds) : std::string("-");
    };
    for (const TrainingLayerEstimate& l : e.layers) {
        const LayerPlan& lp = plan.layers[static_cast<std::size_t>(l.index)];
        const std::string conv =
            fmt::format("{}x{}/{}", lp.command.kernel_size, lp.command.kernel_size, lp.command.stride);
        text += fmt::format("{:>4} {:<11} {:>14} {:>14} {:>9.3f} {:>10} {:>6} {:>10} {:>6} {:>10} {:>6}\n",
                            l.index, conv, shape(lp.input_shape), shape(lp.output_shape),
                            static_cast<double>(l.forward.useful_macs) / 1e9, ms(l.forward), util(l.forward),
                            ms(l.backward), util(l.backward), ms(l.weight_gradient), util(l.weight_gradient));
    }
    const auto line = [&](const char* name, const PhaseEstimate& p) {
        return fmt::format("{:<28} {:>9.3f} GMAC {:>11.2f} ms  utilization {:>5.1f} %\n", name,
                           static_cast<double>(p.useful_macs) / 1e9, p.milliseconds,
                           100.0 * p.utilization(array));
    };
    text += line("FP", e.forward);
    text += line("BP (input delta)", e.backward);
    text += line("WG (weight gradient)", e.weight_gradient);
    text += line("backward (BP + WG)", e.backward_and_gradient());
    text += line("overall (FP + BP + WG)", e.overall());
    return text;
}

}  // namespace fpgacnn
