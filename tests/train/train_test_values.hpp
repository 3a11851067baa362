// Random tensors and inner products for the training tests.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace fpgacnn::train {

/// `count` values uniform in [low, high), from a generator seeded with `seed`.
inline std::vector<float> random_values(std::size_t count, unsigned seed, float low = -1.0f,
                                        float high = 1.0f) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(count);
    for (float& v : values) v = distribution(random);
    return values;
}

/// sum a[i] * b[i] in double.
inline double inner(const std::vector<float>& a, const std::vector<float>& b) {
    double sum = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
    return sum;
}

}  // namespace fpgacnn::train
