"""kdt.jax.kernel: KD kernels inside jax.jit on the CPU, against jax.numpy."""
import os

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import kdt
import kdt.jax
from conftest import ROOT, sample

rng = np.random.default_rng(7)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_seed_case_inside_jit_composed_with_jax():
    f = kdt.jax.kernel(sample("accumulate_blocks.kd"), "accumulate_blocks")
    x, out = f32(1024, 256), f32(128, 256)

    @jax.jit
    def step(x, out):
        y = f(jnp.tanh(x), out)
        return jnp.sum(y * 2.0, axis=0)

    want = jnp.sum((out + 2 * jnp.tanh(x).reshape(8, 128, 256).sum(axis=0)) * 2.0, axis=0)
    np.testing.assert_allclose(np.asarray(step(x, out)), np.asarray(want), rtol=1e-4, atol=1e-3)
    # The caller's array is not changed: JAX is functional.
    np.testing.assert_array_equal(out, out.copy())


def test_outputs_scalars_and_several_results():
    f = kdt.jax.kernel(sample("layernorm.kd"))
    x, gamma, beta = f32(512, 256), f32(256), f32(256)
    y, rstd = jax.jit(lambda x, g, b: f(x, g, b, 1e-5))(x, gamma, beta)
    mean = jnp.mean(x, axis=1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(rstd), np.asarray(1 / jnp.sqrt(var + 1e-5)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(y), np.asarray((x - mean) / jnp.sqrt(var + 1e-5) * gamma + beta),
                               rtol=1e-4, atol=1e-4)


def test_bf16_matmul():
    f = kdt.jax.kernel(sample("block_matmul.kd"), "matmul_bf16")
    a = jnp.asarray(f32(512, 512), jnp.bfloat16)
    b = jnp.asarray(f32(512, 512), jnp.bfloat16)
    got = jax.jit(f)(a, b)
    assert got.dtype == jnp.float32
    want = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-3, atol=1e-2)


def test_shapes_and_dtypes_are_checked_when_traced():
    f = kdt.jax.kernel(sample("accumulate_blocks.kd"))
    x, out = f32(1024, 256), f32(128, 256)
    with pytest.raises(ValueError, match="expected shape"):
        jax.jit(f)(x[:10], out)
    with pytest.raises(TypeError, match="expected dtype f32"):
        jax.jit(f)(x.astype(np.float16), out)
    with pytest.raises(NotImplementedError, match="cannot be used under jax.vmap"):
        jax.vmap(f)(np.stack([x, x]), np.stack([out, out]))
    g = kdt.jax.kernel(sample("dma_pipeline.kd"))
    with pytest.raises(TypeError, match="must be a Python or NumPy number"):
        jax.jit(lambda x, s: g(x, s))(f32(2048, 256), 1.5)
    with pytest.raises(kdt.CompileError, match="no such kernel"):
        kdt.jax.kernel(sample("accumulate_blocks.kd"), "nope")


def test_a_failed_check_is_a_kernel_error():
    f = kdt.jax.kernel(os.path.join(ROOT, "tests/diag/fail_race_cross_program.kd"))
    with pytest.raises(kdt.KernelError) as e:
        f(np.ones((2, 4), np.float32), np.zeros(4, np.float32))
    assert e.value.code == "race" and e.value.location[1:] == (5, 5)
    with pytest.raises(Exception) as e:
        jax.block_until_ready(jax.jit(f)(np.ones((2, 4), np.float32), np.zeros(4, np.float32)))
    error = kdt.jax.kernel_error_of(e.value)
    assert error is not None and error.code == "race"


def test_the_pallas_shaped_example_runs():
    import runpy

    result = runpy.run_path(os.path.join(ROOT, "python", "examples", "seed_case.py"), run_name="__main__")
    assert result["max_error"] < 1e-4
    # What the example shows: Pallas's interpreter (jax 0.10) cannot run the
    # accumulating DMA; a later JAX that can must agree with kdt.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1024, 256), dtype=np.float32)
    out = rng.standard_normal((128, 256), dtype=np.float32)
    try:
        pallas = result["pallas_version"](x, out)
    except NotImplementedError as e:
        assert "add=True" in str(e)
    else:
        np.testing.assert_allclose(np.asarray(pallas), np.asarray(result["model"](x, out)), rtol=1e-5, atol=1e-5)
