"""kdt.jax.kernel on the compiled path (platform="cuda"): the CUDA output
with its XLA FFI handlers, compiled with nvcc and registered for JAX's CUDA
platform. Without nvcc these tests are skipped; without a GPU only the
build and registration are checked (the GPU check runs them)."""
import ctypes
import os
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kdt
import kdt.jax
from kdt import _build
from conftest import sample

NVCC = os.environ.get("NVCC") or shutil.which("nvcc") or (
    "/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
pytestmark = pytest.mark.skipif(NVCC is None, reason="CUDA-SKIPPED: no nvcc on this machine")
HAS_GPU = jax.default_backend() == "gpu"


def built(name, kernel=None):
    path = _build.build(sample(name), "cuda-xla-ffi", kernel=kernel, xla_include=jax.ffi.include_dir(), arch="sm_90")
    return path, ctypes.CDLL(path)


def test_the_library_has_a_cuda_handler_per_kernel():
    path, lib = built("layernorm.kd")
    info = _build.describe(lib)
    assert info["binding"] == "cuda-xla-ffi" and info["checks"] is False
    for k in info["kernels"]:
        assert k["symbol"] == "kdt_xla_cuda_" + k["name"]
        assert lib[k["symbol"]] is not None  # the handler symbol is exported
    # Built once per content hash: a second build is the cached file.
    assert built("layernorm.kd")[0] == path


def test_registered_for_jax_cuda_and_run_on_a_gpu():
    f = kdt.jax.kernel(sample("accumulate_blocks.kd"), "accumulate_blocks", platform="cuda", arch="sm_90")
    assert callable(f)
    if not HAS_GPU:
        pytest.skip("CUDA-SKIPPED: built and registered; no GPU to run it on")
    x = np.random.default_rng(3).standard_normal((1024, 256)).astype(np.float32)
    out = np.zeros((128, 256), np.float32)
    got = jax.jit(f)(x, out)
    np.testing.assert_allclose(np.asarray(got), x.reshape(8, 128, 256).sum(axis=0), rtol=1e-5, atol=1e-4)


def test_bf16_and_scalar_kernels_compile():
    built("block_matmul.kd", kernel="matmul_bf16")
    f = kdt.jax.kernel(sample("layernorm.kd"), platform="cuda", arch="sm_80")
    assert callable(f)


def test_devices_kernels_and_run_options_are_refused():
    with pytest.raises(kdt.CompileError, match="runs single-device kernels"):
        kdt.jax.kernel(sample("ring_exchange.kd"), platform="cuda", arch="sm_90")
    with pytest.raises(ValueError, match="apply to the CPU path"):
        kdt.jax.kernel(sample("accumulate_blocks.kd"), platform="cuda", arch="sm_90", dma_order="lifo")
    with pytest.raises(ValueError, match="platform must be"):
        kdt.jax.kernel(sample("accumulate_blocks.kd"), platform="tpu")
