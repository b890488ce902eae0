#!/usr/bin/env python3
"""Devices as MPI ranks (issue 20): `kdt run --mpi` against the simulated devices.

Every devices(N) kernel of the samples and the regressions (and a few at
other device counts, with -D) runs both ways on the same generated inputs:
the summaries must be the same text and the outputs the same bytes, except
where several ranks add floating-point values into the same elements
(add=true), whose order of arrival is not fixed: there within 1e-5
(docs/distributed.md). The kernels of tests/e2e/mpi must fail as stated
(a deadlock on every rank count, never a hang; a leak; a wait mismatch),
and so must the run-time diagnostic tests of tests/diag that deadlock or
index out of bounds. Every run is under a time limit that fails the test.
Skipped (MPI-SKIPPED) without mpirun and mpicxx.

usage: mpi_devices.py KDT SOURCE_DIR
"""
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from run_regressions import directives  # the RUN-INPUT lines, read as the regression runner reads them

LIMIT_S = 300  # a run that takes longer has hung


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return None


def inputs_of(path, tmp):
    """--input arguments for a regression's RUN-INPUT lines (the rest is generated)."""
    args = []
    for spec in directives(path, "RUN-INPUT"):
        lhs, value = spec.split("=", 1)
        name, dtype = lhs.split()
        npy = os.path.join(tmp, name + ".npy")
        np.save(npy, np.array(ast.literal_eval(value.strip()), dtype=np.dtype(dtype)))
        args += ["--input", "%s=%s" % (name, npy)]
    return args


def outputs(folder):
    return {n: np.load(os.path.join(folder, n)) for n in sorted(os.listdir(folder))} if os.path.isdir(folder) else {}


def summary(text):
    return [l for l in text.splitlines() if not l.startswith("time:")]


def compare(kdt, path, defines):
    """One kernel both ways; returns a list of failures."""
    label = os.path.basename(path) + (" " + " ".join(defines) if defines else "")
    with tempfile.TemporaryDirectory() as tmp:
        base = [kdt, "run", path, "--random-all"] + defines + inputs_of(path, tmp)
        sim = run(base + ["--output-dir", os.path.join(tmp, "sim")])
        mpi = run(base[:2] + ["--mpi"] + base[2:] + ["--output-dir", os.path.join(tmp, "mpi"), "--timeout", "200"])
        if sim is None or mpi is None:
            return ["%s: a run did not finish within %d s" % (label, LIMIT_S)]
        if sim.returncode != 0 or mpi.returncode != 0:
            return ["%s: exit %d (simulated) and %d (--mpi):\n%s" % (label, sim.returncode, mpi.returncode, mpi.stderr)]
        if summary(sim.stderr) != summary(mpi.stderr):
            # Float sums from several ranks may differ in their checksums (below).
            differ = [a for a, b in zip(summary(sim.stderr), summary(mpi.stderr)) if a != b]
            if not all(l.startswith("output ") for l in differ):
                return ["%s: summaries differ:\n%s\n---\n%s" % (label, sim.stderr, mpi.stderr)]
        a, b = outputs(os.path.join(tmp, "sim")), outputs(os.path.join(tmp, "mpi"))
        if sorted(a) != sorted(b) or not a:
            return ["%s: outputs %s (simulated) and %s (--mpi)" % (label, sorted(a), sorted(b))]
        with open(path) as f:
            adds = "add=true" in f.read()
        for name in a:
            if a[name].tobytes() == b[name].tobytes():
                continue
            if adds and a[name].dtype.kind == "f" and np.allclose(a[name], b[name], rtol=1e-5, atol=1e-5):
                print("ok   %s: %s within 1e-5 (floating-point add=true from several ranks)" % (label, name))
                continue
            return ["%s: output %s differs (max %g)" % (label, name, np.abs(a[name].astype(float) - b[name]).max())]
    print("ok   %s" % label)
    return []


def expect_failure(kdt, path, args, code, line, col, note=None, notes=0):
    label = "%s %s" % (os.path.basename(path), " ".join(args))
    with tempfile.TemporaryDirectory() as tmp:
        p = run([kdt, "run", "--mpi", path, "--random-all", "--output-dir", tmp, "--timeout", "200",
                 "--diagnostics-format=json"] + args)
    if p is None:
        return ["%s: did not finish within %d s (a hang, not a diagnostic)" % (label, LIMIT_S)]
    try:
        diags = json.loads(p.stderr or p.stdout)
    except ValueError:
        return ["%s: exit %d, no JSON diagnostics:\n%s%s" % (label, p.returncode, p.stdout, p.stderr)]
    errors = [d for d in diags if d.get("kind") == "error"]
    if p.returncode != 1 or not errors or errors[0].get("option", errors[0].get("code")) != code:
        got = [(d.get("code"), d.get("message")) for d in errors]
        return ["%s: expected %s, got exit %d %s" % (label, code, p.returncode, got)]
    start = errors[0]["locations"][0]["caret"]
    if (start["line"], start["column"]) != (line, col):
        return ["%s: %s at %d:%d, expected %d:%d" % (label, code, start["line"], start["column"], line, col)]
    children = [c.get("message", "") for c in errors[0].get("children", [])]
    if note and not any(note in c for c in children):
        return ["%s: no note '%s' in %s" % (label, note, errors[0])]
    if notes and sum(c.startswith("also blocked: device") for c in children) != notes:
        return ["%s: expected %d 'also blocked' notes (one per other blocked rank), got %s" % (label, notes, children)]
    print("ok   %s: %s at %d:%d" % (label, code, line, col))
    return []


def main():
    kdt, src = sys.argv[1], sys.argv[2]
    if not shutil.which("mpirun") or not shutil.which(os.environ.get("MPICXX", "mpicxx")):
        print("MPI-SKIPPED: no mpirun or mpicxx (scripts/setup.sh installs openmpi-bin and libopenmpi-dev)")
        return 0
    failures = []
    cases = []
    for folder in ("samples", os.path.join("tests", "e2e", "regressions")):
        for name in sorted(os.listdir(os.path.join(src, folder))):
            path = os.path.join(src, folder, name)
            if name.endswith(".kd") and "devices(" in open(path).read():
                cases.append((path, []))
    # Other device counts.
    cases += [(os.path.join(src, "samples", "all_gather_steps.kd"), ["-D", "ND=2"]),
              (os.path.join(src, "samples", "all_gather_steps.kd"), ["-D", "ND=8"]),
              (os.path.join(src, "samples", "scoped_barrier.kd"), ["-D", "N=2"])]
    for path, defines in cases:
        failures += compare(kdt, path, defines)

    mpi = os.path.join(src, "tests", "e2e", "mpi")
    # Devices 0, 2, 4, ... wait forever: one report, with a note per other blocked rank.
    for n in (2, 4, 8):
        failures += expect_failure(kdt, os.path.join(mpi, "deadlock_ring.kd"), ["-D", "N=%d" % n], "deadlock", 14, 5,
                                   notes=n // 2 - 1)
    failures += expect_failure(kdt, os.path.join(mpi, "leak_remote.kd"), [], "semaphore-leak", 10, 5)
    failures += expect_failure(kdt, os.path.join(mpi, "wait_mismatch.kd"), [], "dma-wait-mismatch", 14, 9,
                               "the DMA was started here")
    diag = os.path.join(src, "tests", "diag")
    failures += expect_failure(kdt, os.path.join(diag, "fail_deadlock_poll_dma.kd"), [], "deadlock", 12, 15)
    failures += expect_failure(kdt, os.path.join(diag, "fail_deadlock.kd"), ["--no-static-dma-checks"], "deadlock", 5, 5)
    failures += expect_failure(kdt, os.path.join(diag, "fail_out_of_bounds_mesh.kd"), [], "out-of-bounds", 10, 30)

    # The rank count must be the kernel's device count.
    ring = os.path.join(src, "samples", "ring_exchange.kd")
    p = run([kdt, "run", "--mpi", "-n", "3", ring, "--random-all", "--output-dir", "/nonexistent"])
    if p is None or p.returncode != 2 or "-n 3: kernel `ring_exchange` runs on 4 devices" not in p.stderr:
        failures.append("kdt run --mpi -n 3: %s" % (p and p.stderr))
    with tempfile.TemporaryDirectory() as tmp:
        cpp, exe = os.path.join(tmp, "k.cpp"), os.path.join(tmp, "k")
        steps = [[kdt, "--emit=cpp", "--harness", "--devices=mpi", ring, "-o", cpp],
                 [os.environ.get("MPICXX", "mpicxx"), "-std=c++17", "-O1", "-ffp-contract=off", cpp, "-o", exe]]
        for step in steps:
            p = run(step)
            if p is None or p.returncode != 0:
                failures.append("%s: %s" % (" ".join(step), p and p.stderr[-2000:]))
                break
        else:
            argv = ["mpirun", "-n", "2", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
            p = run(argv + [exe, "--random-all", "--output-dir", tmp])
            if p is None or p.returncode == 0 or "runs on 4 devices, one per MPI rank, but mpirun started 2" not in p.stderr:
                failures.append("the harness on 2 ranks: %s" % (p and p.stderr))
            else:
                print("ok   the harness refuses 2 ranks for 4 devices")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
