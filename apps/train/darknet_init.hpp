// A fresh network's parameters as darknet's make_convolutional_layer sets them (pjreddie's
// convolutional_layer.c): weights scale * N(0, 1) with scale = sqrt(2 / (size * size * c / groups)),
// biases 0, batch-norm scales 1, rolling mean and variance 0. The normal draws are Box-Muller on a
// std::mt19937 seeded with `seed` (darknet's rand_normal on rand()), so not darknet's own numbers.
#pragma once

#include <cstdint>

#include "fpgacnn/network.hpp"

namespace fpgacnn::train_tool {

void darknet_random_init(Network& network, std::uint64_t seed);

}  // namespace fpgacnn::train_tool
