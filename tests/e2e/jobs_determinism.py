#!/usr/bin/env python3
"""-j determinism (issue 17): every kernel of the samples, the regressions and
tests/e2e/jobs runs through `kdt run` with -j 1, -j 2 and -j 8; the outputs
must be the same bytes and the summaries the same text (but the time). The
run-time diagnostic tests (tests/diag files whose ARGS start with `run`) must
report the same diagnostics with each -j. Kernels of several devices (not
those of tests/diag, whose faults --no-checks would leave undefined) run
once more built with --no-checks, where -j N runs the devices of a launch
with remote operations at the same time (free-running). A few race-free
kernels also run with -j 4 built with ThreadSanitizer (checks on and off):
the runtime's shared state (shadows, turns, the pool, the free-running
devices' communication) must show no data race.

usage: jobs_determinism.py KDT SOURCE_DIR
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

JOBS = ("1", "2", "8")


def kernels(path):
    with open(path) as f:
        return re.findall(r"^\s*kernel\s+([A-Za-z_]\w*)", f.read(), re.M)


def run_outputs(kdt, args, tmp):
    """Runs kdt with ARGS and --output-dir TMP/out; returns what must not depend on -j."""
    out = os.path.join(tmp, "out")
    proc = subprocess.run([kdt] + args + ["--output-dir", out], capture_output=True, text=True)
    files = {}
    if os.path.isdir(out):
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name), "rb") as f:
                files[name] = f.read()
    # The run summary (on stderr) gives the kernel's time, which may differ.
    stderr = [line for line in proc.stderr.splitlines() if not line.startswith("time:")]
    return proc.returncode, proc.stdout, stderr, files


def compare(label, kdt, args):
    """None when -j 1, -j 2 and -j 8 agree, else what differs."""
    results = []
    for jobs in JOBS:
        with tempfile.TemporaryDirectory() as tmp:
            results.append(run_outputs(kdt, args + ["-j", jobs], tmp))
    first = results[0]
    if first[0] not in (0, 1):
        return "-j 1 failed to run (%d): %s" % (first[0], first[2])
    for jobs, got in zip(JOBS[1:], results[1:]):
        for what, a, b in zip(("exit status", "standard output", "summary and diagnostics", "outputs"), first, got):
            if a != b:
                return "-j %s: %s differs from -j 1" % (jobs, what)
    return None


# Race-free kernels with shared parameters, add=true turns and block specs.
TSAN_KERNELS = [("tests/e2e/jobs/ordered_adds.kd", "ordered_adds"), ("samples/accumulate_blocks.kd", "accumulate_blocks"),
                ("samples/block_matmul.kd", "matmul"), ("samples/stencil.kd", None), ("samples/softmax.kd", None),
                ("samples/ring_exchange.kd", None), ("samples/scoped_barrier.kd", None),
                ("tests/e2e/jobs/gather_root.kd", None), ("tests/e2e/jobs/remote_adds.kd", None)]


def thread_sanitized(kdt, src):
    """Failures among TSAN_KERNELS run with -j 4 under ThreadSanitizer; None when it is not available."""
    failures = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, KDT_CACHE_DIR=cache, TSAN_OPTIONS="halt_on_error=1")
        for path, kernel in TSAN_KERNELS:
            for checks in ([], ["--no-checks"]):
                args = [kdt, "run", os.path.join(src, path), "--random-all", "-j", "4",
                        "--cxxflags=-fsanitize=thread"] + checks + (["--kernel", kernel] if kernel else [])
                with tempfile.TemporaryDirectory() as out:
                    proc = subprocess.run(args + ["--output-dir", out], capture_output=True, text=True, env=env)
                if proc.returncode != 0 and "ThreadSanitizer" not in proc.stderr and not failures and \
                        path == TSAN_KERNELS[0][0] and not checks:
                    print("skip ThreadSanitizer runs: the compiler cannot build with it:\n" + proc.stderr[-600:])
                    return None
                label = "tsan %s%s" % (path, " --no-checks" if checks else "")
                if proc.returncode != 0 or "ThreadSanitizer" in proc.stderr:
                    failures.append(label)
                    print("FAIL %s:\n%s" % (label, proc.stderr[-3000:]))
                else:
                    print("ok   %s" % label)
    return failures


def several_devices(path):
    with open(path, errors="replace") as f:
        return "devices(" in f.read()


def main():
    kdt, src = sys.argv[1], sys.argv[2]
    cases = []
    for folder in ("samples", "tests/e2e/regressions", "tests/e2e/jobs"):
        directory = os.path.join(src, folder)
        for name in sorted(os.listdir(directory)):
            if not name.endswith(".kd"):
                continue
            path = os.path.join(directory, name)
            for kernel in kernels(path):
                label, args = "%s/%s:%s" % (folder, name, kernel), ["run", path, "--random-all", "--kernel", kernel]
                cases.append((label, args))
                if several_devices(path):
                    cases.append((label + " --no-checks", args + ["--no-checks"]))
    diag = os.path.join(src, "tests/diag")
    for name in sorted(os.listdir(diag)):
        if not name.endswith(".kd"):
            continue
        path = os.path.join(diag, name)
        with open(path, errors="replace") as f:
            args = [line.split(":", 1)[1] for line in f if line.startswith("// ARGS:")]
        if not args:
            continue
        words = shlex.split(args[0])
        if not words or words[0] != "run":
            continue
        # The test's own --output-dir is replaced by a temporary one.
        if "--output-dir" in words:
            at = words.index("--output-dir")
            del words[at:at + 2]
        cases.append(("tests/diag/" + name, ["run", path] + words[1:]))
    failures = 0
    for label, args in cases:
        problem = compare(label, kdt, args)
        if problem:
            failures += 1
            print("FAIL %s: %s" % (label, problem))
        else:
            print("ok   %s" % label)
    print("%d of %d kernels the same with -j %s" % (len(cases) - failures, len(cases), ", ".join(JOBS)))
    tsan = thread_sanitized(kdt, src)
    if tsan:
        failures += len(tsan)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
