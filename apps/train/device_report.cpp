#include "device_report.hpp"

#include <fmt/format.h>

#include <vector>

namespace fpgacnn::train_tool {

namespace {

std::string phase_row(const std::string& label, const train::PhaseTotals& t, std::uint64_t images) {
    const double mb = 1e-6;
    return fmt::format("{:<10} {:>8} {:>6} {:>9.3f} {:>11.1f} {:>11.1f} {:>9.1f} {:>10.3f} {:>11.2f} {:>8}\n",
                       label, t.commands, t.reruns, static_cast<double>(t.useful_macs) * 1e-9,
                       static_cast<double>(t.fm_read_bytes) * mb, static_cast<double>(t.fm_write_bytes) * mb,
                       static_cast<double>(t.param_read_bytes) * mb, t.milliseconds * 1e-3,
                       images > 0 ? t.milliseconds / static_cast<double>(images) : 0.0, t.cycles);
}

}  // namespace

std::string format_device_report(const train::DeviceGradients& gradients, std::uint64_t images,
                                 bool per_layer) {
    const std::vector<train::LayerGradientTotals> layers = gradients.totals();
    std::string text = fmt::format("BP/WG on {} for {} images:\n", gradients.name(), images);
    text += fmt::format("{:<10} {:>8} {:>6} {:>9} {:>11} {:>11} {:>9} {:>10} {:>11} {:>8}\n", "phase",
                        "commands", "reruns", "GMAC", "fm read MB", "fm write MB", "param MB", "device s",
                        "ms / image", "cycles");
    train::PhaseTotals backward, weight_gradient;
    for (const train::LayerGradientTotals& layer : layers) {
        backward += layer.backward;
        weight_gradient += layer.weight_gradient;
        if (per_layer) {
            text += phase_row(fmt::format("{} BP", layer.layer), layer.backward, images);
            text += phase_row(fmt::format("{} WG", layer.layer), layer.weight_gradient, images);
        }
    }
    text += phase_row("BP", backward, images);
    text += phase_row("WG", weight_gradient, images);
    return text;
}

}  // namespace fpgacnn::train_tool
