// int16 maxpool, reorg and route against darknet's own loops (naive versions in the test support).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../../runtime/src/core/thread_pool.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16_test_support.hpp"

namespace fpgacnn {
namespace {

Layer maxpool_layer(TensorShape in, int size, int stride, int padding) {
    Layer layer;
    layer.type = LayerType::MaxPool;
    layer.params = MaxPoolParams{size, stride, padding};
    layer.input = in;
    layer.output = {in.c, (in.h + padding - size) / stride + 1, (in.w + padding - size) / stride + 1};
    return layer;
}

TEST(Int16MaxPool, MatchesDarknetLoopsIncludingEdgeWindows) {
    std::mt19937 rng(11);
    struct Shape {
        TensorShape in;
        int size, stride, padding;
    };
    // darknet's defaults (padding = size - 1) and yolov2's 2/2 and 2/1 pools, odd sizes included.
    const Shape shapes[] = {{{3, 8, 8}, 2, 2, 1},   {{2, 7, 9}, 2, 2, 1},   {{5, 13, 13}, 2, 1, 1},
                            {{1, 6, 5}, 3, 2, 2},   {{4, 5, 5}, 3, 1, 2},   {{2, 9, 4}, 2, 2, 0},
                            {{3, 10, 7}, 3, 3, 2},  {{1, 1, 1}, 2, 1, 1},   {{3, 17, 37}, 2, 2, 1},
                            {{2, 20, 40}, 2, 2, 1}, {{2, 33, 50}, 2, 2, 0}, {{4, 26, 26}, 2, 1, 1},
                            {{3, 9, 41}, 2, 1, 1},  {{2, 5, 9}, 2, 1, 1}};
    ThreadPool pool(2);
    for (const Shape& s : shapes) {
        const Layer layer = maxpool_layer(s.in, s.size, s.stride, s.padding);
        const auto input = test::random_int16(rng, s.in.size());
        const std::vector<int16_t> expected = test::naive_maxpool(layer, input);
        std::vector<int16_t> out(layer.output.size());
        int16_maxpool(layer, input.data(), out.data());
        EXPECT_EQ(out, expected) << s.in.c << "x" << s.in.h << "x" << s.in.w << " size " << s.size
                                 << " stride " << s.stride;
        std::vector<int16_t> threaded(layer.output.size());
        int16_maxpool(layer, input.data(), threaded.data(), &pool);
        EXPECT_EQ(threaded, expected) << "with a thread pool";
    }
}

TEST(Int16MaxPool, AllNegativeWindowAtTheEdgeTakesTheMaxOfCoveredPixelsOnly) {
    // 1x3x3, size 2 stride 1 padding 1: the last row/column windows hang over the edge; skipped taps
    // must not act as zeros.
    const Layer layer = maxpool_layer({1, 3, 3}, 2, 1, 1);
    const std::vector<int16_t> input = {-9, -8, -7, -6, -5, -4, -3, -2, -1};
    std::vector<int16_t> out(layer.output.size());
    int16_maxpool(layer, input.data(), out.data());
    const std::vector<int16_t> expected = {-5, -4, -4, -2, -1, -1, -2, -1, -1};
    EXPECT_EQ(out, expected);
}

TEST(Int16Reorg, MatchesDarknetReorgCpuForwardZero) {
    std::mt19937 rng(12);
    for (const TensorShape& in :
         {TensorShape{4, 2, 2}, TensorShape{8, 6, 4}, TensorShape{64, 26, 26}, TensorShape{12, 4, 6}}) {
        Layer layer;
        layer.type = LayerType::Reorg;
        layer.params = ReorgParams{2};
        layer.input = in;
        layer.output = {in.c * 4, in.h / 2, in.w / 2};
        const auto input = test::random_int16(rng, in.size());
        std::vector<int16_t> out(in.size());
        int16_reorg(layer, input.data(), out.data());
        EXPECT_EQ(out, test::naive_reorg(layer, input)) << in.c << "x" << in.h << "x" << in.w;
    }
}

TEST(Int16Reorg, RejectsChannelsNotAMultipleOfStrideSquared) {
    Layer layer;
    layer.type = LayerType::Reorg;
    layer.params = ReorgParams{2};
    layer.input = {6, 4, 4};
    layer.output = {24, 2, 2};
    std::vector<int16_t> data(layer.input.size());
    EXPECT_THROW(int16_reorg(layer, data.data(), data.data()), Error);
}

TEST(Int16Route, ConcatenatesSourcesAlongChannels) {
    std::vector<std::vector<int16_t>> outputs = {{1, 2, 3, 4}, {5, 6, 7, 8, 9, 10, 11, 12}, {}};
    Layer layer;
    layer.type = LayerType::Route;
    layer.index = 2;
    layer.params = RouteParams{{1, 0}};
    layer.output = {3, 2, 2};
    std::vector<int16_t> out(12);
    int16_route(layer, outputs, out.data());
    const std::vector<int16_t> expected = {5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4};
    EXPECT_EQ(out, expected);
    layer.params = RouteParams{{2}};  // itself: not an earlier layer
    EXPECT_THROW(int16_route(layer, outputs, out.data()), Error);
}

}  // namespace
}  // namespace fpgacnn
