"""The Pallas seed case, and the same kernel through kdt inside jax.jit.

A Pallas TPU kernel accumulates each program's block of rows into one
output with an add=True DMA. `pallas_call(..., interpret=True)` cannot run
it ("DMA partial discharge add=True not yet implemented"). The KD kernel
samples/accumulate_blocks.kd is the same computation; kdt runs it on the
CPU, inside a jitted JAX function, with its run-time checks on.

    python python/examples/seed_case.py
"""
import os

import jax
import jax.numpy as jnp
import numpy as np

import kdt.jax

N, B = 1024, 128
HERE = os.path.dirname(os.path.abspath(__file__))
KD = os.path.join(HERE, "..", "..", "samples", "accumulate_blocks.kd")


def pallas_version(x, out):
    """The Pallas kernel (for reference; interpret=True fails on the add=True DMA)."""
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    def body(x_hbm, out_in, out_hbm, tile, sems):
        i = pl.program_id(0)
        load = pltpu.make_async_copy(x_hbm.at[pl.ds(i * B, B)], tile, sems.at[0])
        load.start()
        load.wait()
        tile[...] = tile[...] * 2.0
        store = pltpu.make_async_copy(tile, out_hbm, sems.at[1])
        store.start(add=True)  # accumulate into out: the seed case
        store.wait()

    return pl.pallas_call(
        body, out_shape=jax.ShapeDtypeStruct(out.shape, out.dtype), grid=(N // B,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((B, 256), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        input_output_aliases={1: 0}, interpret=True)(x, out)


accumulate_blocks = kdt.jax.kernel(KD, "accumulate_blocks")


@jax.jit
def model(x, out):
    return accumulate_blocks(x, out)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, 256), dtype=np.float32)
    out = rng.standard_normal((B, 256), dtype=np.float32)
    try:
        pallas_version(x, out)
        print("Pallas interpret mode ran the kernel")
    except Exception as e:  # what kdt exists for
        print("Pallas interpret mode: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:120]))
    got = model(x, out)
    want = out + 2 * jnp.sum(x.reshape(N // B, B, 256), axis=0)
    max_error = float(jnp.max(jnp.abs(got - want)))
    print("kdt inside jax.jit: max |error| against jnp = %.3g" % max_error)
