"""kdt from Python: KD kernels as functions of NumPy arrays (`kdt.load`) and
inside `jax.jit` (`kdt.jax.kernel`). See docs/python.md.

    import kdt
    mod = kdt.load("samples/accumulate_blocks.kd")
    out = mod.accumulate_blocks(x, out)
"""
from ._errors import CompileError, KernelError
from ._module import Kernel, Module, load

__all__ = ["load", "Module", "Kernel", "KernelError", "CompileError", "jax"]
__version__ = "0.1.0"


def __getattr__(name):
    # kdt.jax is imported on first use: NumPy users need no JAX.
    if name == "jax":
        import importlib

        return importlib.import_module(".jax", __name__)
    raise AttributeError(name)
