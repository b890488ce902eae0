"""`kdt.load`: a KD file's kernels as Python functions of NumPy arrays,
through the C ABI of `kdt build --emit=c-api` (docs/c-api.md), loaded with
ctypes.

Calling convention (docs/python.md): the kernel's `in` and `inout` refs and
its scalars, in the KD parameter order, positionally or by name; `out` refs
are not passed, kdt allocates them. The call returns the `inout` and `out`
refs in parameter order (one array, a tuple of several, or None). An `inout`
array is updated in place, so it must be a writable C-contiguous array of
the parameter's dtype; an `in` array of the right dtype that is not
C-contiguous is copied. Dtypes are never converted: a float64 array for an
f32 parameter is a TypeError. With devices(N), N > 1, each ref has the
devices (or the mesh) as leading axes, as `kdt run` reads .npy files.
"""
import ctypes
import os

import numpy as np

from . import _build
from ._errors import KernelError


def numpy_dtype(kd):
    """The NumPy dtype of a KD dtype (bf16 is ml_dtypes.bfloat16)."""
    if kd == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype({"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
                     "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16,
                     "f32": np.float32, "f64": np.float64}[kd])


def scalar_value(param, value, kernel):
    """`value` as a NumPy scalar of the parameter's dtype, exactly for integers and bools."""
    dtype = numpy_dtype(param["dtype"])
    name = "kernel `%s`, scalar `%s` (%s)" % (kernel, param["name"], param["dtype"])
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if dtype == np.bool_:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError("%s: expected a bool, got %r" % (name, value))
        return np.bool_(value)
    if dtype.kind in "iu":
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError("%s: expected an integer, got %r" % (name, value))
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise OverflowError("%s: %d is out of range [%d, %d]" % (name, int(value), info.min, info.max))
        return dtype.type(int(value))
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, (bool, np.bool_)):
        raise TypeError("%s: expected a number, got %r" % (name, value))
    return dtype.type(value)


class _Options(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("dma_mode", ctypes.c_int32), ("dma_order", ctypes.c_int32),
                ("program_order", ctypes.c_int32), ("jobs", ctypes.c_int32), ("reserved", ctypes.c_uint32),
                ("seed", ctypes.c_uint64)]


class _Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_char * 64), ("file", ctypes.c_char * 1024), ("line", ctypes.c_int32),
                ("column", ctypes.c_int32), ("message", ctypes.c_char * 4096), ("json", ctypes.c_char * 16384)]


_DMA_MODES = {"on_wait": 0, "eager": 1}
_ORDERS = {"fifo": 0, "lifo": 1, "shuffle": 2}
_PROGRAM_ORDERS = {"forward": 0, "reverse": 1, "shuffle": 2}


def run_options(dma_mode="on_wait", dma_order="fifo", program_order="forward", jobs=None, seed=0):
    """The run options (as `kdt run` names them) as the ABI's numbers; jobs=None: every core."""
    for value, table, what in ((dma_mode, _DMA_MODES, "dma_mode"), (dma_order, _ORDERS, "dma_order"),
                               (program_order, _PROGRAM_ORDERS, "program_order")):
        if value not in table:
            raise ValueError("%s must be one of %s, got %r" % (what, ", ".join(table), value))
    if jobs is None:
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 4096:
        raise ValueError("jobs must be a number of threads from 1 to 4096, got %r" % (jobs,))
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
        raise ValueError("seed must be a whole number from 0 to 2**64 - 1, got %r" % (seed,))
    return {"dma_mode": _DMA_MODES[dma_mode], "dma_order": _ORDERS[dma_order],
            "program_order": _PROGRAM_ORDERS[program_order], "jobs": jobs, "seed": seed}


def bind_arguments(kernel, params, args, kwargs):
    """The values of the parameters a caller passes (in, inout, scalars), by name, in KD order."""
    passed = [p for p in params if p["kind"] != "out"]
    names = [p["name"] for p in passed]
    if len(args) > len(passed):
        raise TypeError("kernel `%s` takes %d arguments (%s), got %d" % (kernel, len(passed), ", ".join(names),
                                                                          len(args)))
    values = dict(zip(names, args))
    for name, value in kwargs.items():
        if name not in names:
            outs = [p["name"] for p in params if p["kind"] == "out"]
            why = " (an `out` parameter: kdt allocates it and returns it)" if name in outs else ""
            raise TypeError("kernel `%s` has no argument `%s`%s; its arguments: %s" % (kernel, name, why,
                                                                                  ", ".join(names)))
        if name in values:
            raise TypeError("kernel `%s`: argument `%s` given twice" % (kernel, name))
        values[name] = value
    missing = [n for n in names if n not in values]
    if missing:
        raise TypeError("kernel `%s`: missing argument%s %s" % (kernel, "s" if len(missing) > 1 else "",
                                                               ", ".join("`%s`" % m for m in missing)))
    return values


def check_array(kernel, param, value):
    """`value` as the array the kernel gets for ref `param` (a copy only for a non-contiguous `in`)."""
    dtype = numpy_dtype(param["dtype"])
    shape = tuple(param["shape"])
    what = "kernel `%s`, %s `%s`" % (kernel, param["kind"], param["name"])
    if not isinstance(value, np.ndarray):
        raise TypeError("%s: expected a NumPy array of %s%s, got %s" % (what, param["dtype"], list(shape),
                                                                         type(value).__name__))
    if value.dtype != dtype:
        raise TypeError("%s: expected dtype %s (%s), got %s; kdt does not convert dtypes" % (
            what, param["dtype"], dtype.name, value.dtype.name))
    if value.shape != shape:
        raise ValueError("%s: expected shape %s, got %s" % (what, list(shape), list(value.shape)))
    if param["kind"] == "inout":
        if not value.flags.c_contiguous or not value.flags.writeable:
            raise ValueError("%s: an inout array is updated in place, so it must be writable and C-contiguous "
                             "(np.ascontiguousarray makes one)" % what)
        return value
    return np.ascontiguousarray(value)


class Kernel:
    """One kernel of a loaded module: call it on arrays (see the module's doc)."""

    def __init__(self, module, info, function):
        self.name = info["name"]
        self.params = info["params"]
        self.grid = tuple(info["grid"])
        self.devices = info["devices"]
        self._module = module
        self._function = function
        self._options = module._options
        self.__doc__ = "kernel %s(%s) grid%s" % (self.name, ", ".join(
            "%s: %s %s%s" % (p["name"], p["kind"], p["dtype"], p.get("shape", "")) for p in self.params), self.grid)

    def with_options(self, **options):
        """This kernel with other run options (dma_mode, dma_order, program_order, jobs, seed)."""
        other = Kernel(self._module, {"name": self.name, "params": self.params, "grid": list(self.grid),
                                      "devices": self.devices}, self._function)
        merged = dict(self._module._option_names, **options)
        other._options = run_options(**merged)
        return other

    def __call__(self, *args, **kwargs):
        values = bind_arguments(self.name, self.params, args, kwargs)
        keep = []
        pointers = (ctypes.c_void_p * len(self.params))()
        results = []
        for i, p in enumerate(self.params):
            if p["kind"] == "out":
                array = np.zeros(tuple(p["shape"]), numpy_dtype(p["dtype"]))
                results.append(array)
            elif p["kind"] == "scalar":
                array = np.array(scalar_value(p, values[p["name"]], self.name))
            else:
                array = check_array(self.name, p, values[p["name"]])
                if p["kind"] == "inout":
                    results.append(array)
            keep.append(array)
            pointers[i] = array.ctypes.data
        options = _Options(ctypes.sizeof(_Options), **self._options)
        error = _Error()
        status = self._function(pointers, ctypes.byref(options), ctypes.byref(error))
        if status != 0:
            raise kernel_error(error)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)


def kernel_error(error):
    import json

    text = error.json.decode("utf-8", "replace")
    try:
        diagnostic = json.loads(text) if text else {}
    except ValueError:
        diagnostic = {}
    return KernelError(error.code.decode(), error.message.decode("utf-8", "replace"),
                       (error.file.decode("utf-8", "replace"), error.line, error.column), diagnostic)


class Module:
    """The kernels of a KD file, as attributes (`mod.accumulate_blocks`) and by name (`mod["k"]`)."""

    def __init__(self, path, library, options, option_names):
        self.path = path
        self.library_path = library
        self._lib = ctypes.CDLL(library)
        self._options = options
        self._option_names = option_names
        info = _build.describe(self._lib)
        self.checks = info["checks"]
        self.kernels = {}
        for k in info["kernels"]:
            function = self._lib[k["symbol"]]
            function.restype = ctypes.c_int
            function.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_Options), ctypes.POINTER(_Error)]
            self.kernels[k["name"]] = Kernel(self, k, function)

    def __getattr__(self, name):
        kernels = self.__dict__.get("kernels", {})
        if name in kernels:
            return kernels[name]
        raise AttributeError("%s has no kernel `%s`; its kernels: %s" % (self.path, name, ", ".join(kernels)))

    def __getitem__(self, name):
        return self.__getattr__(name)

    def __dir__(self):
        return list(self.kernels) + ["path", "kernels", "checks", "library_path"]


def load(path, defines=None, include_dirs=(), checks=True, **options):
    """Builds (once per content, into kdt's cache) and loads the kernels of KD file `path`.

    defines: {name: int} overrides `const`s (kdt -D); include_dirs: kdt -I;
    checks: the run-time checks (races, bounds, deadlocks...) on or off;
    options: dma_mode, dma_order, program_order, jobs (default: every core), seed.
    Raises CompileError when kdt refuses the file.
    """
    names = dict(options)
    parsed = run_options(**options)
    library = _build.build(path, "c-api", defines, include_dirs, checks)
    return Module(os.fspath(path), library, parsed, names)
