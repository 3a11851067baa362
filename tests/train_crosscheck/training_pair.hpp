// The float trainer and libdarknet on the same cfg, parameters, batch and truth, step by step, with
// the largest relative differences of what each step produced.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "darknet_training_oracle.hpp"
#include "train/float_trainer.hpp"

namespace fpgacnn::crosscheck {

/// Largest max_relative_difference seen, with the layer that had it.
struct WorstDifference {
    double value = 0;
    int layer = -1;
    void add(double difference, int at) {
        if (difference > value || layer < 0) {
            value = std::max(value, difference);
            layer = at;
        }
    }
};

class TrainingPair {
public:
    /// Both networks from `cfg_text`, the same random parameters (seeded), input in [0, 1).
    TrainingPair(const std::string& cfg_text, unsigned seed);

    train::FloatTrainer& trainer() { return trainer_; }
    const train::FloatTrainer& trainer() const { return trainer_; }
    DarknetTrainingOracle& oracle() { return oracle_; }
    const Network& network() const { return trainer_.network(); }
    std::vector<float>& truth() { return truth_; }

    /// A new random input batch for both.
    void new_input();
    /// Both forward passes (the truth re-laid for darknet: its [yolo] reads 90 boxes an image, the
    /// trainer holds kMaxTruthBoxes). Returns the trainer's cost.
    float forward(std::uint64_t seen);
    /// The same random d loss / d output written into the last layer of both.
    void set_random_last_delta();
    void backward();
    void update(std::uint64_t seen);
    /// train_network_datum on both: seen += batch, forward, backward, and the update when
    /// (seen / batch) % subdivisions == 0. Returns the new seen.
    std::uint64_t train_step(std::uint64_t seen);

    /// Worst relative differences of every layer's output / delta, of the conv gradients and the
    /// input's delta.
    WorstDifference outputs() const;
    WorstDifference deltas() const;
    WorstDifference gradients() const;
    double input_delta() const;
    /// The parameter changes since construction: max |ours - darknet's| / max |darknet's|.
    WorstDifference parameter_changes() const;

private:
    static train::FloatTrainer make_trainer(const std::string& cfg_text, unsigned seed);

    train::FloatTrainer trainer_;
    DarknetTrainingOracle oracle_;
    std::vector<ConvParams> initial_;  // by layer index
    std::mt19937 random_;
    std::vector<float> input_;
    std::vector<float> truth_;
    std::vector<float> our_input_delta_;
    std::vector<float> darknet_input_delta_;
};

/// Differences of each parameter array's change (after - before), worst of them.
double parameter_change_difference(const ConvParams& before, const ConvParams& ours,
                                   const ConvParams& theirs);

}  // namespace fpgacnn::crosscheck
