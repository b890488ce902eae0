#!/usr/bin/env python3
"""End-to-end tests of the interpretation path: every single-device sample
goes through `kdt run` (emit C++, compile, run) on inputs made here, and its
outputs are compared with results computed here independently with NumPy.

Usage: run_samples.py KDT_BINARY SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

KDT, SRC = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(1234)
failures = []
passed = 0


def run(sample, inputs, extra=(), kernel=None):
    """Runs kdt on SRC/samples/SAMPLE (or a path) with INPUTS (name -> array or scalar)."""
    tmp = tempfile.mkdtemp(prefix="kdt-e2e-")
    path = sample if os.path.isabs(sample) else os.path.join(SRC, "samples", sample)
    args = [KDT, "run", path, "--output-dir", tmp, "--random-all"]
    if kernel:
        args += ["--kernel", kernel]
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            path = os.path.join(tmp, "in_" + name + ".npy")
            np.save(path, value)
            args += ["--input", f"{name}={path}"]
        else:
            args += ["--input", f"{name}={value}"]
    args += list(extra)
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"kdt run {sample} failed ({proc.returncode}):\n{proc.stderr}")
    return lambda name: np.load(os.path.join(tmp, name + ".npy"))


def check(label, got, want, rtol=1e-5, atol=1e-6):
    global passed
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
        err = np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))) if got.shape == want.shape else "shape"
        failures.append(f"{label}: mismatch (max abs err {err})")
        print(f"FAIL {label}")
    else:
        passed += 1
        print(f"ok   {label}")


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def f32_to_bf16_bits(x):
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype("<u2")


def kdt_run_raw(args, env=None):
    return subprocess.run([KDT, "run", "--random-all"] + args, capture_output=True, text=True, env=env)


def expect(label, condition, detail=""):
    global passed
    if condition:
        passed += 1
        print(f"ok   {label}")
    else:
        failures.append(f"{label}: {detail}")
        print(f"FAIL {label}: {detail}")


# The modes and orders every multi-device sample runs in.
MULTI_DEVICE_RUNS = [("on_wait", order, dma_order) for order in ("forward", "reverse", "shuffle")
                     for dma_order in ("fifo", "lifo", "shuffle")] + \
                    [("eager", "forward", "lifo"), ("eager", "reverse", "shuffle"), ("eager", "shuffle", "fifo")]


def check_multi_device_runs(sample, inputs, output, want):
    """Runs SAMPLE.kd in every MULTI_DEVICE_RUNS mode and order; its OUTPUT must be WANT."""
    for mode, order, dma_order in MULTI_DEVICE_RUNS:
        o = run(sample + ".kd", inputs, ["--dma-mode", mode, "--program-order", order, "--dma-order", dma_order])
        check(f"{sample} {mode} {order} {dma_order}", o(output), want, rtol=1e-5, atol=1e-5)


ONLY = [n for n in os.environ.get("KDT_SAMPLES_ONLY", "").split(",") if n]  # for development: run these tests only


def test(fn):
    if ONLY and fn.__name__ not in ONLY:
        return fn
    try:
        fn()
    except AssertionError as e:
        failures.append(f"{fn.__name__}: {e}")
        print(f"FAIL {fn.__name__}: {e}")
    return fn


@test
def accumulate_blocks():
    x, out = f32(1024, 256), f32(128, 256)
    for mode in ("on_wait", "eager"):
        for order in ("forward", "reverse", "shuffle"):
            o = run("accumulate_blocks.kd", {"x": x, "out": out}, ["--dma-mode", mode, "--program-order", order])
            want = out.astype(np.float64) + 2 * x.reshape(8, 128, 256).astype(np.float64).sum(axis=0)
            check(f"accumulate_blocks {mode} {order}", o("out"), want.astype(np.float32), rtol=1e-5, atol=1e-5)


@test
def matmul():
    a, b = f32(512, 512), f32(512, 512)
    o = run("matmul.kd", {"A": a, "B": b})
    check("matmul", o("C"), (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32), rtol=1e-4, atol=1e-3)


@test
def softmax():
    x = f32(4096, 1024)
    o = run("softmax.kd", {"x": x})
    e = np.exp(x - x.max(axis=1, keepdims=True))
    check("softmax", o("y"), e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-7)


@test
def dma_pipeline():
    """A two-slot pipeline: silent and correct in both DMA modes and every program order."""
    x = f32(2048, 256)
    for mode in ("on_wait", "eager"):
        for order in ("forward", "reverse", "shuffle"):
            o = run("dma_pipeline.kd", {"x": x, "scale": 1.5}, ["--dma-mode", mode, "--program-order", order])
            check(f"dma_pipeline {mode} {order}", o("y"), np.maximum(x, 0) * np.float32(1.5) + 1)


@test
def ragged_edge():
    x = f32(1000)
    o = run("ragged_edge.kd", {"x": x})
    check("ragged_edge", o("y"), x * x + 1)
    m = f32(100, 64)
    o = run("ragged_edge.kd", {"m": m}, kernel="ragged_rows")
    check("ragged_rows", o("rowmax"), m.max(axis=1, keepdims=True))


@test
def layernorm():
    x, gamma, beta = f32(512, 256), f32(256), f32(256)
    eps = 1e-5
    o = run("layernorm.kd", {"x": x, "gamma": gamma, "beta": beta, "eps": eps})
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    check("layernorm y", o("y"), ((x64 - mean) * rstd * gamma + beta).astype(np.float32), rtol=1e-4, atol=1e-4)
    check("layernorm rstd", o("rstd"), rstd.astype(np.float32), rtol=1e-4, atol=1e-5)


@test
def reduction():
    x = f32(256, 2048)
    o = run("reduction.kd", {"x": x}, kernel="row_stats")
    x64 = x.astype(np.float64)
    check("reduction sums", o("sums"), x64.sum(axis=1).astype(np.float32), rtol=1e-4, atol=1e-3)
    check("reduction maxes", o("maxes"), x.max(axis=1))
    check("reduction mins", o("mins"), x.min(axis=1))


@test
def dma_modes_differ():
    x = f32(64)
    kd = os.path.abspath(os.path.join(SRC, "tests", "e2e", "dma_modes.kd"))
    # The race is on purpose: neither the run-time nor the static checks (section 18).
    unchecked = ["--no-checks", "--no-static-dma-checks"]
    eager = run(kd, {"x": x}, unchecked + ["--dma-mode", "eager"])
    on_wait = run(kd, {"x": x}, unchecked + ["--dma-mode", "on_wait"])
    check("dma_modes eager: data moved at dma_start", eager("early"), x)
    check("dma_modes on_wait: data moved at the wait", on_wait("early"), np.zeros(64, np.float32))
    check("dma_modes eager late", eager("late"), x)
    check("dma_modes on_wait late", on_wait("late"), x)


@test
def partial_accumulate():
    P, FR, HOP, C = 8, 16, 4, 32
    L = (P - 1) * HOP + FR
    frames, ola, stats = f32(P, FR, C), f32(L, C), f32(6, C)
    o = run("partial_accumulate.kd", {"frames": frames, "ola": ola, "stats": stats})
    f64 = frames.astype(np.float64)
    want = ola.astype(np.float64).copy()
    for p in range(P):
        want[p * HOP:p * HOP + FR] += f64[p]
    check("partial_accumulate ola", o("ola"), want.astype(np.float32), rtol=1e-5, atol=1e-5)
    s = stats.astype(np.float64).copy()
    s[0:4] += f64[:, 0:4].sum(axis=0)
    s[4] += 0.5 * f64[:, FR - 1].sum(axis=0)
    s[5] += f64.sum(axis=(0, 1))
    check("partial_accumulate stats", o("stats"), s.astype(np.float32), rtol=1e-5, atol=1e-4)


@test
def stencil():
    N, B = 8192, 512
    u, v = f32(N), f32(N)
    o = run("stencil.kd", {"u": u, "v": v})
    i = np.arange(N)
    left, right = u[np.maximum(i - 1, 0)], u[np.minimum(i + 1, N - 1)]
    want = 0.5 * v.astype(np.float64) + 0.5 * u + 0.25 * left + 0.25 * right
    check("stencil v", o("v"), want.astype(np.float32), rtol=1e-5, atol=1e-6)
    p = np.arange(N // B)
    halo = np.stack([u[np.maximum(p * B - 1, 0)], u[np.minimum(p * B + B, N - 1)]], axis=1)
    check("stencil halo", o("halo"), halo)


@test
def ptx_fallback():
    N = 2048
    x = (f32(N) * 40).astype(np.float32)
    x[:4] = [0.5, 1.5, 2.5, -0.5]  # halfway cases round to even
    y = f32(N)
    a = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    o = run("ptx_fallback.kd", {"x": x, "y": y, "a": a, "b": b})
    check("ptx_fallback sum", o("sum_out"), x + y)
    check("ptx_fallback exp2", o("exp2_out"), np.exp2(x.astype(np.float64)).astype(np.float32), rtol=1e-5, atol=1e-30)
    prod = a.astype(np.uint64) * b.astype(np.uint64)
    check("ptx_fallback lo", o("lo_out"), (prod & 0xFFFFFFFF).astype(np.uint32), rtol=0, atol=0)
    check("ptx_fallback hi", o("hi_out"), (prod >> 32).astype(np.uint32), rtol=0, atol=0)
    check("ptx_fallback round", o("round_out"), np.rint(x).astype(np.int32), rtol=0, atol=0)


@test
def hash_rng():
    N, seed = 1 << 14, 0x9E3779B9
    o = run("hash_rng.kd", {"seed": seed})
    h = np.arange(N, dtype=np.uint32) ^ np.uint32(seed)
    with np.errstate(over="ignore"):
        for _ in range(3):
            h ^= h >> np.uint32(16)
            h *= np.uint32(0x7FEB352D)
            h ^= h >> np.uint32(15)
            h *= np.uint32(0x846CA68B)
            h ^= h >> np.uint32(16)
    exact = dict(rtol=0, atol=0)
    check("hash_rng bits", o("bits"), h, **exact)
    check("hash_rng uniform", o("uniform"), (h >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24), **exact)
    check("hash_rng top", o("top"), (h >> np.uint32(24)).astype(np.uint8), **exact)
    check("hash_rng sign", o("sign"), np.where(h & 1, -1, 1).astype(np.int8), **exact)
    check("hash_rng low16", o("low16"), (~h & np.uint32(0xFFFF)).astype(np.uint16), **exact)
    check("hash_rng centred", o("centred"), h.astype(np.int64) - 2**31, **exact)


@test
def emitted_cpp_compiles_without_warnings():
    """Every sample's C++ (checks on and off, with the harness) compiles with
    -Wall -Wextra -Werror alone, without kdt installed."""
    tmp = tempfile.mkdtemp(prefix="kdt-warn-")
    for name in sorted(os.listdir(os.path.join(SRC, "samples"))):
        if not name.endswith(".kd") or name == "common.kd":
            continue
        for flags in ([], ["--no-checks"]):
            cpp = os.path.join(tmp, name + ".cpp")
            r = subprocess.run([KDT, "--emit=cpp", "--harness", os.path.join(SRC, "samples", name), "-o", cpp] + flags,
                               capture_output=True, text=True)
            c = subprocess.run(["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", cpp],
                               capture_output=True, text=True) if r.returncode == 0 else r
            expect(f"{name} {' '.join(flags)} compiles without warnings", c.returncode == 0, r.stderr + c.stderr[:2000])


@test
def collatz():
    n = np.array([1, 2, 3, 6, 7, 9, 27, 97, 871, 6171, 77031, 1, 5, 16, 31, 703], dtype=np.int32)
    limit = np.array([900], dtype=np.int32)

    def steps_of(v):
        count = 0
        while v > 1 and count < 1000:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            count += 1
        return count

    def halvings_of(total):
        count = 0
        while total > 0 and total > int(limit[0]):
            total //= 2
            count += 1
        return count

    steps = np.array([steps_of(int(v)) for v in n], dtype=np.int32)
    halvings = np.array([halvings_of(int(s) * 1000) for s in steps], dtype=np.int32)
    for mode in ("on_wait", "eager"):
        for order in ("forward", "reverse", "shuffle"):
            o = run("collatz.kd", {"n": n, "limit": limit}, ["--dma-mode", mode, "--program-order", order])
            check(f"collatz steps {mode} {order}", o("steps"), steps, rtol=0, atol=0)
            check(f"collatz halvings {mode} {order}", o("halvings"), halvings, rtol=0, atol=0)


@test
def fifo_hazard():
    """A pipeline correct only if DMAs sharing a semaphore finish in order is
    caught under lifo and shuffle; its fixed version passes in every order."""
    x = f32(8, 64)
    want = np.float32(2) * x
    sample = os.path.join(SRC, "samples", "fifo_hazard.kd")
    for mode in ("on_wait", "eager"):
        for order in ("fifo", "lifo", "shuffle"):
            o = run("fifo_hazard.kd", {"x": x}, ["--dma-mode", mode, "--dma-order", order], kernel="one_sem_per_slot")
            check(f"fifo_hazard fixed {mode} {order}", o("y"), want, rtol=0, atol=0)
        o = run("fifo_hazard.kd", {"x": x}, ["--dma-mode", mode, "--dma-order", "fifo"], kernel="relies_on_fifo")
        check(f"fifo_hazard relies_on_fifo {mode} fifo", o("y"), want, rtol=0, atol=0)
        for order, seed in (("lifo", "0"), ("shuffle", "0"), ("shuffle", "1")):
            r = kdt_run_raw([sample, "--kernel", "relies_on_fifo", "--output-dir", tempfile.mkdtemp(),
                             "--dma-mode", mode, "--dma-order", order, "--seed", seed])
            expect(f"fifo_hazard relies_on_fifo {mode} {order} seed {seed} is a race",
                   r.returncode == 1 and "[race]" in r.stderr and "fifo_hazard.kd:26:" in r.stderr, r.stderr[-500:])


@test
def ring_exchange():
    x = f32(4, 128, 64)
    for order in ("forward", "reverse", "shuffle"):
        o = run("ring_exchange.kd", {"x": x}, ["--program-order", order])
        prev = np.roll(x, 1, axis=0)  # device d receives x[d - 1]
        check(f"ring_exchange recv {order}", o("recv"), prev)
        check(f"ring_exchange mixed {order}", o("mixed"), np.float32(0.5) * (x + prev))


@test
def all_gather():
    # Every DMA order too: with one receive semaphore for all steps, a wait
    # in lifo order retired the neighbour's next block and the sample raced.
    x = f32(4, 32, 128)
    want = np.broadcast_to(x.reshape(1, 4 * 32, 128), (4, 4 * 32, 128))
    check_multi_device_runs("all_gather", {"x": x}, "out", want)


@test
def remote_accumulate():
    x, total = f32(4, 64, 128), f32(4, 64, 128)
    o = run("remote_accumulate.kd", {"x": x, "total": total})
    want = total.astype(np.float64).copy()
    want[0] += sum((d + 1) * x[d].astype(np.float64) for d in range(4))
    check("remote_accumulate", o("total"), want.astype(np.float32), rtol=1e-5, atol=1e-5)


@test
def run_inputs_and_outputs():
    tmp = tempfile.mkdtemp(prefix="kdt-e2e-")
    sample = os.path.join(SRC, "samples", "accumulate_blocks.kd")
    # A file of the wrong dtype or shape is refused with a clear error.
    np.save(os.path.join(tmp, "x64.npy"), np.zeros((1024, 256), np.float64))
    r = kdt_run_raw([sample, "--input", f"x={tmp}/x64.npy", "--output-dir", tmp])
    expect("wrong dtype refused", r.returncode == 2 and "dtype" in r.stderr and "'<f8'" in r.stderr, r.stderr)
    np.save(os.path.join(tmp, "xshape.npy"), np.zeros((1024, 255), np.float32))
    r = kdt_run_raw([sample, "--input", f"x={tmp}/xshape.npy", "--output-dir", tmp])
    expect("wrong shape refused", r.returncode == 2 and "shape" in r.stderr, r.stderr)
    # --cxx picks the compiler; a missing one is a clear error.
    env = dict(os.environ, KDT_CACHE_DIR=os.path.join(tmp, "cache"))
    r = kdt_run_raw([sample, "--output-dir", tmp, "--cxx", "/nonexistent/c++"], env)
    expect("--cxx missing compiler", r.returncode == 2 and "/nonexistent/c++" in r.stderr, r.stderr)
    # The cache is keyed by content and flags: same program once, -D makes another.
    for args in ([], [], ["-D", "B=64"]):
        r = kdt_run_raw([sample, "--output-dir", tmp] + args, env)
        expect("cached run " + " ".join(args), r.returncode == 0, r.stderr)
    cache = os.path.join(tmp, "cache")
    binaries = [e for e in os.listdir(cache) if os.path.exists(os.path.join(cache, e, "kernel"))]
    expect("two cached binaries for two programs", len(binaries) == 2, binaries)
    # json mode: the summary on stdout, exactly one JSON array on stderr.
    r = kdt_run_raw([sample, "--output-dir", tmp, "--diagnostics-format=json"], env)
    import json
    expect("json mode", r.returncode == 0 and json.loads(r.stderr) == [] and "checksum" in r.stdout, r.stderr)
    # bf16: `<u2` (or `<V2`) accepted, `<V2` written.
    a = f32_to_bf16_bits(rng.uniform(-1, 1, (64, 128)))
    b = f32_to_bf16_bits(rng.uniform(-1, 1, (128, 64)))
    np.save(os.path.join(tmp, "a.npy"), a)
    np.save(os.path.join(tmp, "b.npy"), b.view("V2"))
    r = kdt_run_raw([os.path.join(SRC, "samples", "mixed_precision.kd"), "--kernel", "bf16_matmul_gelu",
                     "--input", f"a={tmp}/a.npy", "--input", f"b={tmp}/b.npy", "--output-dir", tmp])
    y = np.load(os.path.join(tmp, "y.npy")) if r.returncode == 0 else None
    expect("bf16 in and out", y is not None and y.dtype.str == "|V2" and y.shape == (64, 64), r.stderr)


@test
def no_checks_runs_racy_kernel():
    """With --no-checks the race check is compiled out: the racy kernel completes."""
    global passed
    kd = os.path.abspath(os.path.join(SRC, "tests", "diag", "fail_race_read_in_flight.kd"))
    # The static checks (section 18) would refuse it before it runs: this is about the run-time ones.
    static_off = "--no-static-dma-checks"
    checked = subprocess.run([KDT, "run", kd, static_off, "--random-all", "--output-dir", tempfile.mkdtemp()],
                             capture_output=True, text=True)
    unchecked = subprocess.run([KDT, "run", kd, static_off, "--random-all", "--no-checks", "--output-dir",
                                tempfile.mkdtemp()], capture_output=True, text=True)
    if checked.returncode == 1 and "[race]" in checked.stderr and unchecked.returncode == 0:
        passed += 1
        print("ok   --no-checks removes the race check")
    else:
        failures.append("--no-checks: " + checked.stderr + unchecked.stderr)
        print("FAIL --no-checks removes the race check")


@test
def deterministic_summary():
    """The same multi-device run twice prints the same summary (but for the time)."""
    global passed
    args = [KDT, "run", os.path.join(SRC, "samples", "all_gather.kd"), "--random-all", "--output-dir", tempfile.mkdtemp()]
    runs = [subprocess.run(args, capture_output=True, text=True).stderr for _ in range(2)]
    strip = lambda text: [line for line in text.splitlines() if not line.startswith("time:")]
    if strip(runs[0]) == strip(runs[1]) and "checksum" in runs[0]:
        passed += 1
        print("ok   deterministic summary")
    else:
        failures.append("summaries differ:\n" + runs[0] + runs[1])
        print("FAIL deterministic summary")


@test
def deterministic():
    x = f32(4, 128, 64)
    a = run("ring_exchange.kd", {"x": x}, ["--program-order", "shuffle", "--seed", "3"])
    b = run("ring_exchange.kd", {"x": x}, ["--program-order", "shuffle", "--seed", "3"])
    for name in ("recv", "mixed"):
        check(f"deterministic {name}", a(name), b(name), rtol=0, atol=0)


@test
def ring_allreduce():
    """Reduce-scatter + all-gather around a ring of 4 devices: every device ends
    with the sum over devices, in every program order and DMA completion order."""
    x = f32(4, 64, 128)
    want = np.broadcast_to(x.astype(np.float64).sum(axis=0), x.shape).astype(np.float32)
    check_multi_device_runs("ring_allreduce", {"x": x}, "out", want)


@test
def generic_matmul():
    """One generic blocked matmul, run with the default T = bf16 and with -D T=f32."""
    def bf16_to_f32(bits):
        return (np.asarray(bits).view("<u2").astype(np.uint32) << 16).view(np.float32)

    # T = f32: against float64 NumPy, tight.
    a, b = f32(128, 128), f32(128, 128)
    want = a.astype(np.float64) @ b.astype(np.float64)
    o = run("generic_matmul.kd", {"a": a, "b": b}, ["-D", "T=f32"], kernel="matmul")
    check("generic_matmul f32 c", o("c"), want.astype(np.float32), rtol=1e-5, atol=1e-4)
    o = run("generic_matmul.kd", {"a": a, "b": b}, ["-D", "T=f32"], kernel="matmul_direct")
    check("generic_matmul f32 d", o("d"), want.astype(np.float32), rtol=1e-5, atol=1e-4)
    check("generic_matmul f32 d32", o("d32"), want.astype(np.float32), rtol=1e-5, atol=1e-4)
    # T = bf16 (default): bf16 inputs, f32 accumulation, against float64 NumPy
    # of the bf16-rounded inputs; bf16 results within bf16 rounding.
    abits = f32_to_bf16_bits(rng.uniform(-1, 1, (128, 128)))
    bbits = f32_to_bf16_bits(rng.uniform(-1, 1, (128, 128)))
    want = bf16_to_f32(abits).astype(np.float64) @ bf16_to_f32(bbits).astype(np.float64)
    o = run("generic_matmul.kd", {"a": abits, "b": bbits}, kernel="matmul")
    c = o("c")
    expect("generic_matmul bf16 c is bf16", c.dtype.itemsize == 2 and c.shape == (128, 128), str(c.dtype))
    check("generic_matmul bf16 c", bf16_to_f32(c), want, rtol=2**-8, atol=1e-3)
    o = run("generic_matmul.kd", {"a": abits, "b": bbits}, kernel="matmul_direct")
    check("generic_matmul bf16 d", bf16_to_f32(o("d")), want, rtol=2**-8, atol=1e-3)
    check("generic_matmul bf16 d32", o("d32"), want.astype(np.float32), rtol=1e-5, atol=1e-4)


@test
def mesh_allreduce():
    """A ring along y in each row, then along x, on a devices(x: 2, y: 4) mesh:
    every device ends with the sum of all 8 inputs ([2, 4, R, C], mesh-major)."""
    data = f32(2, 4, 8, 256)
    total = data.astype(np.float64).sum(axis=(0, 1))
    want = np.broadcast_to(total, data.shape).astype(np.float32)
    check_multi_device_runs("mesh_allreduce", {"data": data}, "out", want)


@test
def reduce_scatter():
    """Bidirectional reduce-scatter around the y rings of a devices(x: 2, y: 4)
    mesh: device (a, b) ends with the sum over its row of every block b."""
    partials = f32(2, 4, 4, 16, 128)  # [x, y, block, B, C]
    p64 = partials.astype(np.float64)
    want = np.empty((2, 4, 16, 128))
    for a in range(2):
        for b in range(4):
            want[a, b] = sum(p64[a, k, b] for k in range(4))
    check_multi_device_runs("reduce_scatter", {"partials": partials}, "out", want.astype(np.float32))



@test
def scoped_barrier():
    """A ring all-reduce on devices(4) whose step loop declares its own scratch
    and semaphores (run_scoped) and a double barrier: every device ends with
    the sum of all 4 inputs ([4, R, C], device-major)."""
    data = f32(4, 8, 256)
    total = data.astype(np.float64).sum(axis=0)
    want = np.broadcast_to(total, data.shape).astype(np.float32)
    check_multi_device_runs("scoped_barrier", {"data": data}, "out", want)


@test
def peer_scratch():
    """Remote copies into the right neighbour's scratch, one plain and one
    accumulating (add=true): y[d] = x[d] + 3 * x[left of d] ([4, P, C],
    device-major)."""
    x = f32(4, 4, 256)
    want = x + 3 * np.roll(x, 1, axis=0)
    check_multi_device_runs("peer_scratch", {"x": x}, "y", want)


# Section 13 (KD 0.2): named and sequential grid axes, block specs.
SINGLE_DEVICE_RUNS = [(mode, order, dma_order) for mode in ("on_wait", "eager")
                      for order in ("forward", "reverse", "shuffle") for dma_order in ("fifo", "lifo", "shuffle")]


def check_every_run(sample, inputs, outputs, runs, kernel=None, **tol):
    """Runs SAMPLE.kd in each (mode, order, dma_order) of RUNS; OUTPUTS maps
    each output name to what it must be."""
    for mode, order, dma_order in runs:
        o = run(sample + ".kd", inputs, ["--dma-mode", mode, "--program-order", order, "--dma-order", dma_order],
                kernel=kernel)
        for name, want in outputs.items():
            check(f"{sample} {kernel or ''} {name} {mode} {order} {dma_order}", o(name), want, **tol)


@test
def block_matmul():
    """JAX's TPU matmul op with block specs: f32, and bf16 inputs accumulated in f32."""
    a, b = f32(512, 512), f32(512, 512)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    check_every_run("block_matmul", {"a": a, "b": b}, {"c": want}, SINGLE_DEVICE_RUNS[::4], kernel="matmul",
                    rtol=1e-4, atol=1e-3)
    def bf16_to_f32(bits):
        return (np.asarray(bits).view("<u2").astype(np.uint32) << 16).view(np.float32)
    abits = f32_to_bf16_bits(rng.uniform(-1, 1, (512, 512)))
    bbits = f32_to_bf16_bits(rng.uniform(-1, 1, (512, 512)))
    want = bf16_to_f32(abits).astype(np.float64) @ bf16_to_f32(bbits).astype(np.float64)
    check_every_run("block_matmul", {"a": abits, "b": bbits}, {"c": want.astype(np.float32)}, SINGLE_DEVICE_RUNS[1::6],
                    kernel="matmul_bf16", rtol=1e-4, atol=1e-3)


@test
def block_rows():
    """Softmax and layernorm over blocks of whole rows."""
    x = f32(1024, 256)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    check_every_run("block_rows", {"x": x}, {"y": e / e.sum(axis=1, keepdims=True)}, SINGLE_DEVICE_RUNS[::3],
                    kernel="softmax", rtol=1e-4, atol=1e-7)
    gamma, beta, eps = f32(256), f32(256), 1e-5
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(((x64 - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    want = ((x64 - mean) * rstd * gamma + beta).astype(np.float32)
    check_every_run("block_rows", {"x": x, "gamma": gamma, "beta": beta, "eps": eps}, {"y": want},
                    SINGLE_DEVICE_RUNS[2::3], kernel="layernorm", rtol=1e-4, atol=1e-4)


@test
def block_reduce():
    """Row sums accumulated into an `out` block kept across the sequential steps."""
    x = f32(256, 1024)
    want = x.astype(np.float64).sum(axis=1, keepdims=True).astype(np.float32)
    check_every_run("block_reduce", {"x": x}, {"y": want}, SINGLE_DEVICE_RUNS, rtol=1e-5, atol=1e-4)


@test
def all_gather_steps():
    """The ring all-gather with the grid as its step loop (sequential s)."""
    x = f32(4, 32, 128)
    want = np.broadcast_to(x.reshape(1, 4 * 32, 128), (4, 4 * 32, 128))
    check_multi_device_runs("all_gather_steps", {"x": x}, "out", want)

print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
