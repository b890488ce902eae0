#!/usr/bin/python3
"""Writes the seed corpus of fuzz_npy into seeds/npy/ (run with Debian's
python3, which has numpy): small arrays of every dtype kdt reads, each
format version, a 0-d array, an empty array, and a few files the reader
must refuse. The files are committed; rerun this after changing it."""
import io
import os
import sys

import numpy as np

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "npy")
os.makedirs(out, exist_ok=True)


def save(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def npy(arr, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, arr)
    else:
        np.lib.format.write_array(buf, arr, version=version)
    return buf.getvalue()


rng = np.random.default_rng(8)
for dtype in ["bool", "i1", "<i2", "<i4", "<i8", "u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8"]:
    arr = (rng.integers(-3, 4, size=(2, 3))).astype(dtype)
    save("arr_%s.npy" % np.dtype(dtype).str.replace("<", "le").replace("|", "na"), npy(arr))
# bf16 as raw bit patterns, as ml_dtypes writes it ('<V2').
save("bf16_v2.npy", npy(np.zeros(4, dtype="V2")))
save("f4_0d.npy", npy(np.float32(1.5)))
save("empty.npy", npy(np.zeros((0, 3), dtype="<f4")))
save("f4_v2.npy", npy(np.arange(3, dtype="<f4"), version=(2, 0)))
save("f4_v3.npy", npy(np.arange(3, dtype="<f4"), version=(3, 0)))
save("f4_3d.npy", npy(np.arange(24, dtype="<f4").reshape(2, 3, 4)))
# Refused: Fortran order, big-endian, truncated data.
save("fortran.npy", npy(np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3))))
save("big_endian.npy", npy(np.arange(3, dtype=">i4")))
save("truncated.npy", npy(np.arange(8, dtype="<i4"))[:-5])
print("wrote %d seeds to %s" % (len(os.listdir(out)), out), file=sys.stderr)
