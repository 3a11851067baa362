// Design-space exploration (fpgacnn-plan --explore): which kernel build (Tm, Tn, Tr, Tc) to
// synthesise for a board and a network. Every build that fits the board's DSP / BRAM budget is a
// candidate; each is timed with the planner's latency model (estimate_command, the per-layer
// roofline with AXI burst and port effects), and the result is the Pareto front (latency, DSP,
// BRAM) and the fastest build. Search: see explore() and docs/tools/fpgacnn-plan.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "board_catalog.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/plan.hpp"
#include "resource_model.hpp"

namespace fpgacnn::explore {

/// One device layer as the explorer times it: its command (tiles filled per build) run `repeat` times
/// (a grouped convolution: one command per group, each with N / G inputs and M / G outputs).
struct WorkLayer {
    int index = 0;
    LayerType type = LayerType::Convolutional;
    kernel::LayerCommand command{};
    int repeat = 1;
    std::uint64_t macs() const;  // all repeats
};

struct Workload {
    std::string name;
    std::vector<WorkLayer> layers;
    int max_kernel = 1;
    int max_stride = 1;
    std::uint64_t macs() const;
};

/// How a convolution the cfg cannot express splits into G commands: grouped (each group sees N / G
/// inputs and makes M / G outputs) or, `outputs_only`, split over G towers that each see all N inputs
/// and make M / G outputs (the two-GPU AlexNet's conv1 and conv3, as Zhang et al. 2015 count them).
struct GroupSpec {
    int count = 1;
    bool outputs_only = false;
};

/// The device layers of a network, with `groups` (layer index -> split). `conv_only`: leave maxpool /
/// reorg out (designs that run convolutions only, as Zhang et al. 2015's). Throws Error naming the
/// layer when a split does not divide its channels.
Workload workload_from_network(const Network& network, const std::map<int, GroupSpec>& groups,
                               bool conv_only);

/// "2:2,4:2o" -> {2: grouped in 2, 4: outputs split over 2 towers}; throws Error on anything else.
std::map<int, GroupSpec> parse_groups(const std::string& text);

struct ExploreOptions {
    Board board;
    DataType type = DataType::Int16;
    double clock_mhz = 0;   // 0: the board's typical clock
    double headroom = 0.8;  // share of the board's DSP, BRAM, LUT and FF a build may use
    int port_bits = 0;      // 0: one element per beat (the kernel as written)
    int fm_read_ports = 1;
    int fm_write_ports = 1;
    // The memory's timing (PlanOptions' defaults: the Zedboard's HP port) and any cost per burst.
    int burst_overhead_cycles = PlanOptions{}.burst_overhead_cycles;
    int read_latency_cycles = PlanOptions{}.read_latency_cycles;
    int outstanding_reads = PlanOptions{}.outstanding_reads;
    int write_latency_cycles = PlanOptions{}.write_latency_cycles;
    int min_tile = 4;  // smallest Tr / Tc considered
    int max_tn = 64;
    int max_tm = 1024;
    // The builds have the pair mode of 8-bit layers (FPGACNN_INT8_PAIRS): its logic counts in their
    // resources and its cycles in their 8-bit layers' times. Off for int16-only models.
    bool int8_pairs = true;
};

struct Build {
    kernel::Maxima maxima;
    Resources resources;
    double milliseconds = 0;
    double conv_milliseconds = 0;
    double lower_bound_ms = 0;  // the compute roof alone (prunes the search)
    bool pareto = false;
};

/// One layer of a build on the roofline: operations per byte moved (CTC) and what it attains.
struct LayerPoint {
    int index = 0;
    LayerType type = LayerType::Convolutional;
    double gop = 0;
    double milliseconds = 0;
    double megabytes = 0;
    double ctc = 0;         // operations per byte of DDR traffic
    double gops = 0;        // attained GOP/s
    double compute_ms = 0;  // MAC pipeline busy
};

struct SearchStats {
    long long pairs_enumerated = 0;  // (Tm, Tn) within the DSP budget
    long long pairs_kept = 0;        // after the compute-roof staircase
    long long builds_fitting = 0;    // (Tm, Tn, Tr, Tc) within the BRAM budget
    long long layer_estimates = 0;   // latency-model calls (the rest came from the cache)
    double seconds = 0;
};

struct ExploreResult {
    Workload workload;
    ExploreOptions options;  // with the defaults resolved
    int dsp_budget = 0;
    int bram_budget = 0;
    int lut_budget = 0;  // the same headroom applies to LUTs and FFs
    int ff_budget = 0;
    std::vector<Build> builds;  // every evaluated build, fastest first
    std::vector<Build> front;   // the Pareto front, fastest first
    Build best;
    std::vector<LayerPoint> best_layers;
    SearchStats stats;
    double gop() const;
    double gops(const Build& b) const;
    double conv_gops(const Build& b) const;
    double compute_roof_gops(const Build& b) const;
};

/// The plan options (clock, bandwidth, ports, element width) a build of `options` is timed with.
PlanOptions plan_options_for(const ExploreOptions& options, const kernel::Maxima& maxima);

/// Times one build of the workload (every layer with the build's tiles).
Build evaluate_build(const Workload& workload, const ExploreOptions& options, const kernel::Maxima& maxima,
                     std::vector<LayerPoint>* layers = nullptr);

/// The search. Throws Error when not even the smallest build fits the budget.
ExploreResult explore(const Workload& workload, const ExploreOptions& options);

}  // namespace fpgacnn::explore
