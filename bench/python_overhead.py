#!/usr/bin/env python3
"""Call overhead of the Python package (issue 18), on a small kernel:
- the C entry point called directly (ctypes, arguments prepared once),
- the same kernel through kdt.load (argument checks, output allocation),
- the kernel through kdt.jax.kernel inside jax.jit, against a jitted
  function of the same shape without the kernel.
Alternated, repeated; min and median per call, in microseconds.

usage: python bench/python_overhead.py   (in a venv with kdt, jax installed)
"""
import ctypes
import os
import statistics
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

import kdt
import kdt.jax

SOURCE = """
kernel small(x: in f32[256] @global, y: out f32[256] @global) grid(1) {
    y[...] = x * 2.0 + 1.0;
}
"""


def per_call_us(f, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - t0) / calls * 1e6


def main():
    path = os.path.join(tempfile.mkdtemp(), "small.kd")
    with open(path, "w") as out:
        out.write(SOURCE)
    mod = kdt.load(path, jobs=1)
    k = mod.small
    x = np.arange(256, dtype=np.float32)
    y = np.zeros(256, np.float32)
    args = (ctypes.c_void_p * 2)(x.ctypes.data, y.ctypes.data)
    options = kdt._module._Options(ctypes.sizeof(kdt._module._Options), 0, 0, 0, 1, 0, 0)
    error = kdt._module._Error()
    direct = k._function
    f = kdt.jax.kernel(path, "small")
    with_kernel = jax.jit(lambda x: f(x) + 0.0)
    without = jax.jit(lambda x: x * 2.0 + 1.0)
    xj = jnp.asarray(x)
    cases = {
        "C entry (ctypes, args ready)": lambda: direct(args, ctypes.byref(options), ctypes.byref(error)),
        "kdt.load call": lambda: k(x),
        "jax.jit with kdt kernel": lambda: with_kernel(xj).block_until_ready(),
        "jax.jit without kernel": lambda: without(xj).block_until_ready(),
    }
    for case in cases.values():  # warm up: compile, caches
        per_call_us(case, 200)
    times = {name: [] for name in cases}
    for _ in range(15):
        for name, case in cases.items():
            times[name].append(per_call_us(case, 500))
    for name, t in times.items():
        print("%-30s min %8.2f us  median %8.2f us" % (name, min(t), statistics.median(t)))
    c = times["C entry (ctypes, args ready)"]
    p = times["kdt.load call"]
    j, w = times["jax.jit with kdt kernel"], times["jax.jit without kernel"]
    print("Python call over the C entry: min %.2f us, median %.2f us (target < 20 us)" % (
        min(p) - min(c), statistics.median(p) - statistics.median(c)))
    print("FFI call in jax.jit over the kernel's own time: min %.2f us, median %.2f us (target < 50 us)" % (
        min(j) - min(w) - min(c), statistics.median(j) - statistics.median(w) - statistics.median(c)))


if __name__ == "__main__":
    main()
