// fpgacnn-train --qat-score-weight: a term of the teacher loss on the detection scores themselves.
//
// A detection survives the threshold by its score, objectness times its class's probability. 8-bit
// noise on the logits lowers both on average where the logistic and the softmax bend down (above 0.5:
// Jensen's inequality), so the fixed-point model loses float detections scored just above the
// threshold even when its raw outputs are close. This term adds, for every anchor whose teacher
// score (teacher objectness times its best class's probability) is at least kScoreFloor,
//   weight / 2 * (teacher score - student objectness * student probability of that class)^2
// and its deltas, in the form each head's backward takes them:
//   [region]: objectness delta on the activated value (the backward applies the logistic's slope),
//             class deltas on the logits (softmax);
//   [yolo]:   every delta on the logits (the backward passes them as they are; classes are logistic).
#pragma once

#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::train_tool {

/// Anchors the teacher scores below this carry no score term (the background's are noise).
constexpr float kScoreFloor = 0.1f;

/// Adds the score term's deltas (darknet's sign: minus the gradient) of `batch` images of head `layer`
/// ([region] or [yolo]) to `delta`, from the teacher's and the student's activated outputs; returns
/// the term's cost. `weight` 0 adds nothing.
double add_score_deltas(const Layer& layer, int batch, const std::vector<float>& teacher,
                        const std::vector<float>& student, float weight, std::vector<float>& delta);

}  // namespace fpgacnn::train_tool
