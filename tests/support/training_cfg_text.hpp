// The small darknet region nets the training tests write as cfg text share their [net] solver settings
// and their head; these build those pieces so each test states only the layers it is about.
#pragma once

#include <string>

namespace fpgacnn::test {

/// A [net] section: `batch` images in `subdivisions` passes, a size x size x 3 input, the solver
/// settings the training tests share (rate 0.01, momentum 0.9, decay 0.0005), then `extra` lines
/// (policy, augmentation, ...), each ending in '\n'.
inline std::string training_net_section(int batch, int subdivisions, int size,
                                        const std::string& extra = "") {
    const std::string side = std::to_string(size);
    return "[net]\nbatch=" + std::to_string(batch) + "\nsubdivisions=" + std::to_string(subdivisions) +
           "\nwidth=" + side + "\nheight=" + side +
           "\nchannels=3\nlearning_rate=0.01\nmomentum=0.9\ndecay=0.0005\n" + extra;
}

/// The head: a linear 1x1 conv of 14 filters (2 anchors x (5 + 2 classes)) and a [region] with small
/// anchors, softmax classes and no rescore, then `extra` [region] lines.
inline std::string two_class_region_head(const std::string& extra = "") {
    return "[convolutional]\nfilters=14\nsize=1\nactivation=linear\n"
           "[region]\nanchors=1,1,2,2\nnum=2\nclasses=2\nsoftmax=1\nbias_match=1\nrescore=0\nobject_scale=5\n"
           "thresh=.6\n" +
           extra;
}

}  // namespace fpgacnn::test
