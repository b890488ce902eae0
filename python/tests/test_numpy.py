"""kdt.load: KD kernels on NumPy arrays, against NumPy and against `kdt run`."""
import os
import re
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np
import pytest

import kdt
from kdt import _build
from conftest import ROOT, sample

rng = np.random.default_rng(2026)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_seed_case_accumulates_and_updates_inout_in_place():
    mod = kdt.load(sample("accumulate_blocks.kd"))
    x, out = f32(1024, 256), f32(128, 256)
    want = out + 2 * x.reshape(8, 128, 256).sum(axis=0)
    got = mod.accumulate_blocks(x, out)
    assert got is out
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_matmul_softmax_layernorm_against_numpy():
    a, b = f32(512, 512), f32(512, 512)
    np.testing.assert_allclose(kdt.load(sample("matmul.kd")).matmul(a, b), a @ b, rtol=1e-4, atol=1e-3)
    x = f32(4096, 1024)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(kdt.load(sample("softmax.kd")).softmax(x), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-4, atol=1e-7)
    x, gamma, beta = f32(512, 256), f32(256), f32(256)
    y, rstd = kdt.load(sample("layernorm.kd")).layernorm(x, gamma, beta, 1e-5)
    mean = x.astype(np.float64).mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(rstd, 1 / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-5) * gamma + beta, rtol=1e-4, atol=1e-4)


def test_block_spec_matmul_in_bf16():
    mod = kdt.load(sample("block_matmul.kd"))
    a = f32(512, 512).astype(ml_dtypes.bfloat16)
    b = f32(512, 512).astype(ml_dtypes.bfloat16)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(mod.matmul_bf16(a, b), want, rtol=1e-3, atol=1e-2)


def kernels_of(path):
    with open(path) as f:
        return re.findall(r"^\s*kernel\s+([A-Za-z_]\w*)", f.read(), re.M)


def random_value(param):
    dtype = kdt._module.numpy_dtype(param["dtype"])
    shape = tuple(param.get("shape", ()))
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind in "iu":
        return rng.integers(0, 8, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


SAMPLES = [(name, k) for name in sorted(os.listdir(os.path.join(ROOT, "samples"))) if name.endswith(".kd")
           for k in kernels_of(os.path.join(ROOT, "samples", name))]


@pytest.mark.parametrize("name,kernel", SAMPLES, ids=["%s:%s" % s for s in SAMPLES])
def test_every_sample_agrees_with_kdt_run(name, kernel, tmp_path):
    """Each sample kernel on random inputs: kdt.load's outputs are bit for bit those of `kdt run` on the same inputs."""
    mod = kdt.load(sample(name))
    k = mod[kernel]
    args, cli = {}, []
    for p in k.params:
        if p["kind"] == "out":
            continue
        if p["kind"] == "scalar":
            value = {"bool": True}.get(p["dtype"], 3 if p["dtype"][0] in "iu" else 0.5)
            args[p["name"]] = value
            cli += ["--input", "%s=%s" % (p["name"], "true" if value is True else value)]
        else:
            value = random_value(p)
            npy = str(tmp_path / (p["name"] + ".npy"))
            np.save(npy, value)
            args[p["name"]] = value.copy()
            cli += ["--input", "%s=%s" % (p["name"], npy)]
    result = k(**args)
    outputs = [p for p in k.params if p["kind"] in ("inout", "out")]
    results = result if isinstance(result, tuple) else (result,)
    subprocess.run([_build.binary(), "run", sample(name), "--kernel", kernel, "--output-dir", str(tmp_path / "out")] + cli,
                   check=True, capture_output=True)
    for p, got in zip(outputs, results):
        want = np.load(str(tmp_path / "out" / (p["name"] + ".npy")))
        assert got.tobytes() == want.tobytes(), p["name"]


DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"]


def test_every_dtype_in_and_out(tmp_path):
    lines = []
    for t in DTYPES:
        if t == "bool":
            lines.append("kernel k_bool(x: in bool[64] @global, s: bool, y: out bool[64] @global) grid(1) "
                         "{ y[...] = x != s; }")
        else:
            lines.append("kernel k_%s(x: in %s[64] @global, s: %s, y: out %s[64] @global) grid(1) "
                         "{ y[...] = x + s; }" % (t, t, t, t))
    path = tmp_path / "dtypes.kd"
    path.write_text("\n".join(lines) + "\n")
    mod = kdt.load(str(path))
    for t in DTYPES:
        dtype = kdt._module.numpy_dtype(t)
        x = random_value({"dtype": t, "shape": [64]})
        if t == "bool":
            np.testing.assert_array_equal(mod["k_bool"](x, True), x != True)  # noqa: E712
            continue
        got = mod["k_" + t](x, 2)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.astype(np.float64), (x + dtype.type(2)).astype(np.float64))


def test_run_time_errors_raise_kernel_error_with_the_kd_location():
    race = kdt.load(os.path.join(ROOT, "tests/diag/fail_race_cross_program.kd"))
    with pytest.raises(kdt.KernelError) as e:
        race.k(np.ones((2, 4), np.float32), np.zeros(4, np.float32))
    assert e.value.code == "race"
    assert e.value.location[1:] == (5, 5)
    assert e.value.location[0].endswith("fail_race_cross_program.kd")
    assert "written by another program" in e.value.message
    assert e.value.diagnostic["code"] == "race" and e.value.diagnostic["notes"]
    oob = kdt.load(os.path.join(ROOT, "tests/diag/fail_out_of_bounds.kd"))
    k = next(iter(oob.kernels.values()))
    args = {p["name"]: (random_value(p) if p["kind"] != "scalar" else 0) for p in k.params if p["kind"] != "out"}
    with pytest.raises(kdt.KernelError) as e:
        k(**args)
    assert e.value.code == "out-of-bounds"
    assert e.value.location[1] > 0


def test_compile_errors_list_every_diagnostic(tmp_path):
    bad = tmp_path / "bad.kd"
    bad.write_text("kernel k(y: out f32[4] @global) grid(1) {\n  y[...] = z;\n  y[...] = w;\n}\n")
    with pytest.raises(kdt.CompileError) as e:
        kdt.load(str(bad))
    codes = [d["code"] for d in e.value.diagnostics]
    assert codes == ["undefined-name", "undefined-name"]
    assert "bad.kd:2:" in str(e.value) and "bad.kd:3:" in str(e.value)
    with pytest.raises(kdt.CompileError) as e:
        kdt.load(str(tmp_path / "missing.kd"))
    assert e.value.diagnostics[0]["code"] == "command-line"
    with pytest.raises(kdt.CompileError):
        kdt.load(sample("accumulate_blocks.kd"), defines={"NOPE": 1})


def test_bad_arguments_are_python_errors_not_crashes():
    mod = kdt.load(sample("accumulate_blocks.kd"))
    k = mod.accumulate_blocks
    x, out = f32(1024, 256), f32(128, 256)
    with pytest.raises(ValueError, match="expected shape"):
        k(x[:512], out)
    with pytest.raises(TypeError, match="does not convert dtypes"):
        k(x.astype(np.float64), out)
    with pytest.raises(TypeError, match="expected a NumPy array"):
        k(x.tolist(), out)
    with pytest.raises(ValueError, match="writable and C-contiguous"):
        k(x, np.asfortranarray(out))
    frozen = out.copy()
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        k(x, frozen)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        k(x, out, out)
    with pytest.raises(TypeError, match="missing argument `out`"):
        k(x)
    with pytest.raises(TypeError, match="no argument `y`"):
        k(x, out, y=1)
    with pytest.raises(AttributeError, match="no kernel"):
        mod.nope
    # A non-contiguous `in` array is copied: the result is the same.
    wide = np.zeros((1024, 512), np.float32)
    wide[:, ::2] = x
    a, b = out.copy(), out.copy()
    np.testing.assert_array_equal(k(wide[:, ::2], a), k(x, b))
    with pytest.raises(ValueError, match="jobs"):
        kdt.load(sample("accumulate_blocks.kd"), jobs=0)


def test_scalars_are_exact():
    mod = kdt.load(sample("dma_pipeline.kd"))
    k = next(iter(mod.kernels.values()))
    scalar = next(p for p in k.params if p["kind"] == "scalar")
    assert scalar["dtype"] == "f32"
    x = f32(2048, 256)
    np.testing.assert_allclose(k(x, 1.5), np.maximum(x, 0) * np.float32(1.5) + 1)
    with pytest.raises(TypeError, match="expected a number"):
        k(x, "1.5")
    dtypes = kdt.load(sample("hash_rng.kd"))
    for kk in dtypes.kernels.values():
        for p in kk.params:
            if p["kind"] == "scalar" and p["dtype"] == "u32":
                with pytest.raises(OverflowError):
                    kdt._module.scalar_value(p, -1, kk.name)


def test_options_reach_the_kernel_and_results_do_not_change():
    mod = kdt.load(sample("accumulate_blocks.kd"), jobs=1)
    x, out = f32(1024, 256), f32(128, 256)
    want = mod.accumulate_blocks(x, out.copy())
    for options in ({"jobs": 4}, {"dma_mode": "eager"}):
        k = mod.accumulate_blocks.with_options(**options)
        assert k(x, out.copy()).tobytes() == want.tobytes()
    # Another program order adds the blocks in another order: the same sums, rounded otherwise.
    shuffled = mod.accumulate_blocks.with_options(program_order="shuffle", seed=3)
    np.testing.assert_allclose(shuffled(x, out.copy()), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="dma_mode"):
        mod.accumulate_blocks.with_options(dma_mode="later")


def test_a_second_process_reuses_the_cache(kdt_cache):
    kdt.load(sample("ragged_edge.kd"))
    before = sorted(os.listdir(kdt_cache))
    code = ("import kdt, numpy as np; m = kdt.load(%r); x = np.arange(1000, dtype=np.float32); "
            "print(float(m.ragged_edge(x)[3]))" % sample("ragged_edge.kd"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, KDT_CACHE_DIR=kdt_cache,
                                   PYTHONPATH=os.path.dirname(os.path.dirname(kdt.__file__))))
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout) == 10.0
    assert sorted(os.listdir(kdt_cache)) == before
