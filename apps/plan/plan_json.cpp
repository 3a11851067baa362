#include "plan_json.hpp"

namespace fpgacnn::plan_app {

namespace {

nlohmann::json shape_json(const TensorShape& s) { return {{"c", s.c}, {"h", s.h}, {"w", s.w}}; }

nlohmann::json range_json(const ArenaRange& r) {
    return {
        {"offset", r.offset}, {"elements", r.elements}, {"bits", r.bits}, {"byte_offset", r.byte_offset()}};
}

nlohmann::json estimate_json(const LayerEstimate& e, double clock_mhz) {
    const double ms_per_cycle = 1.0 / (clock_mhz * 1e3);
    return {{"macs", e.macs},
            {"fm_read_bytes", e.fm_read_bytes},
            {"fm_read_bursts", e.fm_read_bursts},
            {"fm_write_bytes", e.fm_write_bytes},
            {"fm_write_bursts", e.fm_write_bursts},
            {"param_read_bytes", e.param_read_bytes},
            {"param_read_bursts", e.param_read_bursts},
            {"compute_ms", e.compute_cycles * ms_per_cycle},
            {"load_ms", e.load_cycles * ms_per_cycle},
            {"store_ms", e.store_cycles * ms_per_cycle},
            {"total_cycles", e.total_cycles},
            {"milliseconds", e.milliseconds}};
}

nlohmann::json phase_json(const PhaseEstimate& p, int array_macs) {
    return {{"useful_macs", p.useful_macs},
            {"compute_cycles", p.compute_cycles},
            {"total_cycles", p.total_cycles},
            {"milliseconds", p.milliseconds},
            {"utilization", p.utilization(array_macs)}};
}

}  // namespace

nlohmann::json training_to_json(const TrainingEstimate& e) {
    nlohmann::json layers = nlohmann::json::array();
    for (const TrainingLayerEstimate& l : e.layers) {
        nlohmann::json layer = {{"index", l.index},
                                {"stride_classes", l.stride_classes},
                                {"fp", phase_json(l.forward, e.array_macs)},
                                {"wg", phase_json(l.weight_gradient, e.array_macs)}};
        // The first conv layer's BP (the image's delta) is not timed unless asked for.
        layer["bp"] = l.backward.total_cycles > 0 ? phase_json(l.backward, e.array_macs) : nlohmann::json();
        layers.push_back(layer);
    }
    return {{"batch", e.options.batch},
            {"array_macs", e.array_macs},
            {"clock_mhz", e.clock_mhz},
            {"weight_bandwidth_gbs", e.options.weight_bandwidth_gbs},
            {"first_layer_delta", e.options.first_layer_delta},
            {"fold_batch", e.options.fold_batch},
            {"resident_inputs", e.options.resident_inputs},
            {"wg_reuse", e.options.wg_reuse},
            {"layers", layers},
            {"fp", phase_json(e.forward, e.array_macs)},
            {"bp", phase_json(e.backward, e.array_macs)},
            {"wg", phase_json(e.weight_gradient, e.array_macs)},
            {"backward", phase_json(e.backward_and_gradient(), e.array_macs)},
            {"overall", phase_json(e.overall(), e.array_macs)}};
}

nlohmann::json plan_to_json(const NetworkPlan& plan) {
    const PlanOptions& o = plan.options;
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerPlan& lp : plan.layers) {
        nlohmann::json l = {{"index", lp.index},
                            {"type", layer_type_name(lp.type)},
                            {"on_device", lp.on_device},
                            {"on_host", lp.on_host},
                            {"input_shape", shape_json(lp.input_shape)},
                            {"output_shape", shape_json(lp.output_shape)},
                            {"output", range_json(lp.output)}};
        if (lp.on_device) {
            l["input"] = range_json(lp.input);
            l["tile"] = {{"rows", lp.tile_rows},
                         {"cols", lp.tile_cols},
                         {"row_tiles", lp.row_tiles},
                         {"col_tiles", lp.col_tiles},
                         {"map_groups", lp.map_groups},
                         {"input_groups", lp.input_groups},
                         {"input_rows", lp.input_tile_rows},
                         {"input_cols", lp.input_tile_cols}};
            l["estimate"] = estimate_json(lp.estimate, o.clock_mhz);
        }
        if (lp.type == LayerType::Convolutional) {
            l["parameters"] = {{"weight_offset", lp.weight_offset},
                               {"weight_words", lp.weight_words},
                               {"weight_bits", lp.command.weight_bits},
                               {"bias_offset", lp.bias_offset},
                               {"bias_elements", lp.bias_elements}};
        }
        layers.push_back(l);
    }
    const double gop = 2.0 * static_cast<double>(plan.total.macs) / 1e9;
    return {{"kernel",
             {{"tm", o.maxima.tm},
              {"tn", o.maxima.tn},
              {"tr", o.maxima.tr},
              {"tc", o.maxima.tc},
              {"max_kernel", o.maxima.max_kernel},
              {"max_stride", o.maxima.max_stride}}},
            {"clock_mhz", o.clock_mhz},
            {"bandwidth_gbs", o.bandwidth_gbs},
            {"port_bits", o.port_bits},
            {"burst_overhead_cycles", o.burst_overhead_cycles},
            {"read_latency_cycles", o.read_latency_cycles},
            {"outstanding_reads", o.outstanding_reads},
            {"write_latency_cycles", o.write_latency_cycles},
            {"input_shape", shape_json(plan.input_shape)},
            {"input", range_json(plan.input)},
            {"output", range_json(plan.output)},
            {"arena_bytes", 2 * plan.arena_elements},
            {"arena_bytes_without_reuse", 2 * plan.arena_elements_no_reuse},
            {"parameter_bytes", 2 * plan.parameter_words},
            {"layers", layers},
            {"total", estimate_json(plan.total, o.clock_mhz)},
            {"gop", gop},
            {"gops_per_second", plan.total.milliseconds > 0 ? gop / (plan.total.milliseconds / 1e3) : 0.0}};
}

}  // namespace fpgacnn::plan_app
