"""What scripts/gpu-check and tests/cuda_host/emulate.py share about a
kernel's parameters: its signature from `kdt --emit=ir`, the NumPy and C++
types of each dtype, the inputs they generate (seed-driven) and how they
compare outputs with `kdt run`'s."""
import re
import subprocess

import numpy as np

NP = {"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
      "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16, "bf16": np.uint16,
      "f32": np.float32, "f64": np.float64}
CT = {"bool": "bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "u8": "uint8_t",
      "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t", "f16": "__half", "bf16": "__nv_bfloat16",
      "f32": "float", "f64": "double"}


def kernels_of(kdt, path):
    """Each kernel of `path`: name, devices (the product of a mesh's axes),
    mesh ([1] for one device) and parameters (name, dtype, shape — None for
    a scalar — and mode), from `kdt --emit=ir`."""
    ir = subprocess.run([kdt, "--emit=ir", path], capture_output=True, text=True).stdout
    out, cur = [], None
    for line in ir.splitlines():
        m = re.match(r"kernel @(\w+)(.*)", line)
        if m:
            # devices(4), or a mesh: devices(x: 2, y: 4) (the device count is the product).
            nd = re.search(r"devices\(([^)]*)\)", m.group(2))
            mesh = [int(a.split(":")[-1]) for a in nd.group(1).split(",")] if nd else [1]
            cur = {"name": m.group(1), "params": [], "devices": int(np.prod(mesh)), "mesh": mesh}
            out.append(cur)
            continue
        m = re.match(r"\s*param %(\w+): (\w+)(?:\[([^\]]*)\])?(?: @(\w+))?(?: (inout|in|out))?", line)
        if m and cur is not None:
            name, dt, shape, space, mode = m.groups()
            shape = [int(s) for s in shape.split(",")] if shape else None
            cur["params"].append({"name": name, "dtype": dt, "shape": shape, "mode": mode or "in"})
    return out


def host_shape(k, p):
    """The shape of a ref parameter's .npy/.bin files (spec section 15): mesh-major [D0, D1, ...] for a
    mesh of two or more axes, [N, ...] for devices(N), N > 1. In bytes both are linear-id-major."""
    if len(k["mesh"]) > 1:
        return k["mesh"] + p["shape"]
    return ([k["devices"]] if k["devices"] > 1 else []) + p["shape"]


def nbytes(p):
    """Bytes of one device's copy of a ref parameter."""
    return int(np.prod(p["shape"])) * np.dtype(NP[p["dtype"]]).itemsize


def gen(rng, p, shape):
    dt = p["dtype"]
    if dt in ("f32", "f64", "f16"):
        return rng.uniform(-1, 1, shape).astype(NP[dt])
    if dt == "bf16":
        return (rng.uniform(-1, 1, shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if dt == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    lo, hi = (0, 100) if dt.startswith("u") else (-50, 50)
    return rng.integers(lo, hi, shape).astype(NP[dt])


def scalar_value(p):
    return "1.5" if p["dtype"] in ("f16", "bf16", "f32", "f64") else "3"


def scalar_expr(p):
    """scalar_value(p) as a C++ expression of the parameter's type."""
    v, dt = scalar_value(p), p["dtype"]
    if dt == "f16":
        return "__float2half(%s)" % v
    if dt == "bf16":
        return "__float2bfloat16(%s)" % v
    return "%s(%s)" % (CT[dt], v)


def compare(p, ref, got, exact=False, rtol=1e-4):
    """(equal enough, what was found). `exact`: a regression's chosen values,
    equal (-0 == +0, NaN == NaN; bf16 bit for bit); otherwise integers
    exactly, floats within `rtol` (2e-2 for f16 and bf16) relative and
    absolute."""
    dt = p["dtype"]
    if exact:
        differ = got != ref
        if dt in ("f16", "f32", "f64"):
            differ &= ~(np.isnan(got) & np.isnan(ref))
        bad = int(np.count_nonzero(differ))
        return bad == 0, "%d elements differ (exact)" % bad
    if dt == "bf16":
        ref = (ref.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        got = (got.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    if dt in ("f16", "bf16", "f32", "f64"):
        tol = 2e-2 if dt in ("f16", "bf16") else rtol
        ok = np.allclose(got.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol, equal_nan=True)
        err = float(np.nanmax(np.abs(got.astype(np.float64) - ref.astype(np.float64)))) if ref.size else 0.0
        return ok, "max abs err %.3g" % err
    bad = int(np.count_nonzero(got != ref))
    return bad == 0, "%d elements differ" % bad
