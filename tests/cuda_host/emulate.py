#!/usr/bin/env python3
"""The compiled path run without a GPU: every kernel of the samples
(devices(N) ones included) that uses no inline PTX and no wgmma is emitted as
CUDA (sm_90; sm_90 with 100 threads per block; sm_80), its `__global__`
function compiled for the host against tests/cuda_host/kdt_cuda_host.h
(one fiber per CUDA thread; `__syncthreads()`, warp shuffles and polling
waits where they switch; bulk copies, cp.async and mbarriers modelled
with copies landing as late as the GPU may), run on NumPy inputs, and its
outputs compared with the interpretation path's (`kdt run`) on the same
inputs. Element loops, block-stride and register-tile layouts, barriers,
block and warp reductions, DMA queues and waits and the value runtime are
what this checks; a barrier some threads of a block do not reach, or a
wait that can never complete, fails the kernel.

  usage: emulate.py KDT SOURCE_DIR WORK_DIR
Prints EMULATION-SKIPPED (and passes) without the CUDA headers.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import run_regressions  # noqa: E402  (the regressions' RUN-INPUT and RUN-ARGS lines)
from kernel_io import CT, NP, compare, gen, host_shape, kernels_of, nbytes, scalar_expr, scalar_value  # noqa: E402

kdt, root, work = (os.path.abspath(a) for a in sys.argv[1:4])

# The samples. With a list, the kernels that must run here
# for sm_90 (a kernel dropping out, for instance because it starts using
# inline PTX, fails the test until the list says so); None: the sample has
# none that can.
EXPECTED = {
    "samples/accumulate_blocks": ["accumulate_blocks"],
    "samples/block_matmul": ["matmul", "matmul_bf16"],
    "samples/block_reduce": ["row_sums"],
    "samples/block_rows": ["layernorm", "softmax"],
    "samples/collatz": ["collatz"],
    "samples/dma_pipeline": ["dma_pipeline"],
    "samples/fifo_hazard": ["one_sem_per_slot", "relies_on_fifo"],
    "samples/generic_matmul": ["matmul", "matmul_direct"],
    "samples/hash_rng": ["hash_rng"],
    "samples/layernorm": ["layernorm"],
    "samples/matmul": ["matmul"],
    "samples/mixed_precision": ["bf16_matmul_gelu", "int8_matmul", "quantize_rows", "rope"],
    "samples/partial_accumulate": ["partial_accumulate"],
    "samples/ptx_fallback": None,
    "samples/ptx_translate": None,
    "samples/ragged_edge": ["ragged_edge", "ragged_rows"],
    "samples/reduction": ["row_stats", "tree_sum"],
    "samples/softmax": ["softmax"],
    "samples/stencil": ["stencil"],
    # devices(4), devices(x: 2, y: 4): every device's blocks at once
    "samples/all_gather": ["all_gather"],
    "samples/all_gather_steps": ["all_gather"],
    "samples/peer_scratch": ["peer_scratch"],
    "samples/remote_accumulate": ["remote_accumulate"],
    "samples/ring_allreduce": ["ring_allreduce"],
    "samples/ring_exchange": ["ring_exchange"],
    "samples/scoped_barrier": ["scoped_barrier"],
    "samples/mesh_allreduce": ["mesh_allreduce"],
    "samples/reduce_scatter": ["reduce_scatter"],
    # The compiled path's regression kernels that scripts/gpu-check runs
    # (their RUN-INPUT values and RUN-ARGS; outputs equal exactly).
    "tests/e2e/regressions/bf16_from_i64": ["bf16_from_i64"],
    "tests/e2e/regressions/many_in_flight": ["many_in_flight"],
    "tests/e2e/regressions/subnormal_adds_flushed": ["subnormal_adds"],
    "tests/e2e/regressions/reduce_order": ["reduce_order"],
    "tests/e2e/regressions/tensor_boxes": ["tensor_boxes"],
    "tests/e2e/regressions/tensor_subnormal_adds": ["tensor_subnormal_adds"]}
# Each sample is emitted for sm_90 (bulk copies, mbarriers; tensor maps not
# encoded, so their per-row bulk copies), for sm_90 with 100 threads per
# block (a partial last warp: block reductions over 3 whole warps and 4
# lanes, register slots whose last one is partly empty, no warp-per-row
# reductions, and `dot` on the per-thread loop) and for sm_80 (cp.async).
# (label, kdt options, KDT_CU_HOST)
VARIANTS = [("sm_90", ["--arch=sm_90"], 900), ("sm_90, 100 threads", ["--arch=sm_90", "--threads=100"], 900),
            ("sm_80", ["--arch=sm_80"], 800)]
# What the host model does not run.
UNSUPPORTED = ["asm volatile", "dot_wgmma", "nvshmem"]
def cuda_include():
    nvcc = shutil.which("nvcc")
    for base in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda", os.path.dirname(os.path.dirname(nvcc or ""))):
        if base and os.path.exists(os.path.join(base, "include", "cuda_fp16.h")):
            return os.path.join(base, "include")
    return None


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def cuda_kernels(text):
    """name -> (blocks, threads, shared bytes, sync bytes per device, C parameter
    names, the structs before the kernel and its __global__ function as text)."""
    found = {}
    for m in re.finditer(r"^((?:struct \w+ \{\n[^}]*\};\n)*)// Kernel `(\w+)`: grid \[[^\]]*\] = (\d+) blocks "
                         r"of (\d+) threads, (\d+) bytes of dynamic shared memory\.\n(__global__ void __launch_bounds__\(\d+\) "
                         r"(\w+)_kernel\(([^)]*)\)\n\{\n.*?\n\}\n)", text, re.M | re.S):
        params = [p.strip().split()[-1].lstrip("*") for p in m.group(8).split(",") if p.strip()]
        sync = re.search(r"constexpr size_t %s_sync_bytes = (\d+);" % m.group(7), text)
        # Each block's own shared memory (blocks of several devices run at once).
        body = m.group(6).replace("extern __shared__ __align__(128) unsigned char kdt_smem[];",
                                  "unsigned char* const kdt_smem = kdt_host::shared_memory();")
        found[m.group(2)] = (int(m.group(3)), int(m.group(4)), int(m.group(5)), int(sync.group(1)) if sync else 0,
                             params, m.group(1) + body)
    return found


def host_program(name, info, k):
    """The C++ of a host program running kernel `name` (kdt_host::launch):
    buffers per parameter, device-major, read from DIR/NAME.bin (`out`
    buffers filled with 0xFF bytes), outputs written to OUT/NAME.out."""
    blocks, threads, smem, sync_bytes, cparams, body = info
    byname = {p["name"]: p for p in k["params"]}
    nd = k["devices"]
    lines = ['#include "kdt_cuda_host.h"', "namespace kdt_kernels {", body, "}  // namespace kdt_kernels",
             "static char* load(const char* dir, const char* name, size_t n, bool read) {",
             "  char* p = static_cast<char*>(std::aligned_alloc(256, (n + 255) / 256 * 256 + 256));",
             "  std::memset(p, 0xFF, n);  // an element the kernel forgets to write shows as NaN or -1",
             "  if (!read) return p;",
             "  char path[4096]; std::snprintf(path, sizeof path, \"%s/%s.bin\", dir, name);",
             "  FILE* f = std::fopen(path, \"rb\");",
             "  if (!f || std::fread(p, 1, n, f) != n) { std::fprintf(stderr, \"cannot read %s\\n\", path); std::exit(3); }",
             "  std::fclose(f); return p;", "}",
             "int main(int, char** argv) {", "  const char* kdt_in_dir = argv[1];", "  const char* kdt_out_dir = argv[2];"]
    args, outputs, peer_lines = [], [], []
    for c in cparams:
        p = byname.get(c) or byname.get(c[len("kd_"):])
        if c == "kdt_tensor_maps":
            # No map encoded (ok == 0): tensor DMAs take their per-row bulk copies.
            lines.append("  kdt_kernels::%s_tensor_maps kdt_tensor_maps{};" % name)
            args.append(c)
        elif c == "kdt_peers":
            # What the devices(N) launcher gives: every device's buffers of
            # the refs written remotely, and zeroed sync buffers.
            peer_lines.append("  kdt_kernels::%s_peers kdt_peers{};" % name)
            peer_lines.append("  for (unsigned d = 0; d < %d; ++d) {" % nd)
            for field in re.findall(r"\* (\w+)\[%d\];" % nd, body[:body.index("__global__")]):
                if field == "sync":
                    peer_lines.append("    kdt_peers.sync[d] = static_cast<unsigned long long*>(std::calloc(%d + 8, 1));" % sync_bytes)
                else:
                    q = byname.get(field) or byname.get(field[len("kd_"):])
                    n = nbytes(q)
                    peer_lines.append("    kdt_peers.%s[d] = reinterpret_cast<%s*>(kdt_buf_%s + d * %d);" % (field, CT[q["dtype"]], field, n))
            peer_lines.append("  }")
            args.append(c)
        elif c == "kdt_device":
            args.append("static_cast<int32_t>(kdt_d)")
        elif p["shape"] is None:
            lines.append("  const %s %s = %s;" % (CT[p["dtype"]], c, scalar_expr(p)))
            args.append(c)
        else:
            n = nbytes(p)
            lines.append("  char* const kdt_buf_%s = load(kdt_in_dir, \"%s\", %d, %s);" %
                         (c, p["name"], n * nd, "false" if p["mode"] == "out" else "true"))
            args.append("reinterpret_cast<%s*>(kdt_buf_%s + kdt_d * %d)" % (CT[p["dtype"]], c, n))
            if p["mode"] != "in":
                outputs.append((c, p["name"], n * nd))
    lines += peer_lines  # after every buffer it names
    lines += ["  kdt_host::launch(%d, %d, %d, %d, [&](unsigned kdt_d) {" % (nd, blocks, threads, smem),
              "    kdt_kernels::%s_kernel(%s);" % (name, ", ".join(args)), "  });"]
    for c, kd_name, n in outputs:
        lines += ["  { char path[4096]; std::snprintf(path, sizeof path, \"%%s/%s.out\", kdt_out_dir);" % kd_name,
                  "    FILE* f = std::fopen(path, \"wb\"); std::fwrite(kdt_buf_%s, 1, %d, f); std::fclose(f); }" % (c, n)]
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def reference(sample, name, k):
    """Inputs (seed 0) as NAME.npy and NAME.bin in the kernel's folder, and
    the interpretation path's outputs in its ref/; an error message or None."""
    d = os.path.join(work, os.path.basename(sample) + "_" + name)
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(0)
    path = os.path.join(root, sample + ".kd")
    cmd = [kdt, "run", path, "--kernel", name, "--output-dir", os.path.join(d, "ref")]
    chosen = run_regressions.run_inputs(path)
    for args in run_regressions.directives(path, "RUN-ARGS"):
        cmd += args.split()
    for p in k["params"]:
        if p["shape"] is None:
            cmd += ["--input", "%s=%s" % (p["name"], scalar_value(p))]
        elif p["mode"] in ("in", "inout"):
            a = chosen[p["name"]] if p["name"] in chosen else gen(rng, p, host_shape(k, p))
            np.save(os.path.join(d, p["name"] + ".npy"), a)
            a.tofile(os.path.join(d, p["name"] + ".bin"))
            cmd += ["--input", "%s=%s" % (p["name"], os.path.join(d, p["name"] + ".npy"))]
    r = sh(cmd, cwd=d)
    return None if r.returncode == 0 else "kdt run failed: " + r.stderr.strip()


def emulate(sample, name, variant, info, k, include):
    """Builds and runs one kernel's host program; (passed, what was found)."""
    d = os.path.join(work, os.path.basename(sample) + "_" + name)
    exact = bool(run_regressions.run_inputs(os.path.join(root, sample + ".kd")))
    tag = str(VARIANTS.index(variant))
    src = os.path.join(d, "prog_%s.cpp" % tag)
    with open(src, "w") as f:
        f.write(host_program(name, info, k))
    exe = os.path.join(d, "prog_" + tag)
    r = sh(["g++", "-std=c++20", "-O1", "-w", "-DKDT_CU_HOST=%d" % variant[2], "-I" + os.path.join(root, "tests", "cuda_host"),
            "-I" + os.path.join(root, "include"), "-I" + include, src, "-o", exe])
    if r.returncode != 0:
        return False, "host build failed:\n" + r.stderr[-3000:]
    ok, notes = True, []
    # Several devices' blocks take turns: in order, then in two shuffled orders.
    for seed in [0, 1, 2] if k["devices"] > 1 else [0]:
        out = os.path.join(d, "out_%s_%d" % (tag, seed))
        os.makedirs(out, exist_ok=True)
        try:
            r = sh([exe, d, out], timeout=600, env=dict(os.environ, KDT_HOST_SEED=str(seed)))
        except subprocess.TimeoutExpired:
            return False, "timed out"
        if r.returncode != 0:
            return False, "status %d (seed %d): %s" % (r.returncode, seed, (r.stdout + r.stderr).strip()[-2000:])
        for p in k["params"]:
            if p["shape"] is None or p["mode"] == "in":
                continue
            shape = host_shape(k, p)
            ref = np.load(os.path.join(d, "ref", p["name"] + ".npy"))
            got = np.fromfile(os.path.join(out, p["name"] + ".out"), dtype=NP[p["dtype"]]).reshape(shape)
            if p["dtype"] == "bf16":
                ref = ref.view(np.uint16).reshape(shape)
            good, note = compare(p, ref, got, exact, rtol=1e-5)
            ok = ok and good
            if seed == 0 or not good:
                notes.append("%s%s: %s" % (p["name"], " (seed %d)" % seed if seed else "", note))
    return ok, "; ".join(notes)


def selfcheck(include):
    """The model's own checks (selfcheck.cpp): failures it must report, orders
    it must keep. Returns the failed cases."""
    exe = os.path.join(work, "selfcheck")
    r = sh(["g++", "-std=c++20", "-O1", "-w", "-DKDT_CU_HOST=900", "-I" + os.path.join(root, "tests", "cuda_host"),
            "-I" + os.path.join(root, "include"), "-I" + include, os.path.join(root, "tests", "cuda_host", "selfcheck.cpp"),
            "-o", exe])
    if r.returncode != 0:
        return ["selfcheck: build failed:\n" + r.stderr[-3000:]]
    failed = []
    for case, status, says in [("divergent_barrier", 71, "__syncthreads() after some threads returned"), ("barrier_orders", 0, ""),
                               ("copy_lands_at_wait", 0, ""), ("devices_deadlock", 71, "a deadlock")]:
        r = sh([exe, case], timeout=60)
        good = r.returncode == status and says in r.stderr
        print("%s selfcheck %s: status %d %s" % ("PASS" if good else "FAIL", case, r.returncode, r.stderr.strip()))
        if not good:
            failed.append("selfcheck " + case)
    return failed


def main():
    include = cuda_include()
    if include is None:
        print("EMULATION-SKIPPED: the CUDA headers (cuda_fp16.h) are not installed")
        return 0
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    refs, jobs, failures = {}, [], selfcheck(include)
    for sample in sorted(EXPECTED):
        path = os.path.join(root, sample + ".kd")
        irs = {k["name"]: k for k in kernels_of(kdt, path)}
        for variant in VARIANTS:
            cu = os.path.join(work, "%s_%d.cu" % (os.path.basename(sample), VARIANTS.index(variant)))
            r = sh([kdt, "--emit=cuda"] + variant[1] + [path, "-o", cu])
            if r.returncode != 0:
                failures.append("%s (%s): kdt --emit=cuda failed: %s" % (sample, variant[0], r.stderr.strip()))
                continue
            ran = []
            for name, info in sorted(cuda_kernels(open(cu).read()).items()):
                skip = [u for u in UNSUPPORTED if u in info[5]]
                if skip:
                    print("skip %s/%s (%s): uses %s" % (sample, name, variant[0], ", ".join(skip)))
                    continue
                refs[(sample, name)] = irs[name]
                jobs.append((sample, name, variant, info, irs[name]))
                ran.append(name)
            expected = EXPECTED[sample] or []
            if variant is VARIANTS[0] and sorted(expected) != sorted(ran):
                failures.append("%s: expected to emulate %s for sm_90, found %s" % (sample, expected, ran))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        made = dict(zip(refs, pool.map(lambda k: reference(k[0], k[1], refs[k]), refs)))
        results = list(pool.map(lambda j: (j, made[(j[0], j[1])] and (False, made[(j[0], j[1])]) or
                                           emulate(*j, include)), jobs))
    for (sample, name, variant, _, _), (ok, note) in results:
        print("%s %s/%s (%s): %s" % ("PASS" if ok else "FAIL", sample, name, variant[0], note))
        if not ok:
            failures.append("%s/%s (%s)" % (sample, name, variant[0]))
    print("emulated %d kernel builds, %d failed" % (len(results), len(failures)))
    for f in failures:
        print("failure: " + f)
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
