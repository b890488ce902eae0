#!/usr/bin/env python3
"""Replays tests/e2e/regressions/*.kd through `kdt run` and checks outputs.

Each file states what it must produce, in comment lines:
    // RUN-INPUT: NAME DTYPE = PYTHON-LITERAL     (zero or more)
    // RUN-EXPECT: NAME = PYTHON-LITERAL           (one or more)
    // RUN-ARGS: OPTIONS                          (optional: more `kdt run` options)
The expected values are written by hand in the file, not computed by kdt.
Each file runs in every --program-order and --dma-mode (DMA order fifo),
and in four more runs with the lifo and shuffle DMA orders.

usage: run_regressions.py KDT REGRESSIONS_DIR
"""
import ast
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np


def directives(path, key):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("// " + key + ":"):
                out.append(line.split(":", 1)[1].strip())
    return out


def run_inputs(path):
    # The RUN-INPUT values, by parameter name (scripts/gpu-check uses them too).
    values = {}
    for spec in directives(path, "RUN-INPUT"):
        lhs, value = spec.split("=", 1)
        pname, dtype = lhs.split()
        values[pname] = np.array(ast.literal_eval(value.strip()), dtype=np.dtype(dtype))
    return values


def main():
    kdt, folder = sys.argv[1], sys.argv[2]
    files = sorted(f for f in os.listdir(folder) if f.endswith(".kd"))
    failures = 0
    for name in files:
        path = os.path.join(folder, name)
        expects = directives(path, "RUN-EXPECT")
        if not expects:
            print("FAIL %s: no RUN-EXPECT line" % name)
            failures += 1
            continue
        # Every program order and DMA mode (spec section 1), and the other DMA
        # completion orders (section 16): each must give the same outputs.
        runs = [(order, mode, "fifo") for order, mode in itertools.product(("forward", "reverse", "shuffle"),
                                                                           ("on_wait", "eager"))]
        runs += [("forward", "on_wait", "lifo"), ("reverse", "eager", "shuffle"), ("shuffle", "on_wait", "shuffle"),
                 ("forward", "eager", "lifo")]
        for order, mode, dma_order in runs:
            with tempfile.TemporaryDirectory() as tmp:
                cmd = [kdt, "run", path, "--random-all", "--output-dir", os.path.join(tmp, "out"),
                       "--program-order", order, "--dma-mode", mode, "--dma-order", dma_order]
                for args in directives(path, "RUN-ARGS"):
                    cmd += args.split()
                for pname, data in run_inputs(path).items():
                    npy = os.path.join(tmp, pname + ".npy")
                    np.save(npy, data)
                    cmd += ["--input", "%s=%s" % (pname, npy)]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    print("FAIL %s (%s, %s, %s): kdt run exited %d\n%s" % (name, order, mode, dma_order, r.returncode, r.stderr))
                    failures += 1
                    continue
                for spec in expects:
                    oname, value = (s.strip() for s in spec.split("=", 1))
                    got = np.load(os.path.join(tmp, "out", oname + ".npy"))
                    want = np.array(ast.literal_eval(value))
                    if got.shape != want.shape or not np.array_equal(got, want.astype(got.dtype)):
                        print("FAIL %s (%s, %s, %s): %s = %s, expected %s" % (name, order, mode, dma_order, oname, got.tolist(),
                                                                         want.tolist()))
                        failures += 1
                    else:
                        print("ok   %s (%s, %s, %s): %s" % (name, order, mode, dma_order, oname))
    print("%d regression files, %d failures" % (len(files), failures))
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main())
