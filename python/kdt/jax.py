"""`kdt.jax.kernel`: a KD kernel as a JAX function, usable inside `jax.jit`,
through an XLA FFI handler: on the CPU the interpretation path (`kdt build
--emit=xla-ffi`), on a CUDA GPU the compiled path (`kdt build
--emit=cuda-xla-ffi`, compiled with nvcc; single-device kernels).

    f = kdt.jax.kernel("samples/accumulate_blocks.kd", "accumulate_blocks")
    out = jax.jit(lambda x, out: f(x, out) * 2)(x, out)

The function takes the kernel's `in` and `inout` refs (arrays) and its
scalars (static: Python or NumPy numbers, not traced values), in the KD
parameter order; it returns the `inout` and `out` refs in parameter order
(one array or a tuple). JAX is functional: an `inout` is passed in and its
new value returned (XLA aliases the two buffers where it can). Shapes and
dtypes are checked against the KD signature when the function is traced.
`jax.vmap` is refused: a kernel's grid is its own batching.
"""
import hashlib

import jax
import numpy as np

from . import _build
from ._errors import KernelError
from ._module import bind_arguments, numpy_dtype, run_options, scalar_value

_registered = {}


def _target(library, symbol, platform):
    """Registers handler `symbol` of `library` with XLA once; returns the target's name."""
    key = (library, symbol)
    if key not in _registered:
        import ctypes

        lib = ctypes.CDLL(library)
        name = "kdt_%s_%s" % (hashlib.sha256(library.encode()).hexdigest()[:12], symbol)
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(lib[symbol]), platform=platform)
        _registered[key] = (name, lib)
    return _registered[key][0]


def _cuda_arch():
    """sm_XY of the first GPU JAX sees (compute capability X.Y), for nvcc."""
    capability = getattr(jax.devices("gpu")[0], "compute_capability", "9.0")
    return "sm_" + str(capability).replace(".", "")


def kernel(path, name=None, defines=None, include_dirs=(), checks=True, platform=None, arch=None, **options):
    """KD kernel `name` of file `path` (default: its first kernel) as a JAX function.

    defines, include_dirs and checks as for kdt.load; platform: "cpu" or
    "cuda" (default: JAX's default backend); arch: the GPU architecture for
    "cuda" (default: the first GPU's, e.g. sm_90). options (CPU only):
    dma_mode, dma_order, program_order, jobs (default 1: XLA runs its own
    threads), seed. Raises kdt.CompileError when kdt refuses the file (on
    "cuda": also without nvcc, or for a devices(N) kernel). A run-time check
    that fails raises kdt.KernelError in an eager call; inside jax.jit, JAX
    raises its runtime error, and kdt.jax.kernel_error_of(e) gives the
    KernelError in it. The compiled path has no run-time checks: a trap on
    the GPU is a CUDA error at JAX's next synchronisation.
    """
    if platform is None:
        platform = "cuda" if jax.default_backend() == "gpu" else "cpu"
    if platform not in ("cpu", "cuda"):
        raise ValueError("platform must be \"cpu\" or \"cuda\", got %r" % (platform,))
    cuda = platform == "cuda"
    if cuda and options:
        raise ValueError("run options (%s) apply to the CPU path; the compiled path has none" % ", ".join(sorted(options)))
    if not cuda and arch is not None:
        raise ValueError("arch applies to platform=\"cuda\"")
    options.setdefault("jobs", 1)
    numbers = run_options(**options)
    library = _build.build(path, "cuda-xla-ffi" if cuda else "xla-ffi", defines, include_dirs, checks, kernel=name,
                           xla_include=jax.ffi.include_dir(), arch=(arch or _cuda_arch()) if cuda else None)
    import ctypes

    info = _build.describe(ctypes.CDLL(library))
    kernels = {k["name"]: k for k in info["kernels"]}
    if name is None:
        name = info["kernels"][0]["name"]
    if name not in kernels:
        raise ValueError("%s has no kernel `%s`; its kernels: %s" % (path, name, ", ".join(kernels)))
    k = kernels[name]
    target = _target(library, k["symbol"], "CUDA" if cuda else "cpu")
    params = k["params"]
    attributes = {} if cuda else {
        "kdt_dma_mode": np.int32(numbers["dma_mode"]), "kdt_dma_order": np.int32(numbers["dma_order"]),
        "kdt_program_order": np.int32(numbers["program_order"]), "kdt_jobs": np.int32(numbers["jobs"]),
        "kdt_seed": np.int64(np.uint64(numbers["seed"]).astype(np.int64))}

    def call(*args, **kwargs):
        values = bind_arguments(name, params, args, kwargs)
        operands, results, aliases, attrs = [], [], {}, dict(attributes)
        for p in params:
            if p["kind"] == "scalar":
                value = values[p["name"]]
                if isinstance(value, jax.core.Tracer):
                    raise TypeError("kernel `%s`, scalar `%s`: a scalar is an attribute of the call and must be a "
                                    "Python or NumPy number, not a traced value (mark it static in jax.jit)" % (
                                        name, p["name"]))
                value = scalar_value(p, value, name)
                attrs[p["name"]] = np.float32(value) if p["dtype"] in ("f16", "bf16") else value
                continue
            dtype, shape = numpy_dtype(p["dtype"]), tuple(p["shape"])
            if p["kind"] != "out":
                value = values[p["name"]]
                got_shape, got_dtype = tuple(np.shape(value)), getattr(value, "dtype", None)
                what = "kernel `%s`, %s `%s`" % (name, p["kind"], p["name"])
                if got_dtype != dtype:
                    raise TypeError("%s: expected dtype %s, got %s; kdt does not convert dtypes" % (
                        what, p["dtype"], got_dtype))
                if got_shape != shape:
                    raise ValueError("%s: expected shape %s, got %s" % (what, list(shape), list(got_shape)))
                operands.append(value)
            if p["kind"] in ("inout", "out"):
                if p["kind"] == "inout":
                    aliases[len(operands) - 1] = len(results)
                results.append(jax.ShapeDtypeStruct(shape, dtype))

        ffi = jax.ffi.ffi_call(target, results, input_output_aliases=aliases, has_side_effect=True)

        @jax.custom_batching.custom_vmap
        def run(*ops):
            return ffi(*ops, **attrs)

        @run.def_vmap
        def _refuse(axis_size, in_batched, *ops):
            raise NotImplementedError("kdt kernel `%s` cannot be used under jax.vmap: its grid is its batching; "
                                      "give the kernel a grid axis (or a leading dimension) for the batch instead" % name)

        traced = any(isinstance(v, jax.core.Tracer) for v in operands)
        try:
            out = run(*operands)
            if not traced:
                jax.block_until_ready(out)  # a failed check raises here, as a KernelError
        except Exception as e:  # JAX's runtime error carries the diagnostic
            error = kernel_error_of(e)
            if error is None or traced:
                raise
            raise error from e
        return out[0] if len(out) == 1 else tuple(out)

    call.__name__ = name
    call.__doc__ = "KD kernel %s of %s through XLA FFI (kdt.jax.kernel)" % (name, path)
    return call


def kernel_error_of(exception):
    """The kdt.KernelError inside an error JAX raised for a failed kernel call, or None."""
    import json

    text = str(exception)
    marker = "kdt-diagnostic: "
    at = text.find(marker)
    if at < 0:
        return None
    try:
        d, _ = json.JSONDecoder().raw_decode(text[at + len(marker):])
    except ValueError:
        return None
    return KernelError(d.get("code", ""), d.get("message", ""), (d.get("file", ""), d.get("line", 0),
                                                                  d.get("column", 0)), d)
