#!/usr/bin/env python3
"""Property test of DMA discharge.

Generates ONE KD kernel holding many random DMA cases -- every numeric dtype
(f16 and bf16 included), ranks 1-3, views made of full dimensions, static
slices, dynamic `ds` slices and dropped dimensions (static and dynamic
indices), so that many views are strided -- with `add` on and off. All DMAs
start first and then retire in order on one semaphore (each wait retiring
the oldest DMA, byte counts differing). The kernel runs through `kdt run`
in both DMA modes; the expected destinations are computed here, element by
element with NumPy, independently of kdt's view code.

Usage: dma_property.py KDT_BINARY [SEED] [CASES]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

KDT = sys.argv[1]
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 7
CASES = int(sys.argv[3]) if len(sys.argv) > 3 else 48
rng = np.random.default_rng(SEED)

DTYPES = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64,
}


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    """Round float32 to bfloat16 bits, to nearest even (finite inputs)."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    lsb = (b >> 16) & 1
    return ((b + 0x7FFF + lsb) >> 16).astype(np.uint16)


def random_values(dtype, shape):
    if dtype == "bf16":
        return f32_to_bf16(rng.uniform(-4, 4, shape).astype(np.float32))
    t = DTYPES[dtype]
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        # Full range, so that accumulation wraps around.
        return rng.integers(info.min, info.max, shape, dtype=t, endpoint=True)
    return rng.uniform(-4, 4, shape).astype(t)


def accumulate(dtype, dst, src):
    if dtype == "bf16":
        return f32_to_bf16(bf16_to_f32(dst) + bf16_to_f32(src))
    if dtype == "f16":
        return (dst.astype(np.float32) + src.astype(np.float32)).astype(np.float16)
    with np.errstate(over="ignore"):
        return dst + src  # NumPy integer addition wraps, as KD's does


class Case:
    """One DMA: src ref + view, dst ref + view of the same view shape."""

    def __init__(self, index):
        self.index = index
        self.dtype = str(rng.choice(list(DTYPES)))
        self.add = bool(rng.integers(0, 2))
        rank = int(rng.integers(1, 4))
        self.view_shape = [int(rng.integers(1, 6)) for _ in range(rank)]
        self.scalars = []  # (name, value) of dynamic starts
        self.src_shape, self.src_entries = self.make_view("s")
        self.dst_shape, self.dst_entries = self.make_view("d")

    def make_view(self, side):
        """A ref shape and index entries whose view has self.view_shape."""
        shape, entries = [], []
        view_dims = list(self.view_shape)
        while view_dims or (len(shape) < 4 and rng.random() < 0.25):
            if not view_dims or rng.random() < 0.2:
                # A dropped dimension: a static or a dynamic index.
                size = int(rng.integers(1, 5))
                index = int(rng.integers(0, size))
                if rng.random() < 0.5:
                    entries.append(("index", index, str(index)))
                else:
                    name = self.scalar(side, index)
                    entries.append(("index", index, name))
                shape.append(size)
                continue
            n = view_dims.pop(0)
            kind = rng.choice(["full", "static", "dynamic"])
            if kind == "full":
                shape.append(n)
                entries.append(("range", 0, ":"))
            else:
                size = n + int(rng.integers(0, 4))
                start = int(rng.integers(0, size - n + 1))
                shape.append(size)
                if kind == "static":
                    entries.append(("range", start, f"{start}:{start + n}"))
                else:
                    entries.append(("range", start, f"ds({self.scalar(side, start)}, {n})"))
        return shape, entries

    def scalar(self, side, value):
        name = f"{side}{self.index}_{len(self.scalars)}"
        self.scalars.append((name, value))
        return name

    def kd_view(self, ref, entries):
        return f"{ref}[{', '.join(text for _, _, text in entries)}]"

    def numpy_index(self, entries):
        idx = []
        for kind, start, text in entries:
            if kind == "index":
                idx.append(start)
            elif text == ":":
                idx.append(slice(None))
            else:
                size = int(text.split(",")[1].strip(" )")) if text.startswith("ds(") else \
                    int(text.split(":")[1]) - start
                idx.append(slice(start, start + size))
        return tuple(idx)


def main():
    cases = [Case(i) for i in range(CASES)]
    params, starts, waits = [], [], []
    for c in cases:
        dims_s = ", ".join(map(str, c.src_shape))
        dims_d = ", ".join(map(str, c.dst_shape))
        params.append(f"src{c.index}: in {c.dtype}[{dims_s}] @global")
        params.append(f"dst{c.index}: inout {c.dtype}[{dims_d}] @global")
        params += [f"{name}: i32" for name, _ in c.scalars]
        add_kw = ", add=true" if c.add else ""
        starts.append(f"    dma_start({c.kd_view(f'src{c.index}', c.src_entries)}, "
                      f"{c.kd_view(f'dst{c.index}', c.dst_entries)}, s{add_kw});")
        waits.append(f"    dma_wait(s, {c.kd_view(f'dst{c.index}', c.dst_entries)});")
    program = ("// Generated by tests/e2e/dma_property.py (seed %d).\n" % SEED +
               "kernel dma_cases(\n    " + ",\n    ".join(params) + ",\n) grid(1) {\n    sem s: dma;\n" +
               "\n".join(starts) + "\n" + "\n".join(waits) + "\n}\n")
    tmp = tempfile.mkdtemp(prefix="kdt-dma-")
    kd = os.path.join(tmp, "dma_cases.kd")
    with open(kd, "w") as f:
        f.write(program)
    args = [KDT, "run", kd, "--random-all"]
    inputs = {}
    for c in cases:
        src = random_values(c.dtype, c.src_shape)
        dst = random_values(c.dtype, c.dst_shape)
        inputs[c.index] = (src, dst)
        for name, arr in ((f"src{c.index}", src), (f"dst{c.index}", dst)):
            path = os.path.join(tmp, name + ".npy")
            np.save(path, arr)
            args += ["--input", f"{name}={path}"]
        for name, value in c.scalars:
            args += ["--input", f"{name}={value}"]
    failures = 0
    for mode in ("on_wait", "eager"):
        out = os.path.join(tmp, mode)
        proc = subprocess.run(args + ["--output-dir", out, "--dma-mode", mode], capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"FAIL kdt run ({mode}): {proc.stderr}\n{program}")
            return 1
        for c in cases:
            src, dst = inputs[c.index]
            want = dst.copy()
            si, di = c.numpy_index(c.src_entries), c.numpy_index(c.dst_entries)
            want[di] = accumulate(c.dtype, want[di], src[si]) if c.add else src[si]
            got = np.load(os.path.join(out, f"dst{c.index}.npy"))
            if got.dtype.kind == "V":
                got = got.view(np.uint16)
            # Exact comparison: every case is bit-for-bit determined.
            if got.shape != want.shape or got.tobytes() != want.tobytes():
                failures += 1
                print(f"FAIL case {c.index} ({mode}): {c.dtype} add={c.add} "
                      f"{c.kd_view('src', c.src_entries)} -> {c.kd_view('dst', c.dst_entries)}")
    kinds = sorted({c.dtype for c in cases})
    print(f"{2 * len(cases) - failures} passed, {failures} failed "
          f"({len(cases)} DMA cases x 2 modes; dtypes {' '.join(kinds)})")
    return 1 if failures else 0


sys.exit(main())
