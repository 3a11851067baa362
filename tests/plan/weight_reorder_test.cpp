// The kernel's weight layout: a known small case by hand, and a round trip re-ordered -> darknet
// order for every conv layer of the three networks at two kernel builds.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/plan.hpp"
#include "plan_test_networks.hpp"

namespace fpgacnn::test {
namespace {

TEST(WeightReorder, BlocksAreTapMajorWithOutputMapsInnermost) {
    // M=3, N=3, K=1 with Tm=2, Tn=2: blocks (m0-1, n0-1), (m0-1, n2), (m2, n0-1), (m2, n2), each
    // [n][m] with zero lanes past M and N.
    std::vector<int16_t> w(9);
    for (int i = 0; i < 9; ++i) w[i] = static_cast<int16_t>(10 * (i / 3) + i % 3);  // w[m][n] = 10m + n
    const std::vector<int16_t> r = reorder_weights(w, 3, 3, 1, 2, 2);
    const std::vector<int16_t> expected = {0,  10, 1,  11,  // block (0,0): n0: m0 m1, n1: m0 m1
                                           2,  12, 0,  0,   // block (0,1): n2 (n3 absent)
                                           20, 0,  21, 0,   // block (1,0): m2 (m3 absent)
                                           22, 0,  0,  0};  // block (1,1)
    EXPECT_EQ(r, expected);
    EXPECT_EQ(restore_weights(r, 3, 3, 1, 2, 2), w);
}

TEST(WeightReorder, RoundTripsForEveryConvLayerOfTheNetworks) {
    std::mt19937 rng(42);
    std::uniform_int_distribution<int> value(-32768, 32767);
    int layers_checked = 0;
    for (const NamedCfg& cfg : planner_networks()) {
        // Weight shapes do not depend on the input size: one yolov2 is enough (and keeps this fast).
        if (cfg.name != "yolo-lite" && cfg.name != "yolov2-tiny" && cfg.name != "yolov2-416") continue;
        const Network net = load_darknet_cfg(cfg.path, cfg.size);
        for (const Layer& layer : net.layers) {
            if (layer.type != LayerType::Convolutional) continue;
            const int m = layer.output.c, n = layer.input.c, k = layer.conv().size;
            std::vector<int16_t> w(static_cast<std::size_t>(m) * n * k * k);
            for (int16_t& x : w) x = static_cast<int16_t>(value(rng));
            const bool big = cfg.name == "yolov2-416";
            for (const auto& [tm, tn] : {std::pair{32, 4}, std::pair{16, 8}}) {
                if (big && tm != 32) continue;
                const std::vector<int16_t> r = reorder_weights(w, m, n, k, tm, tn);
                ASSERT_EQ(r.size(), static_cast<std::size_t>((m + tm - 1) / tm) * ((n + tn - 1) / tn) * tm *
                                        tn * k * k);
                ASSERT_EQ(restore_weights(r, m, n, k, tm, tn), w)
                    << cfg.name << " layer " << layer.index << " Tm=" << tm << " Tn=" << tn;
                // Padded lanes hold zeros: the sum of |w| is preserved.
                long long sum_in = 0, sum_out = 0;
                for (int16_t x : w) sum_in += x < 0 ? -x : x;
                for (int16_t x : r) sum_out += x < 0 ? -x : x;
                ASSERT_EQ(sum_in, sum_out) << cfg.name << " layer " << layer.index;
            }
            ++layers_checked;
        }
    }
    EXPECT_GE(layers_checked, 9 + 23);  // yolov2-tiny 9, yolov2 23 (+ yolo-lite with shared/)
}

TEST(WeightReorder, WrongSizesAreErrors) {
    EXPECT_THROW(reorder_weights(std::vector<int16_t>(10), 3, 3, 1, 2, 2), Error);
    EXPECT_THROW(restore_weights(std::vector<int16_t>(10), 3, 3, 1, 2, 2), Error);
    EXPECT_THROW(reorder_weights(std::vector<int16_t>(9), 3, 3, 1, 0, 2), Error);
}

}  // namespace
}  // namespace fpgacnn::test
