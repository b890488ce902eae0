#!/usr/bin/env python3
"""Exact `#line` (issue 21): for every sample, the C++ (--emit=cpp) and the
CUDA (--emit=cuda) outputs are read as a compiler reads them, and every
line of code attributed to a KD file must be a line of that file with code
on it: inside the file, neither blank nor a comment. Lines attributed to
the generated file itself must be its real line numbers.

Usage: line_directives.py KDT_BINARY SOURCE_DIR
"""
import glob
import os
import re
import subprocess
import sys

KDT, SRC = sys.argv[1], sys.argv[2]
DIRECTIVE = re.compile(r'^#line (\d+)(?: "((?:[^"\\]|\\.)*)")?$')
failures = []


def kd_lines(path, cache={}):
    if path not in cache:
        with open(os.path.join(SRC, path), encoding="utf-8") as f:
            cache[path] = f.read().split("\n")
    return cache[path]


def code_on(line):
    """Whether a KD line holds code: not blank, not only a comment."""
    text = line.strip()
    return bool(text) and not text.startswith("//")


def check(sample, emit, out_name):
    args = [KDT, "--emit=" + emit, sample, "-o", out_name]
    if emit == "cuda":
        args.append("--arch=sm_90")
    proc = subprocess.run(args, cwd=SRC, capture_output=True, text=True)
    if proc.returncode != 0:
        return  # samples the path refuses (e.g. CUDA limits) have their own tests
    with open(os.path.join(SRC, out_name), encoding="utf-8") as f:
        text = f.read().split("\n")
    os.unlink(os.path.join(SRC, out_name))
    file, line = out_name, 1  # where the compiler says the next line comes from
    kd_attributed = 0
    for real, content in enumerate(text, start=1):
        m = DIRECTIVE.match(content)
        if m:
            line = int(m.group(1))
            if m.group(2) is not None:
                file = m.group(2)
            continue
        if file == out_name:
            if line != real:
                failures.append(f"{sample} ({emit}): generated line {real} is attributed to line {line} of itself")
                return
        elif content.strip():
            kd_attributed += 1
            lines = kd_lines(file)
            if line > len(lines) or not code_on(lines[line - 1]):
                what = "past its end" if line > len(lines) else "blank or a comment"
                failures.append(f"{sample} ({emit}): generated line {real} `{content.strip()[:60]}` is attributed to "
                                f"{file}:{line}, which is {what}")
                return
        line += 1
    if kd_attributed == 0 and "kernel " in open(os.path.join(SRC, sample), encoding="utf-8").read():
        failures.append(f"{sample} ({emit}): no line is attributed to the KD source")


samples = sorted(os.path.relpath(p, SRC) for p in glob.glob(os.path.join(SRC, "samples", "*.kd")))
for sample in samples:
    for emit, suffix in (("cpp", ".cpp"), ("cuda", ".cu")):
        check(sample, emit, ".line-check-" + os.path.basename(sample) + suffix)
print(f"{len(samples)} samples, C++ and CUDA: {len(failures)} failures")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
