#!/usr/bin/env python3
"""A compile database with one entry per source file, from a unity build's (FPGACNN_UNITY).

CMake's compile_commands.json names a unity build's batches (Unity/unity_N_cxx.cxx), not the files each
batch includes, so clang-tidy would find no command for them. Every file of a batch is compiled with the
batch's command: this writes that command once per file, into OUT_DIR/compile_commands.json.
Usage: expand_unity_commands.py BUILD_DIR OUT_DIR
"""
import json
import os
import re
import sys

INCLUDE = re.compile(r'^#include "([^"]+)"$', re.MULTILINE)


def expand(entries):
    out = []
    for entry in entries:
        batch = entry["file"]
        if "/Unity/unity_" not in batch:
            out.append(entry)
            continue
        with open(batch, encoding="utf-8") as f:
            sources = INCLUDE.findall(f.read())
        for source in sources:
            out.append({"directory": entry["directory"], "file": source,
                        "command": entry["command"].replace(batch, source)})
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: expand_unity_commands.py BUILD_DIR OUT_DIR")
    build, out_dir = sys.argv[1:]
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(expand(entries), f, indent=1)


if __name__ == "__main__":
    main()
