// The explorer (explorer.hpp).
//
// Search: exhaustive over (Tm, Tn) within the DSP budget, pruned by the compute roof, then
// exhaustive over the tile sizes that matter, with a per-layer cache:
//  1. Every (Tm, Tn) whose DSPs, LUTs and FFs fit is enumerated and given its compute-roof time: the MAC
//  pipeline's
//     cycles alone, sum of ceil(M/Tm) ceil(N/Tn) K^2 R C (a true lower bound of the latency model).
//  2. A pair is dropped when another pair with no more multipliers has a compute roof at least as
//     good (the staircase): e.g. Tm = 33 does no better than 32 on power-of-two channel counts.
//  3. Tr and Tc range over the tile sizes balanced tiling can produce for the network's extents
//     (ceil(E / ceil(E / T))): any other maximum behaves exactly like the largest such size below it
//     and costs more BRAM. Square networks use Tr = Tc. Builds over the BRAM budget are skipped.
//  4. Each remaining build is timed with estimate_command layer by layer; a layer's estimate depends
//     only on (Tm, Tn) and its own tile, so it is cached per pair.
#include "explorer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <unordered_map>

#include "fpgacnn/error.hpp"

namespace fpgacnn::explore {

namespace {

std::uint64_t div_up(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

void set_tiles(kernel::LayerCommand& c, const kernel::Maxima& m) {
    // Upsample / shortcut segments do not depend on the build (kernel::kMaxElementwiseSegment).
    if (kernel::is_upsample_shortcut_op(c.op)) return;
    if (c.op == kernel::kOpReorg) {
        c.tile_rows = 1;
        c.tile_cols = static_cast<uint32_t>(balanced_tiles(static_cast<int>(c.in_w), m.tc).tile);
    } else {
        c.tile_rows = static_cast<uint32_t>(balanced_tiles(static_cast<int>(c.out_h), m.tr).tile);
        c.tile_cols = static_cast<uint32_t>(balanced_tiles(static_cast<int>(c.out_w), m.tc).tile);
    }
}

/// The MAC / compare pipeline's cycles of the whole workload for (Tm, Tn): the latency model's
/// compute term without pipeline fill, which every build of that pair needs at least.
double compute_roof_cycles(const Workload& w, int tm, int tn) {
    double cycles = 0;
    for (const WorkLayer& l : w.layers) {
        const kernel::LayerCommand& c = l.command;
        const double pixels = static_cast<double>(c.out_h) * c.out_w;
        if (c.op == kernel::kOpConv) {
            cycles += static_cast<double>(l.repeat) * static_cast<double>(div_up(c.out_c, tm)) *
                      static_cast<double>(div_up(c.in_c, tn)) * c.kernel_size * c.kernel_size * pixels;
        } else if (c.op == kernel::kOpMaxPool) {
            const int lanes = std::min(tm, tn);
            cycles += static_cast<double>(l.repeat) * static_cast<double>(div_up(c.in_c, lanes)) *
                      std::ceil(c.kernel_size * c.kernel_size / 2.0) * pixels;
        }
    }
    return cycles;
}

/// Tile sizes balanced tiling can produce for these extents, within [lo, hi].
std::vector<int> effective_tiles(const std::set<int>& extents, int lo, int hi) {
    std::set<int> sizes;
    for (int e : extents) {
        for (int t = 1; t <= e; ++t) {
            const int tile = balanced_tiles(e, t).tile;
            if (tile >= lo && tile <= hi) sizes.insert(tile);
        }
    }
    if (sizes.empty()) sizes.insert(std::min(hi, *extents.rbegin()));
    return {sizes.begin(), sizes.end()};
}

struct Pair {
    int tm = 0;
    int tn = 0;
    double roof_cycles = 0;
};

/// The pairs no other pair beats with no more multipliers (step 2 above).
std::vector<Pair> staircase(std::vector<Pair> pairs) {
    std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
        const int ma = a.tm * a.tn, mb = b.tm * b.tn;
        return ma != mb ? ma < mb : a.roof_cycles < b.roof_cycles;
    });
    std::vector<Pair> kept;
    double best_smaller = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < pairs.size();) {
        std::size_t j = i;
        const int macs = pairs[i].tm * pairs[i].tn;
        const double group_min = pairs[i].roof_cycles;
        for (; j < pairs.size() && pairs[j].tm * pairs[j].tn == macs; ++j) {
            if (pairs[j].roof_cycles == group_min && group_min < best_smaller) kept.push_back(pairs[j]);
        }
        best_smaller = std::min(best_smaller, group_min);
        i = j;
    }
    return kept;
}

bool dominates(const Build& a, const Build& b) {
    const bool no_worse = a.milliseconds <= b.milliseconds && a.resources.dsp <= b.resources.dsp &&
                          a.resources.bram_18k <= b.resources.bram_18k;
    const bool better = a.milliseconds < b.milliseconds || a.resources.dsp < b.resources.dsp ||
                        a.resources.bram_18k < b.resources.bram_18k;
    return no_worse && better;
}

bool faster(const Build& a, const Build& b) {
    if (a.milliseconds != b.milliseconds) return a.milliseconds < b.milliseconds;
    if (a.resources.dsp != b.resources.dsp) return a.resources.dsp < b.resources.dsp;
    return a.resources.bram_18k < b.resources.bram_18k;
}

/// A candidate build's maxima, with the explored builds' mode.
kernel::Maxima candidate(const ExploreOptions& o, const Workload& w, int tm, int tn, int tr, int tc) {
    kernel::Maxima m{tm, tn, tr, tc, w.max_kernel, w.max_stride};
    m.int8_pairs = o.int8_pairs;
    m.port_bits = o.port_bits;  // resolved(): the explored port width
    return m;
}

ExploreOptions resolved(const Workload& w, ExploreOptions o) {
    if (!(o.clock_mhz > 0)) o.clock_mhz = o.board.clock_mhz;
    if (o.port_bits <= 0) o.port_bits = data_bits(o.type);
    if (!(o.headroom > 0) || o.headroom > 1) throw Error("--headroom must be in (0, 100] percent");
    if (w.layers.empty()) throw Error(w.name + ": no layer runs on the device; nothing to explore");
    return o;
}

}  // namespace

std::uint64_t WorkLayer::macs() const {
    if (command.op != kernel::kOpConv) return 0;
    const kernel::LayerCommand& c = command;
    return static_cast<std::uint64_t>(repeat) * c.out_c * c.out_h * c.out_w * c.in_c * c.kernel_size *
           c.kernel_size;
}

std::uint64_t Workload::macs() const {
    std::uint64_t total = 0;
    for (const WorkLayer& l : layers) total += l.macs();
    return total;
}

std::map<int, GroupSpec> parse_groups(const std::string& text) {
    std::map<int, GroupSpec> groups;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const std::size_t colon = item.find(':');
        try {
            std::size_t used = 0;
            if (colon == std::string::npos) throw std::invalid_argument("no colon");
            const int layer = std::stoi(item.substr(0, colon), &used);
            std::string g = item.substr(colon + 1);
            GroupSpec spec;
            spec.outputs_only = !g.empty() && g.back() == 'o';
            if (spec.outputs_only) g.pop_back();
            spec.count = std::stoi(g, &used);
            if (used != g.size() || layer < 0 || spec.count < 1) throw std::invalid_argument("range");
            groups[layer] = spec;
        } catch (const std::exception&) {
            throw Error("--groups '" + text +
                        "': expected LAYER:G[o][,...], e.g. 2:2,4:2o (o: outputs split over G towers, inputs "
                        "shared)");
        }
    }
    return groups;
}

Workload workload_from_network(const Network& network, const std::map<int, GroupSpec>& groups,
                               bool conv_only) {
    Workload w;
    w.name = network.cfg_path;
    for (const Layer& l : network.layers) {
        if (l.type == LayerType::Convolutional) {
            w.max_kernel = std::max(w.max_kernel, l.conv().size);
            w.max_stride = std::max(w.max_stride, l.conv().stride);
        } else if (l.type == LayerType::MaxPool) {
            w.max_kernel = std::max(w.max_kernel, l.maxpool().size);
            w.max_stride = std::max(w.max_stride, l.maxpool().stride);
        } else if (l.type == LayerType::Reorg) {
            w.max_stride = std::max(w.max_stride, l.reorg().stride);
        }
    }
    // The commands' shapes come from the planner itself (tiles are set per build later).
    PlanOptions shapes;
    shapes.maxima = kernel::Maxima{64, 64, 64, 64, w.max_kernel, w.max_stride};
    const NetworkPlan plan = plan_network(network, shapes);
    for (const LayerPlan& lp : plan.layers) {
        if (!lp.on_device || (conv_only && lp.type != LayerType::Convolutional)) continue;
        WorkLayer wl;
        wl.index = lp.index;
        wl.type = lp.type;
        wl.command = lp.command;
        const auto g = groups.find(lp.index);
        if (g != groups.end()) {
            const GroupSpec& spec = g->second;
            const auto count = static_cast<uint32_t>(spec.count);
            if (lp.type != LayerType::Convolutional || (!spec.outputs_only && wl.command.in_c % count != 0) ||
                wl.command.out_c % count != 0) {
                throw Error("--groups: layer " + std::to_string(lp.index) +
                            " is not a convolution whose channels divide by " + std::to_string(spec.count));
            }
            wl.repeat = spec.count;
            if (!spec.outputs_only) wl.command.in_c /= count;
            wl.command.out_c /= count;
        }
        w.layers.push_back(wl);
    }
    for (const auto& [layer, spec] : groups) {
        if (layer >= static_cast<int>(network.layers.size())) {
            throw Error("--groups: the network has no layer " + std::to_string(layer));
        }
    }
    return w;
}

double ExploreResult::gop() const { return 2.0 * static_cast<double>(workload.macs()) / 1e9; }
double ExploreResult::gops(const Build& b) const { return gop() / (b.milliseconds / 1e3); }
double ExploreResult::conv_gops(const Build& b) const { return gop() / (b.conv_milliseconds / 1e3); }
double ExploreResult::compute_roof_gops(const Build& b) const {
    return 2.0 * b.maxima.tm * b.maxima.tn * options.clock_mhz * 1e6 / 1e9;
}

PlanOptions plan_options_for(const ExploreOptions& o, const kernel::Maxima& maxima) {
    PlanOptions p;
    p.maxima = maxima;
    p.clock_mhz = o.clock_mhz > 0 ? o.clock_mhz : o.board.clock_mhz;
    p.bandwidth_gbs = o.board.bandwidth_gbs;
    p.port_bits = o.port_bits > 0 ? o.port_bits : data_bits(o.type);
    p.fm_read_ports = o.fm_read_ports;
    p.fm_write_ports = o.fm_write_ports;
    p.burst_overhead_cycles = o.burst_overhead_cycles;
    p.read_latency_cycles = o.read_latency_cycles;
    p.outstanding_reads = o.outstanding_reads;
    p.write_latency_cycles = o.write_latency_cycles;
    p.element_bits = data_bits(o.type);
    return p;
}

Build evaluate_build(const Workload& w, const ExploreOptions& o, const kernel::Maxima& maxima,
                     std::vector<LayerPoint>* layers) {
    const PlanOptions p = plan_options_for(o, maxima);
    Build b;
    b.maxima = maxima;
    b.resources = estimate_resources(this_kernel(maxima, o.type, p.port_bits));
    b.lower_bound_ms = compute_roof_cycles(w, maxima.tm, maxima.tn) / (p.clock_mhz * 1e3);
    for (const WorkLayer& l : w.layers) {
        kernel::LayerCommand c = l.command;
        set_tiles(c, maxima);
        const LayerEstimate e = estimate_command(c, p);
        const double ms = e.milliseconds * l.repeat;
        b.milliseconds += ms;
        if (l.type == LayerType::Convolutional) b.conv_milliseconds += ms;
        if (layers != nullptr) {
            LayerPoint point;
            point.index = l.index;
            point.type = l.type;
            point.gop = 2.0 * static_cast<double>(l.macs()) / 1e9;
            point.milliseconds = ms;
            point.megabytes =
                static_cast<double>(e.fm_read_bytes + e.fm_write_bytes + e.param_read_bytes) * l.repeat / 1e6;
            point.ctc = point.megabytes > 0 ? point.gop * 1e3 / point.megabytes : 0;
            point.gops = ms > 0 ? point.gop / (ms / 1e3) : 0;
            point.compute_ms = e.compute_cycles * l.repeat / (p.clock_mhz * 1e3);
            layers->push_back(point);
        }
    }
    return b;
}

ExploreResult explore(const Workload& w, const ExploreOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    ExploreResult r;
    r.workload = w;
    r.options = resolved(w, options);
    const ExploreOptions& o = r.options;
    r.dsp_budget = static_cast<int>(std::floor(o.board.dsp * o.headroom));
    r.bram_budget = static_cast<int>(std::floor(o.board.bram_18k * o.headroom));
    r.lut_budget = static_cast<int>(std::floor(o.board.lut * o.headroom));
    r.ff_budget = static_cast<int>(std::floor(o.board.ff * o.headroom));

    int max_m = 1, max_n = 1;
    std::set<int> heights, widths;
    bool square = true;
    for (const WorkLayer& l : w.layers) {
        const kernel::LayerCommand& c = l.command;
        if (c.op == kernel::kOpConv) {
            max_m = std::max(max_m, static_cast<int>(c.out_c));
            max_n = std::max(max_n, static_cast<int>(c.in_c));
        }
        if (kernel::is_upsample_shortcut_op(c.op)) continue;  // not tiled by Tr / Tc
        if (c.op == kernel::kOpReorg) {
            widths.insert(static_cast<int>(c.in_w));
        } else {
            heights.insert(static_cast<int>(c.out_h));
            widths.insert(static_cast<int>(c.out_w));
            square = square && c.out_h == c.out_w;
        }
    }
    if (heights.empty()) heights = widths;

    // 1. (Tm, Tn) within the DSP budget, with their compute roofs.
    std::vector<Pair> pairs;
    const auto fits_logic = [&](const Resources& res) {
        return res.dsp <= r.dsp_budget && res.lut <= r.lut_budget && res.ff <= r.ff_budget;
    };
    for (int tn = 1; tn <= std::min(o.max_tn, max_n); ++tn) {
        for (int tm = 1; tm <= std::min(o.max_tm, max_m); ++tm) {
            // DSP, LUT and FF grow with Tm x Tn alone (the tiles only cost BRAM).
            const kernel::Maxima m = candidate(o, w, tm, tn, 1, 1);
            if (!fits_logic(estimate_resources(this_kernel(m, o.type, o.port_bits)))) break;
            pairs.push_back(Pair{tm, tn, compute_roof_cycles(w, tm, tn)});
        }
    }
    r.stats.pairs_enumerated = static_cast<long long>(pairs.size());
    // 2. The staircase, most promising first.
    pairs = staircase(std::move(pairs));
    r.stats.pairs_kept = static_cast<long long>(pairs.size());
    std::sort(pairs.begin(), pairs.end(),
              [](const Pair& a, const Pair& b) { return a.roof_cycles < b.roof_cycles; });

    // 3. Tile sizes that matter.
    const int lo = std::max(1, o.min_tile);
    const std::vector<int> rows = effective_tiles(heights, lo, *heights.rbegin());
    const std::vector<int> cols = effective_tiles(widths, lo, *widths.rbegin());

    // 4. Time every fitting build, caching each layer's estimate per (Tm, Tn) and tile.
    PlanOptions p = plan_options_for(o, kernel::Maxima{});
    for (const Pair& pair : pairs) {
        std::vector<std::unordered_map<std::uint64_t, LayerEstimate>> cache(w.layers.size());
        for (int tr : rows) {
            for (int tc : cols) {
                if (square && tr != tc) continue;
                const kernel::Maxima m = candidate(o, w, pair.tm, pair.tn, tr, tc);
                const Resources res = estimate_resources(this_kernel(m, o.type, o.port_bits));
                if (!fits_logic(res) || res.bram_18k > r.bram_budget) continue;
                ++r.stats.builds_fitting;
                p.maxima = m;
                Build b;
                b.maxima = m;
                b.resources = res;
                b.lower_bound_ms = pair.roof_cycles / (o.clock_mhz * 1e3);
                for (std::size_t i = 0; i < w.layers.size(); ++i) {
                    const WorkLayer& l = w.layers[i];
                    kernel::LayerCommand c = l.command;
                    set_tiles(c, m);
                    const std::uint64_t key = (static_cast<std::uint64_t>(c.tile_rows) << 32) | c.tile_cols;
                    auto hit = cache[i].find(key);
                    if (hit == cache[i].end()) {
                        hit = cache[i].emplace(key, estimate_command(c, p)).first;
                        ++r.stats.layer_estimates;
                    }
                    const double ms = hit->second.milliseconds * l.repeat;
                    b.milliseconds += ms;
                    if (l.type == LayerType::Convolutional) b.conv_milliseconds += ms;
                }
                r.builds.push_back(b);
            }
        }
    }
    if (r.builds.empty()) {
        throw Error("no kernel build fits " + o.board.name + " within " + std::to_string(r.dsp_budget) +
                    " DSPs, " + std::to_string(r.bram_budget) + " BRAM_18K, " + std::to_string(r.lut_budget) +
                    " LUTs and " + std::to_string(r.ff_budget) +
                    " FFs (raise --headroom, or the board is too small for this network's windows)");
    }
    std::sort(r.builds.begin(), r.builds.end(), faster);
    // The Pareto front: fastest first, a build joins unless a faster-or-equal one dominates it.
    for (Build& b : r.builds) {
        const bool dominated =
            std::any_of(r.front.begin(), r.front.end(), [&](const Build& f) { return dominates(f, b); });
        if (!dominated) {
            b.pareto = true;
            r.front.push_back(b);
        }
    }
    r.best = r.builds.front();
    evaluate_build(w, o, r.best.maxima, &r.best_layers);
    r.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace fpgacnn::explore
