#!/usr/bin/env python3
"""kdt run -g --gdb (issue 21): gdb in batch mode on two samples stops on
the KD lines it is told to, steps KD statements in order (a loop steps back
to its line, as in C), shows KD locals by their names, moves a breakpoint on
a comment to the next line with code, and names the KD line in the frame.
Prints GDB-SKIPPED (ctest: skipped) without gdb.

Usage: gdb_lines.py KDT_BINARY SOURCE_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

KDT, SRC = sys.argv[1], sys.argv[2]
if not shutil.which("gdb"):
    print("GDB-SKIPPED: no gdb on this machine")
    sys.exit(0)
failures = []


def session(sample, commands, defines=()):
    """gdb's output for COMMANDS (each an -ex) on `kdt run -g --gdb SAMPLE`, random inputs, one thread.
    Small tiles (DEFINES): `next` over a line single-steps its element loops."""
    gdb_args = "-batch -nx " + " ".join("-ex '%s'" % c for c in commands)
    out = tempfile.mkdtemp(prefix="kdt-gdb-")
    proc = subprocess.run([KDT, "run", "-g", "--gdb", "--gdb-args=" + gdb_args, sample, "--random-all", "-j", "1",
                           "--output-dir", out] + [a for d in defines for a in ("-D", d)], cwd=SRC, capture_output=True, text=True, timeout=600)
    shutil.rmtree(out, ignore_errors=True)
    return proc.stdout + proc.stderr


def stop_lines(text, kd):
    """The KD line numbers gdb printed as it stopped or stepped (`NN\\tsource`), in order."""
    lines = open(os.path.join(SRC, kd), encoding="utf-8").read().split("\n")
    stops = []
    for m in re.finditer(r"^(\d+)\t(.*)$", text, re.M):
        n = int(m.group(1))
        if n <= len(lines) and lines[n - 1].strip() == m.group(2).strip():
            stops.append(n)
    return stops


def expect(what, got, want, text):
    if got != want:
        failures.append("%s: got %r, expected %r\n--- gdb said:\n%s" % (what, got, want, text[-3000:]))


# dma_pipeline: line 36 is a comment, so its breakpoint moves to 37, where
# the program stops first; then the breakpoint inside the `if` (38) and ten
# steps: the rest of the iteration, back to the loop's line, the next
# iteration up to the `if` again.
kd = "samples/dma_pipeline.kd"
text = session(kd, ["break %s:38" % kd, "break %s:36" % kd, "run", "bt 1", "continue"] + ["next"] * 9,
               ["ROWS=128", "COLS=8", "TR=8"])
expect("dma_pipeline stops", stop_lines(text, kd), [37, 38, 40, 43, 47, 49, 50, 33, 34, 35, 37], text)
expect("dma_pipeline frame", re.findall(r"^#0 .* at (\S+)$", text, re.M)[:1], [kd + ":37"], text)
expect("comment breakpoint", re.findall(r"Breakpoint 2 at .*line (\d+)\.", text), ["37"], text)

# accumulate_blocks: KD locals by name in two programs, straight-line steps,
# and the kernel's closing brace (the checks at the program's end).
kd = "samples/accumulate_blocks.kd"
text = session(kd, ["break %s:21" % kd, "break %s:24" % kd, "run", "print i", "next", "next", "continue",
                    "continue", "print i"], ["N=64", "B=8"])
expect("accumulate_blocks stops", stop_lines(text, kd), [21, 22, 23, 24, 21], text)
expect("accumulate_blocks locals", re.findall(r"^\$\d+ = (\d+)$", text, re.M), ["0", "1"], text)

print("gdb on 2 samples: %d failures" % len(failures))
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
