// plan_command_list: plan + exponents, once per network; build_command_list adds the packed parameters.
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"

namespace fpgacnn {

CommandList plan_command_list(const QuantizedNetwork& network, const PlanOptions& options) {
    if (network.layers.size() != network.network.layers.size()) {
        throw Error(network.network.cfg_path + ": the quantized network has " +
                    std::to_string(network.layers.size()) + " quantized layers for " +
                    std::to_string(network.network.layers.size()) + " network layers; re-run calibration");
    }
    // A network built in memory has not met the file reader's checks: the device runs what it is given.
    validate_quantized_network(
        network, network.network.cfg_path.empty() ? "quantized network" : network.network.cfg_path);
    CommandList list;
    PlanOptions planned = options;  // the weight offsets and the estimate depend on the network's widths
    plan_widths_of(network, planned);
    list.plan = plan_network(network.network, planned);
    const std::vector<kernel::LayerCommand> commands = with_exponents(list.plan, network);
    std::size_t next = 0;
    for (const LayerPlan& lp : list.plan.layers) {
        if (!lp.on_device) continue;
        DeviceCommand command;
        command.layer = lp.index;
        command.description = "layer " + std::to_string(lp.index) + " (" + layer_type_name(lp.type) + ")";
        command.command = commands[next++];
        list.commands.push_back(command);
    }
    return list;
}

CommandList build_command_list(const QuantizedNetwork& network, const PlanOptions& options) {
    CommandList list = plan_command_list(network, options);
    list.parameters = pack_parameters(list.plan, network);
    return list;
}

}  // namespace fpgacnn
