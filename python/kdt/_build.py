"""Finding the kdt binary and building a KD file into a shared library.

`kdt build` does the work: it emits the C ABI (or the XLA FFI handlers),
compiles them once per content hash into kdt's own cache (the one `kdt run`
uses: $KDT_CACHE_DIR, else ~/.cache/kdt) and prints the library's path.
"""
import json
import os
import shutil
import subprocess

from ._errors import CompileError

_HERE = os.path.dirname(os.path.abspath(__file__))


def binary():
    """The kdt binary: $KDT_BINARY, else the one in this package, else `kdt` on PATH."""
    env = os.environ.get("KDT_BINARY")
    if env:
        return env
    packaged = os.path.join(_HERE, "_bin", "kdt")
    if os.path.isfile(packaged) and os.access(packaged, os.X_OK):
        return packaged
    found = shutil.which("kdt")
    if found:
        return found
    raise FileNotFoundError("kdt: no kdt binary (set KDT_BINARY, or install the package with `pip install ./python`)")


def _define_args(defines):
    args = []
    for name, value in (defines or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise TypeError("defines: the value of %s must be an int (or its text), got %r" % (name, value))
        args += ["-D", "%s=%s" % (name, value)]
    return args


def build(path, binding, defines=None, include_dirs=(), checks=True, kernel=None, xla_include=None, arch=None):
    """The path of the shared library of `path` with `binding` ("c-api", "xla-ffi" or "cuda-xla-ffi")."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError("path must be a file name, got %r" % (path,))
    args = [binary(), "build", os.fspath(path), "--emit=" + binding, "--diagnostics-format=json"]
    args += _define_args(defines)
    for d in include_dirs or ():
        args += ["-I", os.fspath(d)]
    if not checks and binding != "cuda-xla-ffi":
        args.append("--no-checks")
    if kernel:
        args += ["--kernel", kernel]
    if xla_include:
        args += ["--xla-include", xla_include]
    if arch:
        args += ["--arch", arch]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError.from_kdt(os.fspath(path), proc.returncode, proc.stderr)
    return proc.stdout.strip().splitlines()[-1]


def describe(lib):
    """The module description a built library carries (kdt_module_json)."""
    import ctypes

    lib.kdt_module_json.restype = ctypes.c_char_p
    lib.kdt_module_json.argtypes = []
    return json.loads(lib.kdt_module_json().decode("utf-8"))
