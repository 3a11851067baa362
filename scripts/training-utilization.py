#!/usr/bin/python3
"""The training-utilization table and figure of docs/training-utilization.md (issue 36, item 3).

Runs `fpgacnn-plan --train --json` for VGG19, ResNet18, ResNet50 and WideResNet50-2 (cfg/train) at
224x224, batch 32, on each array below, prints a markdown table of FP / BP+WG / overall utilization
per model and their average, and draws it (matplotlib, Debian's python3-matplotlib).

usage: scripts/training-utilization.py BUILD_DIR [--png FILE]
"""
import argparse
import json
import os
import subprocess
import sys

MODELS = ["vgg19", "resnet18", "resnet50", "wide_resnet50_2"]
NAMES = {"vgg19": "VGG19", "resnet18": "ResNet18", "resnet50": "ResNet50", "wide_resnet50_2": "WRN50-2"}

# The seed's 16 x 32 PUs of 32 MACs at 800 MHz, 205 GB/s for features, 25.6 GB/s for weights,
# modelled as the kernel's Tm x Tn = 32 x 32 array (32 output channels x 32 input channels: one PU
# column's 32 MACs reduce over input channels, the 32 columns are output channels) taking the 16 PU
# rows' pixels one after the other, i.e. at 16 x 800 MHz: the same MACs a second and the same bytes
# per MAC (16 bytes of features and 2 of weights a cycle).
SEED = ["--tm", "32", "--tn", "32", "--tr", "56", "--tc", "56", "--max-kernel", "7", "--clock-mhz", "12800",
        "--bandwidth", "205", "--weight-bandwidth", "25.6", "--port-bits", "128", "--write-ports", "8"]
# The seed gives bandwidths only: a memory without latency. The kernel's own reader (30 cycles to the
# first beat, 4 bursts in flight) is the second row.
NO_LATENCY = ["--read-latency", "0", "--write-latency", "0"]
SEED_REUSE = ["--fold-batch", "--resident-inputs", "--wg-reuse"]
# The builds fpgacnn-plan --explore picks for ResNet50 (cfg/train/resnet50.cfg, --conv-only) on each
# board: 80 % headroom, the kernel's 16-bit ports, the board's clock and DDR bandwidth.
BOARDS = {
    "Zedboard (xc7z020)": ["--tm", "64", "--tn", "2", "--tr", "8", "--tc", "8", "--max-kernel", "7",
                           "--clock-mhz", "150", "--bandwidth", "4.2"],
    "KV260 (xck26)": ["--tm", "64", "--tn", "3", "--tr", "8", "--tc", "8", "--max-kernel", "7",
                      "--clock-mhz", "300", "--bandwidth", "19.2"],
    "U250": ["--tm", "86", "--tn", "16", "--tr", "38", "--tc", "38", "--max-kernel", "7",
             "--clock-mhz", "300", "--bandwidth", "19.2"],
}
ARRAYS = [
    ("(a) seed array, bandwidth-only memory, the three reuse changes", SEED + NO_LATENCY + SEED_REUSE),
    ("(a) seed array, the kernel's read latency, the three reuse changes", SEED + SEED_REUSE),
    ("(a) seed array, bandwidth-only memory, the kernel's dataflow as built", SEED + NO_LATENCY),
    ("(a) seed array as Tm x Tn = 128 x 128 at 800 MHz, bandwidth-only, reuse",
     ["--tm", "128", "--tn", "128", "--tr", "56", "--tc", "56", "--max-kernel", "7", "--clock-mhz", "800",
      "--bandwidth", "205", "--weight-bandwidth", "25.6", "--port-bits", "512", "--read-ports", "4",
      "--write-ports", "64"] + NO_LATENCY + SEED_REUSE),
] + [("(b) " + board, flags) for board, flags in BOARDS.items()] + [
    ("(b) U250 with the three reuse changes", BOARDS["U250"] + SEED_REUSE)]
SEED_REPORTED = {"vgg19": (97.1, 90.2, 92.4), "average": (77.6, 67.3, 70.4)}


def run(build, flags, model):
    plan = os.path.join(build, "apps", "plan", "fpgacnn-plan")
    cfg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cfg", "train", model + ".cfg")
    out = subprocess.run([plan, "--cfg", cfg, "--train", "--batch", "32", "--json"] + flags, check=True,
                         capture_output=True, text=True).stdout
    t = json.loads(out)["training"]
    return tuple(100 * t[p]["utilization"] for p in ("fp", "backward", "overall"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--png")
    args = parser.parse_args()
    rows = []
    for label, flags in ARRAYS:
        per_model = {m: run(args.build, flags, m) for m in MODELS}
        average = tuple(sum(per_model[m][i] for m in MODELS) / len(MODELS) for i in range(3))
        rows.append((label, flags, per_model, average))
    print("| array | " + " | ".join(NAMES[m] for m in MODELS) + " | average |")
    print("|---|" + "---|" * (len(MODELS) + 1))
    print("| seed (reported) | 97.1 / 90.2 / 92.4 | | | | 77.6 / 67.3 / 70.4 |")
    for label, _, per_model, average in rows:
        cells = [" / ".join(f"{v:.1f}" for v in per_model[m]) for m in MODELS]
        print(f"| {label} | " + " | ".join(cells) + " | " + " / ".join(f"{v:.1f}" for v in average) + " |")
    print("\n(FP / BP+WG / overall utilization, %; flags of each array:)")
    for label, flags, _, _ in rows:
        print(f"- {label}: `{' '.join(flags)}`")
    if args.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        phases = ["FP", "BP+WG", "overall"]
        fig, axes = plt.subplots(1, 3, figsize=(15, 5), sharey=True)
        labels = ["seed (reported)"] + [r[0] for r in rows]
        for p, ax in enumerate(axes):
            groups = MODELS + ["average"]
            width = 0.8 / len(labels)
            for i, label in enumerate(labels):
                if i == 0:
                    values = [SEED_REPORTED.get(g, (float("nan"),) * 3)[p] for g in groups]
                else:
                    per_model, average = rows[i - 1][2], rows[i - 1][3]
                    values = [per_model[g][p] if g in per_model else average[p] for g in groups]
                ax.bar([g + (i - len(labels) / 2) * width + width / 2 for g in range(len(groups))], values, width,
                       label=label, color="black" if i == 0 else None)
            ax.set_xticks(range(len(groups)))
            ax.set_xticklabels([NAMES.get(g, "average") for g in groups], rotation=20)
            ax.set_title(f"{phases[p]} utilization, batch 32, 224x224")
            ax.set_ylim(0, 100)
            ax.grid(axis="y", alpha=0.3)
        axes[0].set_ylabel("useful MACs / (array MACs x cycles), %")
        axes[0].legend(fontsize=7, loc="upper right")
        fig.tight_layout()
        fig.savefig(args.png, dpi=110)
        print(f"\nwrote {args.png}", file=sys.stderr)


if __name__ == "__main__":
    main()
