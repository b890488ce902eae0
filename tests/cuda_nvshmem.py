#!/usr/bin/env python3
"""--emit=cuda --devices=nvshmem (issue 20): every devices(N) sample's CUDA,
compiled with nvcc (-rdc=true) against the NVSHMEM headers and linked with
its host and device libraries (the nvidia-nvshmem-cu13 wheel that
scripts/setup-cuda-tools.sh installs into BUILD/cuda-tools, or
$KDT_NVSHMEM_HOME) into a program that calls the kernel's launcher. The
emitted code must use NVSHMEM's puts, signals, waits and collective launch.
Not run: no GPU is needed here (scripts/gpu-check runs them where one is).
Skipped (NVSHMEM-SKIPPED) without nvcc or NVSHMEM.

usage: cuda_nvshmem.py KDT SOURCE_DIR BUILD_DIR
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAIN = """#include KERNEL_FILE
int main() {
  // Every PE would call the launcher with its symmetric buffers; here it is only linked.
  nvshmem_init();
  auto launch = &kdt_kernels::KERNEL_NAME;
  (void)launch;
  nvshmem_finalize();
  return 0;
}
"""


def find_nvcc():
    for c in (os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if c and os.path.exists(c):
            return c
    return None


def find_nvshmem(build):
    home = os.environ.get("KDT_NVSHMEM_HOME")
    if home:
        return home
    found = glob.glob(os.path.join(build, "cuda-tools", "lib", "python3*", "site-packages", "nvidia", "nvshmem"))
    return found[0] if found else None


def main():
    kdt, src, build = sys.argv[1:4]
    nvcc, home = find_nvcc(), find_nvshmem(build)
    if not nvcc or not home or not os.path.exists(os.path.join(home, "include", "nvshmem.h")):
        print("NVSHMEM-SKIPPED: nvcc %s, NVSHMEM %s (scripts/setup-cuda-tools.sh installs it where nvcc is)" % (nvcc, home))
        return 0
    host_lib = sorted(glob.glob(os.path.join(home, "lib", "libnvshmem_host.so*")))[0]
    samples = sorted(f for f in glob.glob(os.path.join(src, "samples", "*.kd")) if "devices(" in open(f).read())
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        main_cu = os.path.join(tmp, "main.cu")
        with open(main_cu, "w") as f:
            f.write(MAIN)
        for path in samples:
            name = os.path.splitext(os.path.basename(path))[0]
            cu = os.path.join(tmp, name + ".cu")
            p = subprocess.run([kdt, "--emit=cuda", "--devices=nvshmem", path, "-o", cu], capture_output=True, text=True)
            if p.returncode != 0:
                failures.append("%s: kdt: %s" % (name, p.stderr))
                continue
            text = open(cu).read()
            launcher = re.findall(r"inline cudaError_t (\w+)\(", text)[-1]
            wanted = ["nvshmemx_collective_launch(", "kdt_cu::signal_pe(", "kdt_cu::wait_pe(", "nvshmem_malloc("]
            missing = [w for w in wanted if w not in text]
            if missing:
                failures.append("%s: the output lacks %s" % (name, missing))
            cmd = [nvcc, "-std=c++17", "-rdc=true", "-arch=sm_90", "-diag-suppress", "550", "-I", os.path.join(home, "include"),
                   '-DKERNEL_FILE="%s"' % cu, "-DKERNEL_NAME=" + launcher, main_cu, "-o", os.path.join(tmp, name),
                   "-L", os.path.join(home, "lib"), "-l:" + os.path.basename(host_lib), "-lnvshmem_device"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0 or "warning" in p.stderr:
                failures.append("%s: nvcc:\n%s" % (name, (p.stdout + p.stderr)[-3000:]))
            else:
                print("ok   %s (%s): compiled and linked with NVSHMEM" % (name, launcher))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
