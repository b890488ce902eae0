#!/usr/bin/env python3
"""Every sample kernel's emitted C++, built with -fsanitize=address,undefined
(-fno-sanitize-recover=all) and run through `kdt run` with checks on, on
seeded inputs: no sanitizer report, no failure (issue 8, item 5).

usage: sanitize_samples.py KDT SOURCE_DIR
"""
import concurrent.futures
import os
import re
import stat
import subprocess
import sys
import tempfile


def kernels_of(kdt, path):
    """(kernel, [scalar parameters]) of a file, from its IR. The IR names
    things by their C++-safe names; the samples use plain ones."""
    ir = subprocess.run([kdt, "--emit=ir", path], capture_output=True, text=True, check=True).stdout
    out = []
    for line in ir.splitlines():
        m = re.match(r"kernel @(\w+)", line)
        if m:
            out.append((m.group(1), []))
        m = re.match(r"\s*param %(\w+): \w+$", line)
        if m and out:
            out[-1][1].append(m.group(1))
    return out


def main():
    kdt, src = sys.argv[1], sys.argv[2]
    samples = os.path.join(src, "samples")
    failures = runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        cxx = os.path.join(tmp, "sanitizing-c++")
        with open(cxx, "w") as f:
            f.write('#!/bin/sh\nexec c++ -fsanitize=address,undefined -fno-sanitize-recover=all '
                    '-fno-omit-frame-pointer "$@"\n')
        os.chmod(cxx, os.stat(cxx).st_mode | stat.S_IEXEC)
        env = dict(os.environ, ASAN_OPTIONS="abort_on_error=1:detect_leaks=1",
                   UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
        env.setdefault("KDT_CACHE_DIR", os.path.join(tmp, "cache"))
        jobs = []
        for name in sorted(os.listdir(samples)):
            if not name.endswith(".kd"):
                continue
            path = os.path.join(samples, name)
            for kernel, scalars in kernels_of(kdt, path):
                out = os.path.join(tmp, name + "." + kernel)
                cmd = [kdt, "run", path, "--kernel", kernel, "--cxx", cxx, "--output-dir", out, "--random-all"]
                for scalar in scalars:  # 1 satisfies every sample's asserts (a positive eps, a scale)
                    cmd += ["--input", scalar + "=1"]
                jobs.append(("%s/%s" % (name, kernel), cmd))

        def run(job):
            return subprocess.run(job[1], capture_output=True, text=True, env=env)

        # Two at a time: each is mostly one sanitized compile of its kernel.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for (label, _), r in zip(jobs, pool.map(run, jobs)):
                runs += 1
                report = "Sanitizer" in r.stderr or "runtime error" in r.stderr
                if r.returncode != 0 or report:
                    failures += 1
                    print("FAIL %s (exit %d)\n%s" % (label, r.returncode, r.stderr[-3000:]))
                else:
                    print("ok   %s" % label)
    print("%d kernels run under ASan + UBSan, %d failures" % (runs, failures))
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
