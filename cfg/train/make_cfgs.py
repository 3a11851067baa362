#!/usr/bin/python3
"""Writes the training-utilization models (issue 36) as darknet cfgs: VGG19, ResNet18, ResNet50 and
WideResNet50-2 exactly as torchvision defines them, at 224x224.

torchvision (models/vgg.py, models/resnet.py): VGG19 = config "E", 3x3 pad-1 convs with bias, no batch
norm, 2x2/2 maxpools, three fully connected layers. ResNets: 7x7/2 conv, 3x3/2 maxpool (pad 1), then
four stages; the first block of a stage with stride 2 or a channel change has a 1x1 projection
shortcut (conv + BN, stride as the block's); the Bottleneck puts the stride in its 3x3 conv ("ResNet
V1.5"); Wide ResNet-50-2 doubles the Bottleneck's width (its 1x1 / 3x3 convs), not its output
(4 x planes). Global average pool and one fully connected layer to 1000 classes.

darknet spelling: pad=1 is padding size/2; [shortcut] adds an earlier layer's output (from=) and then
applies its activation (relu after the addition, as torchvision's block does); a projection shortcut
is a [route] back to the block's input followed by the 1x1 conv. Run: /usr/bin/python3 make_cfgs.py
(writes the .cfg files beside it).
"""
import os

NET = """[net]
batch=32
subdivisions=1
width=224
height=224
channels=3
learning_rate=0.1
momentum=0.9
decay=0.0001
policy=step
steps=30,60
scales=.1,.1
max_batches=90
"""


def conv(filters, size, stride=1, bn=True, activation="relu"):
    lines = ["[convolutional]"]
    if bn:
        lines.append("batch_normalize=1")
    lines += [f"filters={filters}", f"size={size}", f"stride={stride}", "pad=1", f"activation={activation}"]
    return "\n".join(lines) + "\n"


def maxpool(size, stride):
    return f"[maxpool]\nsize={size}\nstride={stride}\n"


def connected(outputs, activation):
    return f"[connected]\noutput={outputs}\nactivation={activation}\n"


def vgg19():
    sections = []
    for stage, (channels, convs) in enumerate([(64, 2), (128, 2), (256, 4), (512, 4), (512, 4)]):
        sections.append(f"# stage {stage + 1}")
        sections += [conv(channels, 3, bn=False) for _ in range(convs)]
        sections.append(maxpool(2, 2))
    # torchvision's AdaptiveAvgPool2d((7, 7)) is the identity at 224x224 (the last maxpool gives 7x7).
    sections += [connected(4096, "relu"), "[dropout]\nprobability=.5\n", connected(4096, "relu"),
                 "[dropout]\nprobability=.5\n", connected(1000, "linear"), "[softmax]\ngroups=1\n"]
    return sections


def stem():
    # conv1 7x7/2 pad 3, bn, relu; maxpool 3x3/2 pad 1 (darknet's default padding size - 1 = 2, half of
    # it on the top / left: the same 56x56 windows as torchvision's).
    return ["# stem", conv(64, 7, 2), maxpool(3, 2)]


def basic_block(planes, stride, in_channels):
    out = [conv(planes, 3, stride), conv(planes, 3, 1, activation="linear")]
    if stride != 1 or in_channels != planes:
        out += ["[route]\nlayers=-3\n", conv(planes, 1, stride, activation="linear")]
    out.append("[shortcut]\nfrom=-3\nactivation=relu\n")
    return out, planes


def bottleneck(planes, stride, in_channels, width_factor):
    width = planes * width_factor
    out = [conv(width, 1, 1), conv(width, 3, stride), conv(planes * 4, 1, 1, activation="linear")]
    if stride != 1 or in_channels != planes * 4:
        out += ["[route]\nlayers=-4\n", conv(planes * 4, 1, stride, activation="linear")]
        out.append("[shortcut]\nfrom=-3\nactivation=relu\n")
    else:
        out.append("[shortcut]\nfrom=-4\nactivation=relu\n")
    return out, planes * 4


def resnet(block, blocks, width_factor=1):
    sections = stem()
    channels = 64
    for stage, (planes, count) in enumerate(zip([64, 128, 256, 512], blocks)):
        sections.append(f"# layer{stage + 1}")
        for b in range(count):
            stride = 2 if stage > 0 and b == 0 else 1
            if block == "basic":
                out, channels = basic_block(planes, stride, channels)
            else:
                out, channels = bottleneck(planes, stride, channels, width_factor)
            sections += out
    sections += ["[avgpool]\n", connected(1000, "linear"), "[softmax]\ngroups=1\n"]
    return sections


MODELS = {
    "vgg19": ("torchvision.models.vgg19", vgg19()),
    "resnet18": ("torchvision.models.resnet18", resnet("basic", [2, 2, 2, 2])),
    "resnet50": ("torchvision.models.resnet50 (V1.5: stride in the 3x3)", resnet("bottleneck", [3, 4, 6, 3])),
    "wide_resnet50_2": ("torchvision.models.wide_resnet50_2 (bottleneck width doubled)",
                        resnet("bottleneck", [3, 4, 6, 3], width_factor=2)),
}

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, (source, sections) in MODELS.items():
        with open(os.path.join(here, name + ".cfg"), "w") as f:
            f.write(f"# {source} at 224x224, written by cfg/train/make_cfgs.py (issue 36: training utilization)\n")
            f.write(NET + "\n")
            for s in sections:
                f.write(s if s.startswith("#") is False else s + "\n")
                f.write("\n" if not s.startswith("#") else "")
