// The compiled path (issue 6): --emit=cuda and --emit=ptx.
//   cuda_emit      — no CUDA needed: every sample emits CUDA,
//                    deterministically; the devices(N) launcher; refusals and
//                    the missing-toolchain error; the embedded prelude
//                    matches its header.
//   cuda_nvcc_sm90 / cuda_nvcc_sm80 — every emitted sample compiles with
//                    `nvcc -c` for that arch with all warnings as errors.
//   cuda_ptx       — --emit=ptx (NVRTC or nvcc) assembles with ptxas, and the
//                    lowerings are checked on the PTX text (and the
//                    tensor-core `dot` on the SASS where cuobjdump exists).
//   cuda_link      — a host program using the launcher API links against cudart.
// The nvcc suites print "CUDA-SKIPPED" (ctest reports them as skipped) when
// nvcc is absent.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <vector>

#include "test_support.h"

namespace kdt {
extern const char* const kCudaPrelude;
}

namespace {

using kdt::test::find_tool;
using kdt::test::nvcc_or_skip;
using kdt::test::RunResult;
using kdt::test::read_text;
using kdt::test::run_kdt;
using kdt::test::shell_quote;
using kdt::test::TempDir;

const std::vector<std::string> kSingleDevice = {
    "accumulate_blocks", "block_matmul", "block_reduce", "block_rows", "collatz",       "dma_pipeline", "fifo_hazard", "generic_matmul", "hash_rng",
    "layernorm",         "matmul",        "mixed_precision", "partial_accumulate", "ptx_fallback", "ptx_translate",
    "ragged_edge",       "reduction",     "softmax",      "stencil"};
const std::vector<std::string> kMultiDevice = {"all_gather", "all_gather_steps",        "mesh_allreduce", "peer_scratch", "reduce_scatter",
                                                "remote_accumulate", "ring_allreduce", "ring_exchange", "scoped_barrier"};
std::vector<std::string> all_samples() {
  std::vector<std::string> all = kSingleDevice;
  all.insert(all.end(), kMultiDevice.begin(), kMultiDevice.end());
  return all;
}

std::string sample(const std::string& name) {
  if (name.find('/') != std::string::npos) return kdt::test::source_dir() + "/" + name + ".kd";
  return kdt::test::source_dir() + "/samples/" + name + ".kd";
}

// Regression kernels of the compiled path (issue 19), compiled with the
// samples; their answers on the C++ path are checked by tests/e2e/run_regressions.py.
const std::vector<std::string> kCudaRegressions = {"tests/e2e/regressions/scalar_asm_laneid",
                                                   "tests/e2e/regressions/asm_i8_sign",
                                                   "tests/e2e/regressions/bf16_from_i64",
                                                   "tests/e2e/regressions/many_in_flight",
                                                   "tests/e2e/regressions/subnormal_adds"};

int sh(const std::string& cmd) {
  int raw = std::system(cmd.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
}

// A kernel with one of each construct the lowering checks look for.
const char* const kConstructs = R"KD(
kernel constructs(a: in f16[64] @global, d: in f64[64] @global, q: in i64[64] @global,
                  c: inout i8[64] @global, ho: out f16[64] @global, dout: out f64[64] @global,
                  qo: out i64[64] @global, u: in u32[64] @global, uo: out u32[64] @global)
    grid(1)
{
    scratch cs: i8[64] @shared;
    sem s: dma;
    let av = a[...];
    ho[...] = asm ptx (x: f16 = av, y: f16 = av) -> (o: f16) {
        "add.rn.f16 %o, %x, %y;"
    } fallback { o = x + y; };
    dout[...] = asm ptx (x: f64 = d[...]) -> (o: f64) {
        "add.rn.f64 %o, %x, %x;"
    } fallback { o = x + x; };
    qo[...] = asm ptx (x: i64 = q[...]) -> (o: i64) {
        "xor.b64 %o, %x, 12345;"
    } fallback { o = x ^ 12345; };
    uo[...] = asm ptx (x: u32 = u[...]) -> (o: u32) {
        "not.b32 %o, %x;"
    } fallback { o = ~x; };
    dma_start(c, cs, s);
    dma_wait(s, cs);
    dma_start(cs, c, s, add=true);
    dma_wait(s, c);
}
)KD";

// add=true shared->global for every dtype the bulk reduce engine takes, and
// one (i16) it does not.
const char* const kAdds = R"KD(
kernel adds(a: inout i32[64] @global, b: inout f16[64] @global, c: inout bf16[64] @global, d: inout f64[64] @global,
            e: inout u64[64] @global, f: inout i64[64] @global, g: inout u32[64] @global, h: inout i16[64] @global)
    grid(1)
{
    scratch sa: i32[64] @shared;
    scratch sb: f16[64] @shared;
    scratch sc: bf16[64] @shared;
    scratch sd: f64[64] @shared;
    scratch se: u64[64] @shared;
    scratch sf: i64[64] @shared;
    scratch sg: u32[64] @shared;
    scratch sh: i16[64] @shared;
    sem s: dma;
    sa[...] = a[...]; sb[...] = b[...]; sc[...] = c[...]; sd[...] = d[...];
    se[...] = e[...]; sf[...] = f[...]; sg[...] = g[...]; sh[...] = h[...];
    dma_start(sa, a, s, add=true); dma_wait(s, a);
    dma_start(sb, b, s, add=true); dma_wait(s, b);
    dma_start(sc, c, s, add=true); dma_wait(s, c);
    dma_start(sd, d, s, add=true); dma_wait(s, d);
    dma_start(se, e, s, add=true); dma_wait(s, e);
    dma_start(sf, f, s, add=true); dma_wait(s, f);
    dma_start(sg, g, s, add=true); dma_wait(s, g);
    dma_start(sh, h, s, add=true); dma_wait(s, h);
}
)KD";

// Global->shared DMAs whose rows are 8 bytes (stride 16) and 4 bytes (stride 12).
const char* const kNarrowRows = R"KD(
kernel narrow(x: in f32[64, 4] @global, y: in f32[64, 3] @global, o: out f32[64, 3] @global) grid(1) {
    scratch a: f32[64, 2] @shared;
    scratch b: f32[64, 1] @shared;
    sem s: dma;
    dma_start(x[:, 0:2], a, s);
    dma_start(y[:, 1:2], b, s);
    dma_wait(s, a);
    dma_wait(s, b);
    o[:, 0:2] = a[...];
    o[:, 2:3] = b[...];
}
)KD";

// The CUDA kdt emits for `kd` (a path) for sm_90, with `flags`; the test
// stops where kdt fails.
std::string cuda_sm90(const std::string& kd, const std::string& flags = "") {
  RunResult r = run_kdt("--emit=cuda --arch=sm_90 " + (flags.empty() ? "" : flags + " ") + shell_quote(kd));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return r.out;
}

// Emits `kd` (a path) for `arch` into `out`; returns kdt's status.
int emit(const std::string& kd, const std::string& kind, const std::string& arch, const std::string& out) {
  return run_kdt("--emit=" + kind + " --arch=" + arch + " " + shell_quote(kd) + " -o " + shell_quote(out)).status;
}

// The SASS of `kd` (a path) as nvcc builds its CUDA for `arch` (with kdt
// `flags`): what the GPU runs. `cuobjdump` from find_tool; files in `tmp`.
std::string sass_of(const TempDir& tmp, const std::string& nvcc, const std::string& cuobjdump, const std::string& kd,
                    const std::string& arch, const std::string& flags = "") {
  const std::string cu = tmp.file("s.cu"), obj = tmp.file("s.o"), out = tmp.file("s.sass");
  REQUIRE(run_kdt("--emit=cuda --arch=" + arch + " " + flags + " " + shell_quote(kd) + " -o " + shell_quote(cu)).status == 0);
  REQUIRE(sh(nvcc + " -std=c++17 -arch=" + arch + " -c " + cu + " -o " + obj) == 0);
  REQUIRE(sh(cuobjdump + " -sass " + obj + " > " + out) == 0);
  return read_text(out);
}

void nvcc_all_samples(const std::string& arch) {
  std::string nvcc = nvcc_or_skip();
  if (nvcc.empty()) return;
  TempDir tmp;
  std::string list;
  std::vector<std::string> names = all_samples();
  names.insert(names.end(), kCudaRegressions.begin(), kCudaRegressions.end());
  for (std::string& s : names) {
    std::string file = s.substr(s.rfind('/') + 1);
    REQUIRE_MESSAGE(emit(sample(s), "cuda", arch, tmp.file(file + ".cu")) == 0, s);
    list += " " + file;
    s = file;
  }
  // One at a time: ctest -j2 runs the two arch suites side by side on a 2-core machine.
  std::string cmd = "cd " + shell_quote(tmp.path.string()) + " && printf '%s\\n'" + list + " | xargs -P1 -I{} sh -c '" +
                    nvcc + " -std=c++17 -arch=" + arch + " -Werror all-warnings -c {}.cu -o {}.o > {}.log 2>&1 || echo {} >> failed'";
  sh(cmd);
  std::string failed = read_text(tmp.file("failed"));
  std::string logs;
  for (const std::string& s : names) {
    if (failed.find(s) != std::string::npos) logs += "== " + s + "\n" + read_text(tmp.file(s + ".log"));
  }
  CHECK_MESSAGE(failed.empty(), "nvcc -arch=" << arch << " failed for:\n" << failed << logs);
}

// Emits `kd` for sm_90 as kernels.cuh and links `main_cu` (which includes
// it) against cudart with nvcc, warnings as errors; the program is not run.
void link_host_program(const std::string& kd, const char* main_cu) {
  std::string nvcc = nvcc_or_skip();
  if (nvcc.empty()) return;
  TempDir tmp;
  REQUIRE(emit(kd, "cuda", "sm_90", tmp.file("kernels.cuh")) == 0);
  kdt::test::write_text(tmp.file("main.cu"), main_cu);
  int rc = sh("cd " + shell_quote(tmp.path.string()) + " && " + nvcc +
              " -std=c++17 -arch=sm_90 -Werror all-warnings main.cu -o prog -lcudart > log 2>&1");
  CHECK_MESSAGE(rc == 0, read_text(tmp.file("log")));
  CHECK(std::filesystem::exists(tmp.file("prog")));
}

}  // namespace

TEST_SUITE("cuda_emit") {
  TEST_CASE("the embedded prelude is include/kdt/runtime/cuda/kdt_cuda.h with its parts") {
    // kdt_cuda.h without its #include lines of the parts, then the parts in that order.
    std::string dir = kdt::test::source_dir() + "/include/kdt/runtime/cuda/";
    std::string umbrella = read_text(dir + "kdt_cuda.h"), joined, parts;
    std::istringstream lines(umbrella);
    for (std::string line; std::getline(lines, line);) {
      const std::string prefix = "#include \"kdt_cuda_";
      if (line.compare(0, prefix.size(), prefix) == 0) {
        parts += read_text(dir + line.substr(10, line.size() - 11));
      } else {
        joined += line + "\n";
      }
    }
    CHECK(!parts.empty());
    CHECK_MESSAGE(std::string(kdt::kCudaPrelude) == joined + parts, "the embedded CUDA runtime differs from kdt_cuda.h and its parts");
  }

  TEST_CASE("every sample emits CUDA for sm_90 and sm_80, deterministically") {
    TempDir tmp;
    for (const std::string& s : all_samples()) {
      for (std::string arch : {"sm_90", "sm_80"}) {
        INFO(s << " " << arch);
        REQUIRE(emit(sample(s), "cuda", arch, tmp.file("a.cu")) == 0);
        std::string a = read_text(tmp.file("a.cu"));
        REQUIRE(emit(sample(s), "cuda", arch, tmp.file("a.cu")) == 0);  // the same name: its #line directives
        CHECK(a == read_text(tmp.file("a.cu")));
        CHECK(a.find("__global__ void") != std::string::npos);
        CHECK(a.find("inline cudaError_t") != std::string::npos);
        CHECK(a.find("\n#pragma once") == std::string::npos);  // the prelude uses a classic guard
        // Bulk copies are chosen only for sm_90.
        if (arch == "sm_80") CHECK(a.find("kdt_cu::bulk_") == std::string::npos);
      }
    }
  }

  // The launcher's own names (`K_blocks`, `K_threads`, ...) are qualified,
  // so a parameter spelled the same does not hide them; a kernel spelled
  // like another kernel's launch constant is a diagnostic at the kernel.
  TEST_CASE("launch names: a parameter named like a launch constant, a kernel named like one") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("p.kd"),
                          "kernel a(a_blocks: in f32[64] @global, a_threads: out f32[64] @global) grid(1) {\n"
                          "    a_threads[...] = a_blocks[...];\n}\n");
    REQUIRE(emit(tmp.file("p.kd"), "cuda", "sm_90", tmp.file("p.cu")) == 0);
    std::string p = read_text(tmp.file("p.cu"));
    CHECK(p.find("kdt_kernels::a_kernel<<<dim3(kdt_kernels::a_blocks), dim3(kdt_kernels::a_threads), "
                 "kdt_kernels::a_shared_bytes, stream>>>(a_blocks, a_threads);") != std::string::npos);
    if (std::string nvcc = find_tool("nvcc"); !nvcc.empty()) {
      CHECK(sh(nvcc + " -std=c++17 -arch=sm_90 -c " + tmp.file("p.cu") + " -o " + tmp.file("p.o")) == 0);
    }
    kdt::test::write_text(tmp.file("k.kd"),
                          "kernel a(x: in f32[4] @global, y: out f32[4] @global) grid(1) { y[...] = x[...]; }\n"
                          "kernel a_shared_bytes(x: in f32[4] @global, y: out f32[4] @global) grid(1) { y[...] = x[...]; }\n");
    RunResult k = run_kdt("--emit=cuda --arch=sm_90 " + shell_quote(tmp.file("k.kd")) + " -o " + shell_quote(tmp.file("k.cu")));
    CHECK(k.status == 1);
    CHECK(k.err.find("k.kd:2:1: error: the CUDA output declares `a_shared_bytes` for kernel `a` (its launch constants, "
                     "kernel function and types are named after it), so kernel `a_shared_bytes` cannot have that name "
                     "there; rename one of the two kernels [invalid-declaration]") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(tmp.file("k.cu")));
    // The program is valid KD, and the C++ output has no such names in common.
    CHECK(run_kdt("--emit=cpp " + shell_quote(tmp.file("k.kd")) + " -o " + shell_quote(tmp.file("k.cpp"))).status == 0);
  }

  // Issue 19, item 9: which DMAs go through tensor maps, and what the launcher encodes.
  TEST_CASE("tensor maps: for boxes of several rows on sm_90, single-device kernels only") {
    TempDir tmp;
    REQUIRE(emit(sample("matmul"), "cuda", "sm_90", tmp.file("m.cu")) == 0);
    std::string m = read_text(tmp.file("m.cu"));
    CHECK(m.find("const __grid_constant__ matmul_tensor_maps kdt_tensor_maps)") != std::string::npos);
    // A (512 x 512 f32) in boxes of 64 rows x 32 columns: innermost first.
    CHECK(m.find("const cuuint64_t dims[] = {512u, 512u}, strides[] = {2048u};\n    const cuuint32_t box[] = {32u, 64u};")
          != std::string::npos);
    CHECK(m.find("encode_tensor_map(&kdt_tensor_maps.map[0], A, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dims, strides, box, "
                 "\"matmul\", \"A\")") != std::string::npos);
    CHECK(m.find(">>>(A, B, C, kdt_tensor_maps);") != std::string::npos);
    // Where the map cannot be used, the rows as before.
    CHECK(m.find("if (kdt_tensor_maps.ok && (kdt_cu::smem_addr(kdt_s_a_buf + 0) & 127) == 0) {") != std::string::npos);
    CHECK(m.find("kdt_cu::bulk_g2s(kdt_s_a_buf + (r0_) * 32, A + (start0_ + r0_) * 512, 128u,") != std::string::npos);
    // No maps: sm_80 (no tensor copies), a DMA of one contiguous run, devices(N).
    for (auto [kd, arch] : {std::pair{"matmul", "sm_80"}, {"accumulate_blocks", "sm_90"}, {"ring_exchange", "sm_90"}}) {
      CAPTURE(kd);
      REQUIRE(emit(sample(kd), "cuda", arch, tmp.file("n.cu")) == 0);
      std::string n = read_text(tmp.file("n.cu"));
      CHECK(n.find("kdt_tensor_maps") == std::string::npos);
    }
  }

  // A copy and a reduce-add of the same boxes take two maps: the add's is
  // FLOAT32_FTZ (f32 adds into @global flush subnormals on every GPU route).
  // A ref whose adds go to atomics (one of them cannot take the bulk
  // reduce) has no add map: the plan asks dma_start's own question.
  TEST_CASE("tensor maps: an f32 add's map flushes subnormals; refs added by atomics take none") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("t.kd"),
                          "kernel twice(acc: inout f32[8, 16] @global) grid(2) {\n"
                          "    scratch s: f32[4, 8] @shared;\n    sem m: dma;\n    let i = program_id(0);\n"
                          "    dma_start(acc[ds(i * 4, 4), ds(0, 8)], s, m);\n    dma_wait(m, s);\n"
                          "    dma_start(s, acc[ds(i * 4, 4), ds(8, 8)], m, add=true);\n"
                          "    dma_wait(m, acc[ds(i * 4, 4), ds(8, 8)]);\n}\n");
    std::string t = cuda_sm90(tmp.file("t.kd"));
    CHECK(t.find("kdt_cu::TensorMap map[2];") != std::string::npos);
    CHECK(t.find("map[0], acc, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,") != std::string::npos);
    CHECK(t.find("map[1], acc, CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, 2,") != std::string::npos);
    CHECK(t.find("kdt_cu::tensor_s2g<2, true>(&kdt_tensor_maps.map[1], kdt_box,") != std::string::npos);
    // A second add whose dynamic column start moves 4 bytes per step: every
    // add into `acc` takes atomics, and the first add plans no map either.
    kdt::test::write_text(tmp.file("a.kd"),
                          "kernel mixed(acc: inout f32[8, 16] @global) grid(2) {\n"
                          "    scratch s: f32[4, 8] @shared;\n    scratch r: f32[4, 4] @shared;\n    sem m: dma;\n"
                          "    let i = program_id(0);\n    s[...] = 1.0;\n    r[...] = 2.0;\n"
                          "    dma_start(s, acc[ds(i * 4, 4), ds(0, 8)], m, add=true);\n"
                          "    dma_wait(m, acc[ds(i * 4, 4), ds(0, 8)]);\n"
                          "    dma_start(r, acc[ds(i * 4, 4), ds(i + 8, 4)], m, add=true);\n"
                          "    dma_wait(m, acc[ds(i * 4, 4), ds(i + 8, 4)]);\n}\n");
    std::string a = cuda_sm90(tmp.file("a.kd"));
    CHECK(a.find("kdt_tensor_maps") == std::string::npos);
    CHECK(a.find("bulk_s2g_add(", a.find("===== kernels")) == std::string::npos);
    // Under --cuda-debug a map the driver refuses is said on stderr.
    CHECK(cuda_sm90(tmp.file("t.kd"), "--cuda-debug").find("#define KDT_CU_DEBUG 1") != std::string::npos);
    CHECK(std::string(kdt::kCudaPrelude).find("kdt: note: kernel `%s`: no tensor map for `%s`") != std::string::npos);
  }

  // Issue 19, item 10: a tile loaded from @global moves in 16-byte pieces
  // where its rows are whole 16-byte multiples, behind a run-time alignment
  // test whose `else` is the element loop.
  TEST_CASE("vectorised global loads and stores: uint4 pieces of whole rows, the element loop where they cannot be") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("v.kd"),
                          "kernel rows(x: in f32[64, 256] @global, y: out f32[64, 256] @global) grid(8) threads(32) {\n"
                          "    let i = program_id(0);\n"
                          "    let t = x[ds(i * 8, 8), ds(64, 128)];\n"
                          "    y[ds(i * 8, 8), ds(64, 128)] = t * 2.0;\n"
                          "    let u = x[ds(i * 8, 8), ds(1, 6)];\n"
                          "    y[ds(i * 8, 8), ds(1, 6)] = u;\n}\n");
    std::string v = cuda_sm90(tmp.file("v.kd"));
    // 8 rows of 128 f32 (512 bytes: 32 pieces), row r at x + (8i + r) * 256 + 64.
    CHECK(v.find("for (int64_t c_ = kdt_tid; c_ < 256; c_ += kdt_nt) {") != std::string::npos);
    CHECK(v.find("const int64_t row_ = c_ / 32, col_ = c_ % 32;") != std::string::npos);
    CHECK(v.find("reinterpret_cast<uint4*>(t)[c_] = reinterpret_cast<const uint4*>(x + (start0_ + ((row_ / 1) % 8)) * 256 + "
                 "(64 + 0))[col_];") != std::string::npos);
    CHECK(v.find("} else {") != std::string::npos);
    // The store of `t * 2.0`: each thread computes a piece's four elements
    // into registers and stores them as one uint4.
    CHECK(v.find("alignas(16) float piece_[4];") != std::string::npos);
    CHECK(v.find("reinterpret_cast<uint4*>(y + (start3_ + ((row_ / 1) % 8)) * 256 + (64 + 0))[col_] = "
                 "*reinterpret_cast<const uint4*>(piece_);") != std::string::npos);
    // Rows of 6 f32 (24 bytes): element by element only (u, 2 elements
    // per thread, is held in registers).
    CHECK(v.find("float u[2];  // in registers") != std::string::npos);
    CHECK(v.find("uint4*>(y + (start", v.find("float u[2];")) == std::string::npos);
    if (std::string nvcc = find_tool("nvcc"); !nvcc.empty()) {
      kdt::test::write_text(tmp.file("v.cu"), v);
      CHECK(sh(nvcc + " -std=c++17 -arch=sm_90 -c " + tmp.file("v.cu") + " -o " + tmp.file("v.o")) == 0);
    }
  }

  TEST_CASE("devices(N): a peer table, per-device arguments and a cooperative launch") {
    TempDir tmp;
    REQUIRE(emit(sample("ring_exchange"), "cuda", "sm_90", tmp.file("r.cu")) == 0);
    std::string r = read_text(tmp.file("r.cu"));
    // Only `recv` is written by remote DMAs; every device has a sync buffer.
    CHECK(r.find("struct ring_exchange_peers {\n  float* recv[4];\n  unsigned long long* sync[4];") != std::string::npos);
    CHECK(r.find("ring_exchange_kernel(const float* x, float* recv, float* mixed, const ring_exchange_peers kdt_peers, "
                 "const int32_t kdt_device)") != std::string::npos);
    CHECK(r.find("inline cudaError_t ring_exchange(const float* const (&x)[4], float* const (&recv)[4], "
                 "float* const (&mixed)[4], void* const (&sync)[4], const int (&device)[4], "
                 "const cudaStream_t (&stream)[4])") != std::string::npos);
    // Three semaphores other devices raise (ready, recv_sem, acked), one counter each per program.
    CHECK(r.find("constexpr size_t ring_exchange_sync_bytes = 96;") != std::string::npos);
    // The remote DMA writes through the right neighbour's pointer and raises its counter by 32*64*4 bytes.
    CHECK(r.find("= kdt_peers.recv[device") != std::string::npos);
    CHECK(r.find("kdt_cu::signal_sys((kdt_peers.sync[device") != std::string::npos);
    CHECK(r.find(", 8192);") != std::string::npos);
    // The local send semaphore keeps its in-flight queue.
    CHECK(r.find("kdt_cu::DmaQueue<1> kdt_q_send_sem[1]") != std::string::npos);
    std::string prelude = kdt::kCudaPrelude;
    CHECK(prelude.find("cudaLaunchCooperativeKernel") != std::string::npos);
    CHECK(prelude.find("cudaErrorCooperativeLaunchTooLarge") != std::string::npos);
    // Peers' memory is reached with atomics: the launch checks every pair of GPUs for them (issue 19, item 6).
    CHECK(prelude.find("cudaDevP2PAttrNativeAtomicSupported") != std::string::npos);
    CHECK(prelude.find("if (cudaError_t e = peers_have_atomics(name); e != cudaSuccess) return e;") != std::string::npos);
    // Two KD devices on one GPU are refused, naming them (issue 19, item 7).
    CHECK(prelude.find("puts KD devices %d and %d on CUDA device %d") != std::string::npos);
    // Accumulating remote DMAs use system-scope atomics, never the bulk reduce engine.
    REQUIRE(emit(sample("remote_accumulate"), "cuda", "sm_90", tmp.file("a.cu")) == 0);
    std::string a = read_text(tmp.file("a.cu"));
    CHECK(a.find("kdt_cu::atomic_add<true>(&peer") != std::string::npos);
    CHECK(a.find("bulk_s2g_add(", a.find("===== kernels")) == std::string::npos);
  }

  TEST_CASE("--devices=nvshmem: puts and signals on the symmetric heap, a collective launch (issue 20)") {
    TempDir tmp;
    REQUIRE(run_kdt("--emit=cuda --devices=nvshmem " + shell_quote(sample("ring_exchange")) + " -o " + shell_quote(tmp.file("n.cu"))).status == 0);
    std::string n = read_text(tmp.file("n.cu"));
    CHECK(n.find("#include <nvshmem.h>") != std::string::npos);
    CHECK(n.find("inline cudaError_t ring_exchange(const float* x, float* recv, float* mixed, cudaStream_t stream = 0)") !=
          std::string::npos);
    CHECK(n.find("if (nvshmem_n_pes() != 4) return cudaErrorInvalidConfiguration;") != std::string::npos);
    CHECK(n.find("nvshmemx_collective_launch(reinterpret_cast<const void*>(kdt_kernels::ring_exchange_kernel)") != std::string::npos);
    CHECK(n.find("nvshmemx_barrier_all_on_stream(stream);") != std::string::npos);
    // The remote DMA: 32 rows of 64 floats, each a put, then the receiver's counter raised by 8192 bytes.
    CHECK(n.find("nvshmem_putmem_nbi(recv + (start1_ + i") != std::string::npos);
    CHECK(n.find("64 * sizeof(float), device") != std::string::npos);
    CHECK(n.find("kdt_cu::signal_pe((kdt_peers.sync[kdt_device] + kdt_flat * 3 + 2 + 0), 8192, device") != std::string::npos);
    CHECK(n.find("kdt_cu::wait_pe((kdt_peers.sync[kdt_device]") != std::string::npos);
    CHECK(n.find("kdt_cu::signal_sys(") == n.find("kdt_cu::signal_sys(", n.find("===== kernels")));  // none in the kernel
    // add=true reaches the peer by nvshmem_ptr, trapping across nodes.
    REQUIRE(run_kdt("--emit=cuda --devices=nvshmem " + shell_quote(sample("remote_accumulate")) + " -o " + shell_quote(tmp.file("a.cu"))).status == 0);
    CHECK(read_text(tmp.file("a.cu")).find("kdt_cu::peer_or_fail(") != std::string::npos);
    // Without the flag, nothing of NVSHMEM.
    REQUIRE(emit(sample("ring_exchange"), "cuda", "sm_90", tmp.file("r.cu")) == 0);
    CHECK(read_text(tmp.file("r.cu")).find("nvshmem") == std::string::npos);
  }

  TEST_CASE("more than 1024 threads per block is refused") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("t.kd"), "kernel k(x: inout f32[8] @global) grid(1) threads(2048) {\n    x[...] = x + 1.0;\n}\n");
    kdt::test::RunResult r = run_kdt("--color=never --emit=cuda " + shell_quote(tmp.file("t.kd")));
    CHECK(r.status == 1);
    CHECK(r.err.find("at most 1024") != std::string::npos);  // --threads is range-checked by the driver
    // The checker refuses it (issue 12, item 18), for every --emit.
    CHECK(r.err.find("[bad-argument]") != std::string::npos);
  }

  TEST_CASE("block specs: two buffers per block along a sequence, refused by name when they do not fit") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("b.kd"),
                          "kernel big(a: in f32[1024, 1024] @global block [128, 128] at (i, k),\n"
                          "           c: out f32[1024, 128] @global block [128, 128] at (i, 0))\n"
                          "    grid(i: 8, sequential k: 8)\n{\n"
                          "    if k == 0 { c[...] = zeros(f32[128, 128]); }\n    c[...] += a[...];\n}\n");
    kdt::test::RunResult r = run_kdt("--color=never --emit=cuda --arch=sm_90 " + shell_quote(tmp.file("b.kd")) + " -o " +
                                     shell_quote(tmp.file("b.cu")));
    CHECK(r.status == 1);
    CHECK(r.err.find("needs 263312 bytes of shared memory") != std::string::npos);
    CHECK(r.err.find("`a` 131072, `c` 131072") != std::string::npos);
    CHECK(!std::filesystem::exists(tmp.file("b.cu")));  // no partial output
    // The same kernel fits the C++ path, which has no shared-memory limit.
    CHECK(run_kdt("--emit=check " + shell_quote(tmp.file("b.kd"))).status == 0);
  }

  TEST_CASE("the launcher raises the shared-memory limit above 48 KiB") {
    TempDir tmp;
    REQUIRE(emit(sample("accumulate_blocks"), "cuda", "sm_90", tmp.file("a.cu")) == 0);
    std::string a = read_text(tmp.file("a.cu"));
    CHECK(a.find("cudaFuncAttributeMaxDynamicSharedMemorySize") != std::string::npos);
    CHECK(a.find("cudaStream_t stream") != std::string::npos);
    // The device's own opt-in limit is checked at launch (issue 19, item 2).
    CHECK(a.find("kdt_cu::shared_memory_fits(\"accumulate_blocks\", kdt_kernels::accumulate_blocks_shared_bytes)") != std::string::npos);
  }

  // Issue 19, item 2: the compile-time limit by arch from the documented
  // table (sm_86, sm_89 and sm_120 allow 99 KiB, sm_80 163 KiB).
  TEST_CASE("the shared-memory limit per arch: 120 KiB of scratch fits sm_80 and sm_90, not sm_86/89/120") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("big.kd"),
                          "kernel big(x: in f32[30720] @global, y: out f32[30720] @global) grid(1) {\n"
                          "    scratch buf: f32[30720] @shared;\n    sem s: dma;\n"
                          "    dma_start(x, buf, s);\n    dma_wait(s, buf);\n    y[...] = buf;\n}\n");
    for (const char* arch : {"sm_80", "sm_90", "sm_100"}) {
      CAPTURE(arch);
      CHECK(emit(tmp.file("big.kd"), "cuda", arch, tmp.file("big.cu")) == 0);
    }
    for (const char* arch : {"sm_86", "sm_89", "sm_120"}) {
      CAPTURE(arch);
      kdt::test::RunResult r = kdt::test::run_kdt("--emit=cuda --arch=" + std::string(arch) + " " + tmp.file("big.kd"));
      CHECK(r.status == 1);
      CHECK_MESSAGE(r.err.find(std::string(arch) + " allows 101376 per block") != std::string::npos, r.err);
    }
  }

  // Issue 19, items 1 and 3: every failure on the GPU names its KD statement.
  TEST_CASE("waits and DMA queues carry their KD location; --cuda-debug defines KDT_CU_DEBUG") {
    RunResult plain = run_kdt("--emit=cuda " + shell_quote(sample("dma_pipeline")));
    REQUIRE(plain.status == 0);
    const std::string kd = sample("dma_pipeline");
    CHECK(plain.out.find("dma_wait on `out_sem`\", kdt_bulk_groups);") != std::string::npos);
    CHECK(plain.out.find("dma_pipeline.kd:54:5: dma_wait on `out_sem`") != std::string::npos);
    CHECK(plain.out.find("dma_pipeline.kd:31:5: dma_start on `in_sem`") != std::string::npos);
    CHECK(plain.out.find("#define KDT_CU_DEBUG") == std::string::npos);
    RunResult debug = run_kdt("--emit=cuda --cuda-debug " + shell_quote(kd));
    CHECK(debug.out.find("#define KDT_CU_DEBUG 1") != std::string::npos);
    // A sem_wait nothing else can satisfy fails naming itself, not with a bare trap.
    TempDir tmp;
    kdt::test::write_text(tmp.file("w.kd"), "kernel w(o: out i32[1] @global) grid(1) {\n    sem s: regular;\n"
                                            "    sem_signal(s);\n    sem_wait(s);\n    o[0] = 1;\n}\n");
    RunResult wait = run_kdt("--emit=cuda " + shell_quote(tmp.file("w.kd")));
    CHECK_MESSAGE(wait.out.find("kdt_cu::fail(\"" + tmp.file("w.kd") + ":4:5: sem_wait on `s`\"") != std::string::npos, wait.out);
  }

  TEST_CASE("DMA queues are sized from the program's static bound (issue 19, item 1)") {
    TempDir tmp;
    const std::string kd = sample("tests/e2e/regressions/many_in_flight");
    RunResult twelve = run_kdt("--emit=cuda " + shell_quote(kd));
    REQUIRE(twelve.status == 0);
    CHECK(twelve.out.find("kdt_cu::DmaQueue<12> kdt_q_loaded[1] = {};") != std::string::npos);
    // 12 mbarriers of 8 bytes for the ring.
    CHECK(twelve.out.find("b_ < 12; ++b_) kdt_cu::mbar_init(") != std::string::npos);
    // Past 32 in flight: refused on the compiled path, at the kernel, naming the semaphore.
    RunResult forty = run_kdt("--emit=cuda -D R=40 " + shell_quote(kd));
    CHECK(forty.status == 1);
    CHECK(forty.err.find("many_in_flight.kd:9:1: error: kernel `many_in_flight` has up to 40 DMAs in flight at once on "
                         "semaphore `loaded`; the compiled path holds at most 32 per semaphore element") != std::string::npos);
    CHECK(forty.err.find("[limit-exceeded]") != std::string::npos);
    // No static bound (n DMAs started in a loop the analysis does not unroll, then n waits): the
    // default queue, whose overflow traps naming the DMA.
    kdt::test::write_text(tmp.file("w.kd"), "kernel w(x: in f32[4] @global, y: out f32[4] @global, n: i32) grid(1) {\n"
                                            "    scratch t: f32[4] @shared;\n    sem s: dma;\n    var i = 0;\n"
                                            "    while i < n {\n        dma_start(x, t, s);\n        i += 1;\n    }\n"
                                            "    var j = 0;\n    while j < n {\n        dma_wait(s, t);\n        j += 1;\n    }\n"
                                            "    y[...] = t[...];\n}\n");
    RunResult loop = run_kdt("--emit=cuda " + shell_quote(tmp.file("w.kd")));
    REQUIRE(loop.status == 0);
    CHECK(loop.out.find("kdt_cu::DmaQueue<8> kdt_q_kd_s[1] = {};") != std::string::npos);
  }

  TEST_CASE("a bulk copy of global memory the generic proxy wrote is fenced (issue 19, item 5)") {
    TempDir tmp;
    // `o` is stored by every thread, then read back by a bulk copy: fence.proxy.async.global first.
    kdt::test::write_text(tmp.file("f.kd"),
                          "kernel f(x: in f32[64] @global, o: out f32[64] @global) grid(1) {\n"
                          "    scratch t: f32[64] @shared;\n    scratch u: f32[64] @shared;\n    sem s: dma;\n"
                          "    o[...] = x[...] * 2.0;\n"
                          "    dma_start(o, t, s);\n    dma_wait(s, t);\n"
                          "    dma_start(x, u, s);\n    dma_wait(s, u);\n"
                          "    o[...] = t[...] + u[...];\n}\n");
    REQUIRE(emit(tmp.file("f.kd"), "cuda", "sm_90", tmp.file("f.cu")) == 0);
    std::string a = std::regex_replace(read_text(tmp.file("f.cu")), std::regex("\n#line [0-9]+\n"), "\n");
    size_t first = a.find("kdt_cu::bulk_g2s(kdt_s_t");
    size_t second = a.find("kdt_cu::bulk_g2s(kdt_s_u");
    REQUIRE(first != std::string::npos);
    REQUIRE(second != std::string::npos);
    size_t fence = a.find("kdt_cu::fence_proxy_async_global();");
    REQUIRE(fence != std::string::npos);
    CHECK(fence < first);
    // `x` is never written in the launch: its bulk copy needs no global fence.
    CHECK(a.find("kdt_cu::fence_proxy_async_global();", first) == std::string::npos);
    CHECK(a.find("fence.proxy.async.global;") != std::string::npos);  // the runtime's definition
  }

  TEST_CASE("a scalar asm runs once per program and broadcasts its outputs (issue 19, item 4)") {
    TempDir tmp;
    REQUIRE(emit(sample("tests/e2e/regressions/scalar_asm_laneid"), "cuda", "sm_90", tmp.file("l.cu")) == 0);
    std::string a = std::regex_replace(read_text(tmp.file("l.cu")), std::regex("\n#line [0-9]+\n"), "\n");
    size_t thread0 = a.find("if (kdt_tid == 0) {");
    size_t laneid = a.find("%%laneid");
    REQUIRE(thread0 != std::string::npos);
    REQUIRE(laneid != std::string::npos);
    CHECK(thread0 < laneid);  // only thread 0 runs the asm ...
    size_t sync = a.find("__syncthreads();", laneid);
    size_t read = a.find("asm0_l = reinterpret_cast<uint32_t*>(kdt_smem + ", laneid);
    REQUIRE(sync != std::string::npos);
    REQUIRE(read != std::string::npos);
    CHECK(sync < read);  // ... and every thread reads its result after a barrier
  }

  TEST_CASE("asm operands get constraint letters by PTX width") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("c.kd"), kConstructs);
    REQUIRE(emit(tmp.file("c.kd"), "cuda", "sm_90", tmp.file("c.cu")) == 0);
    // Without the #line directives between an asm statement's lines.
    std::string a = std::regex_replace(read_text(tmp.file("c.cu")), std::regex("\n#line [0-9]+\n"), "\n");
    CHECK(a.find(": \"=h\"(o0_)\n      : \"h\"(i0_), \"h\"(i1_)") != std::string::npos);  // f16
    CHECK(a.find(": \"=d\"(o0_)\n      : \"d\"(i0_)") != std::string::npos);                // f64
    CHECK(a.find(": \"=l\"(o0_)\n      : \"l\"(i0_)") != std::string::npos);                // i64
    CHECK(a.find(": \"=r\"(o0_)\n      : \"r\"(i0_)") != std::string::npos);                // u32
    CHECK(a.find("\"add.rn.f16 %0, %1, %2;\\n\\t\"") != std::string::npos);
  }

  TEST_CASE("an i8 asm operand is sign-extended into its 16-bit register, as on the C++ path (issue 19, item 6)") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("k8.kd"), "kernel k8(c: in i8[64] @global, o: out i16[64] @global) grid(1) {\n"
                                             "    o[...] = asm ptx (x: i8 = c[...]) -> (r: i16) {\n"
                                             "        \"mov.b16 %r, %x;\"\n"
                                             "    } fallback { r = i16(x); };\n}\n");
    REQUIRE(emit(tmp.file("k8.kd"), "cuda", "sm_90", tmp.file("k8.cu")) == 0);
    const std::string a = read_text(tmp.file("k8.cu"));
    CHECK(a.find("static_cast<unsigned short>(static_cast<int16_t>(c[") != std::string::npos);
    CHECK(a.find("static_cast<uint8_t>(c[") == std::string::npos);
    // The C++ path gives the same bits: tests/e2e/regressions/asm_i8_sign.kd.
  }

  // Issue 19, item 8: `dot` over f16/bf16 (f32 result) and i8/u8 (i32) runs
  // on tensor cores on sm_80 and later, f32 only with --cuda-tf32; shapes
  // that are not multiples of 16, blocks of partial warps and older archs
  // keep the per-thread loop, which also serves unaligned operands.
  TEST_CASE("dot runs on tensor cores where it applies (issue 19, item 8)") {
    TempDir tmp;
    for (const char* arch : {"sm_80", "sm_90"}) {
      CAPTURE(arch);
      REQUIRE(emit(sample("mixed_precision"), "cuda", arch, tmp.file("mp.cu")) == 0);
      std::string mp = read_text(tmp.file("mp.cu"));
      CHECK(mp.find("kdt_cu::dot_mma<16, 64, 128>(") != std::string::npos);  // bf16, BM x K x N
      CHECK(mp.find("kdt_cu::dot_mma<16, 32, 64, true>(") != std::string::npos);  // i8, IBM x IBK x IN, `+=`
      CHECK(mp.find("if (kdt_cu::dot_mma_aligned(") != std::string::npos);
    }
    REQUIRE(emit(sample("mixed_precision"), "cuda", "sm_75", tmp.file("mp75.cu")) == 0);
    CHECK(read_text(tmp.file("mp75.cu")).find("kdt_cu::dot_mma<") == std::string::npos);
    // f32: exact by default, TF32 when asked.
    const std::string exact = cuda_sm90(sample("matmul"));
    const std::string tf32 = cuda_sm90(sample("matmul"), "--cuda-tf32");
    CHECK(exact.find("kdt_cu::dot_mma<") == std::string::npos);
    CHECK(tf32.find("kdt_cu::dot_mma<64, 64, 32, true>(a, b, ") != std::string::npos);
    // An 8x8 bf16 dot and a block of 48 threads keep the loop.
    kdt::test::write_text(tmp.file("small.kd"), R"KD(
kernel small(a: in bf16[8, 16] @global, b: in bf16[16, 8] @global, c: out f32[8, 8] @global) grid(1) {
    c[...] = dot(a[...], b[...]);
}
kernel partial_warps(a: in bf16[16, 16] @global, b: in bf16[16, 16] @global, c: out f32[16, 16] @global)
    grid(1) threads(48)
{
    c[...] = dot(a[...], b[...]);
}
)KD");
    const std::string small = cuda_sm90(tmp.file("small.kd"));
    CHECK(small.find("kdt_cu::dot_mma<") == std::string::npos);
    CHECK(small.find("acc_ = kdt_cu::op_add(acc_, kdt_cu::op_mul(") != std::string::npos);
  }

  // Issue 19, item 10: `acc += dot(a, b)` on tensor cores sums onto acc in
  // the accumulator fragments (no temporary, no add pass); the exact f32
  // loop, and a dot that reads acc, keep `acc + dot(a, b)`.
  TEST_CASE("acc += dot(a, b) accumulates in the tensor cores' fragments; operands are read in place") {
    TempDir tmp;
    const std::string tf32 = cuda_sm90(sample("matmul"), "--cuda-tf32");
    CHECK(tf32.find("kdt_cu::dot_mma<64, 64, 32, true>(a, b, acc);") != std::string::npos);
    CHECK(tf32.find("= kdt_cu::op_add(acc[") == std::string::npos);
    CHECK(tf32.find("acc_ = acc[o_];") != std::string::npos);  // the unaligned fallback starts from acc too
    const std::string exact = cuda_sm90(sample("matmul"));
    CHECK(exact.find(", true>(") == std::string::npos);
    CHECK(exact.find("= kdt_cu::op_add(acc[") != std::string::npos);
    // A whole shared scratch ref: block_matmul's bf16 kernel, whose operands
    // (one slot of a double buffer each) are read in place, not copied.
    const std::string blocks = cuda_sm90(sample("block_matmul"));
    CHECK(blocks.find("kdt_cu::dot_mma<64, 64, 32, true>((kdt_s_a_blocks + (") != std::string::npos);
    CHECK(blocks.find("(kdt_s_b_blocks + (") != std::string::npos);
    CHECK(blocks.find("] = kdt_s_a_blocks[") == std::string::npos);  // no copy of an operand
    // matmul's `let a = a_buf[slot]`: nothing after it changes a_buf, so `a` names the slot.
    CHECK(tf32.find("float* const a = (kdt_s_a_buf + (") != std::string::npos);
    // A `let` followed by a store into its ref keeps its copy.
    kdt::test::write_text(tmp.file("relet.kd"), R"KD(
kernel relet(x: in f32[64] @global, y: out f32[64] @global) grid(1) {
    scratch s: f32[64] @shared;
    sem d: dma;
    dma_start(x[...], s, d);
    dma_wait(d, s);
    let t = s[...];
    s[...] = t * 2.0;
    y[...] = t + s[...];
}
kernel alias(x: in f32[64] @global, y: out f32[64] @global) grid(1) {
    scratch s: f32[64] @shared;
    sem d: dma;
    dma_start(x[...], s, d);
    dma_wait(d, s);
    let u = s[...];
    y[...] = u * 2.0;
}
)KD");
    const std::string relet = cuda_sm90(tmp.file("relet.kd"));
    CHECK(relet.find("float t[1];  // in registers") != std::string::npos);
    CHECK(relet.find("float* const u = kdt_s_kd_s;") != std::string::npos);
    RunResult wg = run_kdt("--emit=cuda --arch=sm_90a --cuda-tf32 " + shell_quote(sample("matmul")));
    REQUIRE(wg.status == 0);
    CHECK(wg.out.find("kdt_cu::dot_wgmma<64, 64, 32, true>(a, b, acc, kdt_smem + ") != std::string::npos);
    // An operand that reads acc: computed in full first, then added.
    kdt::test::write_text(tmp.file("self.kd"), R"KD(
kernel self(a: in bf16[64, 64] @global, c: out f32[64, 64] @global) grid(1) threads(128) {
    var acc = zeros(f32[64, 64]);
    acc += dot(bf16(acc), a[...]);
    c[...] = acc;
}
)KD");
    const std::string self = cuda_sm90(tmp.file("self.kd"));
    CHECK(self.find("kdt_cu::dot_mma<64, 64, 64>(") != std::string::npos);
    CHECK(self.find(", true>(") == std::string::npos);
  }

  // Issue 19, item 8 on sm_90a: a `dot` with M a multiple of 64 and N of 8,
  // in whole warpgroups, runs on wgmma from a staging area in shared memory
  // (kdt_cuda_wgmma.h); other shapes, blocks and archs keep what they had.
  TEST_CASE("dot runs on warpgroups (wgmma) on sm_90a where it applies") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("wg.kd"), R"KD(
kernel wide(a: in bf16[128, 64] @global, b: in bf16[64, 40] @global, c: out f32[128, 40] @global) grid(1) threads(256) {
    c[...] = dot(a[...], b[...]);
}
kernel rows16(a: in f16[16, 64] @global, b: in f16[64, 64] @global, c: out f32[16, 64] @global) grid(1) threads(128) {
    c[...] = dot(a[...], b[...]);
}
kernel warps(a: in bf16[64, 64] @global, b: in bf16[64, 64] @global, c: out f32[64, 64] @global) grid(1) threads(96) {
    c[...] = dot(a[...], b[...]);
}
)KD");
    auto emitted = [&](const std::string& arch, const std::string& flags, const std::string& kd) {
      RunResult r = run_kdt("--emit=cuda --arch=" + arch + " " + flags + " " + shell_quote(kd));
      REQUIRE(r.status == 0);
      return r.out;
    };
    const std::string wg = emitted("sm_90a", "", tmp.file("wg.kd"));
    // M, N, K; the staging area after the operands' and result's tiles.
    CHECK(wg.find("kdt_cu::dot_wgmma<128, 40, 64>(") != std::string::npos);
    CHECK(wg.find(", kdt_smem + ") != std::string::npos);
    CHECK(wg.find("kdt_cu::dot_mma<16, 64, 64>(") != std::string::npos);  // M = 16: the warp-level path
    CHECK(wg.find("kdt_cu::dot_mma<64, 64, 64>(") != std::string::npos);  // 96 threads: not whole warpgroups
    CHECK(emitted("sm_90", "", tmp.file("wg.kd")).find("kdt_cu::dot_wgmma<1") == std::string::npos);
    // f32 on warpgroups as TF32 only with --cuda-tf32.
    CHECK(emitted("sm_90a", "--cuda-tf32", sample("matmul")).find("kdt_cu::dot_wgmma<64, 64, 32, true>(a, b, ") !=
          std::string::npos);
    CHECK(emitted("sm_90a", "", sample("matmul")).find("kdt_cu::dot_wgmma<6") == std::string::npos);
  }

  // Issue 19, item 6: add=true DMAs into one global ref all take the bulk
  // reduce engine or all take atomics, never both in one launch.
  TEST_CASE("add=true DMAs into one ref do not mix the bulk reduce and atomics (issue 19, item 6)") {
    const std::string flagship = cuda_sm90(sample("accumulate_blocks"));
    CHECK(flagship.find("kdt_cu::bulk_s2g_add(out + ") != std::string::npos);
    // partial_accumulate adds into `stats` straight from a global ref (no
    // bulk reduce for global -> global: atomics), so its adds from shared
    // scratch into rows 4 and 5, which alone could be bulk reduces, take
    // atomics too.
    const std::string partial = cuda_sm90(sample("partial_accumulate"));
    CHECK(partial.find("kdt_cu::bulk_s2g_add(stats") == std::string::npos);
    CHECK(partial.find("kdt_cu::atomic_add(&stats[(5) * 32 + (i") != std::string::npos);
  }

  // Issue 19, item 10: fewer outputs than threads, a warp per output.
  TEST_CASE("axis reductions with fewer outputs than threads are warp-parallel (issue 19, item 10)") {
    const std::string softmax = cuda_sm90(sample("softmax"));
    CHECK(softmax.find("acc_ = kdt_cu::warp_reduce(acc_, 32u, 32u, kdt_cu::MaxOp{});") != std::string::npos);
    CHECK(softmax.find("acc_ = kdt_cu::warp_reduce(acc_, 32u, 32u, kdt_cu::AddOp{});") != std::string::npos);
    // 256 column sums in a block of 128 threads: one output per thread, in
    // the C++ path's 32-lane order.
    TempDir tmp;
    kdt::test::write_text(tmp.file("cols.kd"), R"KD(
kernel cols(x: in f32[64, 256] @global, y: out f32[1, 256] @global) grid(1) {
    y[...] = sum(x[...], axis=0, keepdims=true);
}
)KD");
    const std::string cols = cuda_sm90(tmp.file("cols.kd"));
    CHECK(cols.find("kdt_cu::warp_reduce(acc_") == std::string::npos);
    CHECK(cols.find("const float acc_ = kdt_cu::lanes_reduce<float>(") != std::string::npos);
    CHECK(cols.find(", 64, 256, true, kdt_cu::AddOp{});") != std::string::npos);
  }

  // Issue 19, item 10: a tile value read only element by element in its
  // own layout lives in registers; anything else keeps it in shared memory.
  TEST_CASE("tile values in registers: only where every read is the reading thread's own element") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("r.kd"), R"KD(
kernel regs(x: in f32[1000] @global, y: out f32[1000] @global, z: out f32[8, 125] @global) grid(1) {
    let a = x[...];                       // registers: read only at its own elements
    let b = a * a + 1.0;                  // registers, from registers alone
    y[...] = b - a;
    let c = reshape(x[...], [8, 125]);    // read by an axis reduction: shared memory
    let m = max(c, axis=1, keepdims=true);
    let d = c - m;                        // registers; m is broadcast: shared memory
    z[...] = d;
    let big = x[...] * 2.0;               // 8 slots of f32: 32 bytes, fits
    y[...] = big;
}
kernel wide(x: in f64[4096] @global, y: out f64[4096] @global) grid(1) {
    let t = x[...] + 1.0;                 // 32 slots of f64 per thread: too many
    y[...] = t;
}
)KD");
    const std::string r = cuda_sm90(tmp.file("r.kd"));
    const size_t regs = r.find("regs_kernel("), wide = r.find("wide_kernel(");
    REQUIRE(regs != std::string::npos);
    REQUIRE(wide != std::string::npos);
    const std::string k = r.substr(regs, wide - regs);
    // 1000 elements over 128 threads: 8 slots, the last one partly empty.
    CHECK(k.find("float a[8];  // in registers") != std::string::npos);
    CHECK(k.find("float b[8];  // in registers") != std::string::npos);
    CHECK(k.find("float kd_d[8];  // in registers") != std::string::npos);
    CHECK(k.find("float big[8];  // in registers") != std::string::npos);
    CHECK(k.find("float* const c = ") != std::string::npos);
    CHECK(k.find("float* const m = ") != std::string::npos);
    CHECK(k.find("#pragma unroll") != std::string::npos);
    CHECK(k.find(" = kdt_tid + k") != std::string::npos);
    CHECK(k.find(" * 128;") != std::string::npos);
    CHECK(k.find(" >= 1000) break;") != std::string::npos);
    // `let a = x[...]` (an `in` parameter) and `let b = a * a + 1.0` touch
    // no shared state: no barrier from the first to the end of the second.
    const size_t a_decl = k.find("float a[8];"), b_write = k.find("b[k", a_decl);
    REQUIRE(b_write != std::string::npos);
    const size_t b_end = k.find("}", b_write);
    CHECK(k.substr(a_decl, b_end - a_decl).find("__syncthreads") == std::string::npos);
    // d reads shared c and m: its loop is fenced.
    const size_t d_decl = k.find("float kd_d[8];"), z_store = k.find("z[", d_decl);
    REQUIRE(z_store != std::string::npos);
    CHECK(k.substr(d_decl, z_store - d_decl).find("__syncthreads") != std::string::npos);
    CHECK(r.substr(wide).find("double* const t = ") != std::string::npos);
    if (std::string nvcc = find_tool("nvcc"); !nvcc.empty()) {
      // Once unrolled, the slots are registers: no local memory.
      kdt::test::write_text(tmp.file("r.cu"), r);
      REQUIRE(sh(nvcc + " -std=c++17 -arch=sm_90 -ptx " + tmp.file("r.cu") + " -o " + tmp.file("r.ptx")) == 0);
      const std::string ptx = read_text(tmp.file("r.ptx"));
      CHECK(ptx.find("ld.local") == std::string::npos);
      CHECK(ptx.find("st.local") == std::string::npos);
    }
    // In the samples: every tile of stencil is in registers.
    const std::string stencil = cuda_sm90(sample("stencil"));
    for (const char* name : {"idx", "mid", "lm", "rm", "l", "r"}) {
      INFO(name);
      CHECK(stencil.find(std::string(name) + "[4];  // in registers") != std::string::npos);
    }
  }

  TEST_CASE("without NVRTC and nvcc, --emit=ptx says cuda-toolchain-missing") {
    // Hide the toolchain through the documented switch.
    TempDir tmp;
    std::string cmd = "KDT_NO_CUDA=1 " + shell_quote(kdt::test::kdt_binary()) + " --emit=ptx " + shell_quote(sample("softmax")) +
                      " -o " + shell_quote(tmp.file("x.ptx")) + " 2>" + shell_quote(tmp.file("err"));
    CHECK(sh(cmd) == 2);
    CHECK(read_text(tmp.file("err")).find("error: cuda-toolchain-missing:") != std::string::npos);
  }
}

TEST_SUITE("cuda_nvcc_sm90") {
  TEST_CASE("every single-device sample compiles with nvcc -arch=sm_90 without warnings") { nvcc_all_samples("sm_90"); }
}

TEST_SUITE("cuda_nvcc_sm80") {
  TEST_CASE("every single-device sample compiles with nvcc -arch=sm_80 without warnings") { nvcc_all_samples("sm_80"); }
}

TEST_SUITE("cuda_ptx") {
  TEST_CASE("--emit=ptx assembles with ptxas for sm_90 and sm_80") {
    if (nvcc_or_skip().empty()) return;
    std::string ptxas = find_tool("ptxas");
    REQUIRE(!ptxas.empty());
    TempDir tmp;
    for (const std::string& s : all_samples()) {
      for (std::string arch : {"sm_90", "sm_80"}) {
        INFO(s << " " << arch);
        REQUIRE(emit(sample(s), "ptx", arch, tmp.file("k.ptx")) == 0);
        std::string ptx = read_text(tmp.file("k.ptx"));
        CHECK(ptx.find(".entry") != std::string::npos);
        CHECK(sh(ptxas + " -arch=" + arch + " " + tmp.file("k.ptx") + " -o " + tmp.file("k.cubin") + " 2>" +
                 tmp.file("log")) == 0);
        CHECK(read_text(tmp.file("log")) == "");
      }
    }
  }

  // The per-thread axis reduction keeps its 32 lanes in registers: every
  // lane index is a constant after unrolling (kdt_cu::lanes_reduce).
  TEST_CASE("one thread's 32-lane reduction uses no local memory") {
    if (nvcc_or_skip().empty()) return;
    TempDir tmp;
    kdt::test::write_text(tmp.file("cols.kd"), R"KD(
kernel cols(x: in f32[64, 256] @global, y: out f32[1, 256] @global) grid(1) {
    y[...] = sum(x[...], axis=0, keepdims=true);
}
kernel rows_h(x: in f16[8, 40] @global, y: out f16[8, 1] @global) grid(1) threads(4) {
    y[...] = max(x[...], axis=1, keepdims=true);
}
)KD");
    for (std::string arch : {"sm_90", "sm_80"}) {
      INFO(arch);
      REQUIRE(emit(tmp.file("cols.kd"), "ptx", arch, tmp.file("k.ptx")) == 0);
      const std::string ptx = read_text(tmp.file("k.ptx"));
      CHECK(ptx.find(".entry") != std::string::npos);
      CHECK(ptx.find("ld.local") == std::string::npos);
      CHECK(ptx.find("st.local") == std::string::npos);
    }
  }

  TEST_CASE("the second route: nvcc -ptx when NVRTC is not used") {
    if (nvcc_or_skip().empty()) return;
    TempDir tmp;
    std::string cmd = "KDT_NO_NVRTC=1 " + shell_quote(kdt::test::kdt_binary()) + " --emit=ptx --arch=sm_80 " +
                      shell_quote(sample("accumulate_blocks")) + " -o " + shell_quote(tmp.file("a.ptx")) + " 2>" +
                      shell_quote(tmp.file("err"));
    REQUIRE_MESSAGE(sh(cmd) == 0, read_text(tmp.file("err")));
    std::string ptx = read_text(tmp.file("a.ptx"));
    CHECK(ptx.find(".target sm_80") != std::string::npos);
    CHECK(ptx.find("cp.async.cg.shared.global") != std::string::npos);
  }

  // Issue 19, item 3: --cuda-debug bounds the mbarrier waits (a %globaltimer
  // read in the wait loop), on both the bulk (sm_90) and cp.async (sm_80) routes.
  TEST_CASE("--cuda-debug bounds every mbarrier wait; without it the waits spin") {
    if (nvcc_or_skip().empty()) return;
    for (const char* arch : {"sm_90", "sm_80"}) {
      CAPTURE(arch);
      std::string base = "--emit=ptx --arch=" + std::string(arch) + " " + shell_quote(sample("dma_pipeline"));
      RunResult plain = run_kdt(base), debug = run_kdt(base + " --cuda-debug");
      REQUIRE(plain.status == 0);
      REQUIRE(debug.status == 0);
      CHECK(plain.out.find("%globaltimer") == std::string::npos);
      CHECK(debug.out.find("%globaltimer") != std::string::npos);
    }
  }

  // Issue 19, item 8: the tensor-core `dot` in PTX (wmma.mma.sync; on
  // sm_90a wgmma.mma_async) and, where cuobjdump is installed, in SASS
  // (HMMA for floats, IMMA for i8, HGMMA on sm_90a).
  TEST_CASE("dot on tensor cores: wmma.mma.sync and wgmma in the PTX, HMMA/IMMA/HGMMA in the SASS") {
    std::string nvcc = nvcc_or_skip();
    if (nvcc.empty()) return;
    TempDir tmp;
    for (const char* arch : {"sm_80", "sm_90"}) {
      CAPTURE(arch);
      REQUIRE(emit(sample("mixed_precision"), "ptx", arch, tmp.file("mp.ptx")) == 0);
      std::string mp = read_text(tmp.file("mp.ptx"));
      CHECK(mp.find("wmma.mma.sync.aligned.row.row.m16n16k16.f32.bf16.bf16.f32") != std::string::npos);
      CHECK(mp.find("wmma.mma.sync.aligned.row.row.m16n16k16.s32.s8.s8.s32") != std::string::npos);
      RunResult tf32 = run_kdt("--emit=ptx --cuda-tf32 --arch=" + std::string(arch) + " " + shell_quote(sample("matmul")));
      REQUIRE(tf32.status == 0);
      CHECK(tf32.out.find("wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32") != std::string::npos);
    }
    RunResult wg = run_kdt("--emit=ptx --arch=sm_90a " + shell_quote(sample("block_matmul")));
    REQUIRE(wg.status == 0);
    CHECK(wg.out.find("wgmma.mma_async.sync.aligned.m64n") != std::string::npos);
    CHECK(wg.out.find("wgmma.wait_group.sync.aligned 0") != std::string::npos);
    std::string cuobjdump = find_tool("cuobjdump");
    if (cuobjdump.empty()) {
      MESSAGE("cuobjdump not found (scripts/setup-cuda-tools.sh installs it from PyPI): the SASS checks "
              "(HMMA/IMMA, bulk copies) are skipped; the PTX checks ran");
      return;
    }
    auto sass = [&](const std::string& kd, const std::string& arch, const std::string& flags) {
      return sass_of(tmp, nvcc, cuobjdump, kd, arch, flags);
    };
    for (const char* arch : {"sm_80", "sm_90"}) {
      CAPTURE(arch);
      std::string mp = sass(sample("mixed_precision"), arch, "");
      CHECK(mp.find("HMMA.16816.F32.BF16") != std::string::npos);
      CHECK(mp.find("IMMA.16816.S8.S8") != std::string::npos);
      CHECK(sass(sample("matmul"), arch, "--cuda-tf32").find("HMMA.1684.F32.TF32") != std::string::npos);
      // Without --cuda-tf32 an f32 dot stays exact: no tensor-core instruction.
      CHECK(sass(sample("matmul"), arch, "").find("HMMA") == std::string::npos);
    }
    // sm_90a: warpgroup MMAs (kdt_cuda_wgmma.h) for bf16 and TF32.
    const std::string bf16 = sass(sample("block_matmul"), "sm_90a", "");
    CHECK(bf16.find("HGMMA.64x") != std::string::npos);
    CHECK(bf16.find(".F32.BF16") != std::string::npos);
    CHECK(bf16.find("WARPGROUP.ARRIVE") != std::string::npos);
    CHECK(sass(sample("matmul"), "sm_90a", "--cuda-tf32").find("HGMMA.64x64x8.F32.TF32") != std::string::npos);
  }

  // The DMA lowerings as the GPU runs them (issue 19): on sm_90 the bulk
  // copy engine (UBLKCP) completing on an mbarrier (SYNCS) and the f32 bulk
  // reduce (UBLKRED); on sm_80 cp.async (LDGSTS).
  TEST_CASE("DMA lowerings in the SASS: bulk and tensor copies and reduce on sm_90, cp.async on sm_80") {
    std::string nvcc = nvcc_or_skip();
    if (nvcc.empty()) return;
    std::string cuobjdump = find_tool("cuobjdump");
    if (cuobjdump.empty()) {
      MESSAGE("cuobjdump not found (scripts/setup-cuda-tools.sh installs it from PyPI): the SASS check is skipped");
      return;
    }
    TempDir tmp;
    auto sass = [&](const std::string& kd, const std::string& arch) { return sass_of(tmp, nvcc, cuobjdump, kd, arch); };
    std::string h = sass(sample("accumulate_blocks"), "sm_90");
    CHECK(h.find("UBLKCP.S.G") != std::string::npos);
    CHECK(h.find("UBLKRED.G.S.ADD.F32") != std::string::npos);
    CHECK(h.find("SYNCS.PHASECHK.TRANS64.TRYWAIT") != std::string::npos);
    std::string a = sass(sample("accumulate_blocks"), "sm_80");
    CHECK(a.find("LDGSTS") != std::string::npos);
    CHECK(a.find("UBLKCP") == std::string::npos);
    // Issue 19, item 9: boxes of several rows through tensor maps: a load
    // (UTMALDG), an f32 reduce-add (UTMAREDG) and a store (UTMASTG), each
    // one instruction for the whole box.
    std::string boxes = sass(KDT_SOURCE_DIR "/tests/e2e/regressions/tensor_boxes.kd", "sm_90");
    CHECK(boxes.find("UTMALDG.2D") != std::string::npos);
    CHECK(boxes.find("UTMAREDG.2D.ADD") != std::string::npos);
    CHECK(sass(sample("block_matmul"), "sm_90").find("UTMASTG.2D") != std::string::npos);
    // Issue 19, item 10: tiles loaded from and stored to @global in 16-byte pieces (softmax's rows).
    for (const char* arch : {"sm_90", "sm_80"}) {
      CAPTURE(arch);
      std::string v = sass(sample("softmax"), arch);
      CHECK(v.find("LDG.E.128") != std::string::npos);
      CHECK(v.find("STS.128") != std::string::npos);
      CHECK(v.find("STG.E.128") != std::string::npos);
    }
  }

  TEST_CASE("lowerings on the PTX") {
    if (nvcc_or_skip().empty()) return;
    TempDir tmp;
    // accumulate_blocks: a contiguous global->shared DMA and an f32 add=true shared->global DMA.
    REQUIRE(emit(sample("accumulate_blocks"), "ptx", "sm_90", tmp.file("a.ptx")) == 0);
    std::string a = read_text(tmp.file("a.ptx"));
    CHECK(a.find("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes") != std::string::npos);
    CHECK(a.find("mbarrier.arrive.expect_tx") != std::string::npos);
    CHECK(a.find("mbarrier.try_wait.parity") != std::string::npos);
    CHECK(a.find("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32") != std::string::npos);
    // Issue 19, item 9: a wait for one bulk store leaves the younger ones in
    // flight (wait_group N, N = the stores committed after it), not wait_group 0.
    REQUIRE(emit(sample("dma_pipeline"), "ptx", "sm_90", tmp.file("p.ptx")) == 0);
    std::string p = read_text(tmp.file("p.ptx"));
    CHECK(p.find("cp.async.bulk.wait_group 1;") != std::string::npos);
    // Issue 19, item 9: matmul's tiles are boxes of 64 and 32 rows, one tensor
    // copy each on sm_90 (a map per operand, encoded by the launcher); none on sm_80.
    RunResult mm90 = run_kdt("--emit=ptx --arch=sm_90 " + shell_quote(sample("matmul")));
    RunResult mm80 = run_kdt("--emit=ptx --arch=sm_80 " + shell_quote(sample("matmul")));
    REQUIRE(mm90.status == 0);
    REQUIRE(mm80.status == 0);
    CHECK(mm90.out.find("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes") != std::string::npos);
    CHECK(mm80.out.find("cp.async.bulk.tensor") == std::string::npos);
    CHECK(p.find("cp.async.bulk.wait_group 7;") != std::string::npos);
    REQUIRE(emit(sample("dma_pipeline"), "cuda", "sm_90", tmp.file("p.cu")) == 0);
    std::string pc = read_text(tmp.file("p.cu"));
    CHECK(pc.find("dma_start on `out_sem`\", ++kdt_bulk_groups);") != std::string::npos);
    CHECK(pc.find("dma_wait on `out_sem`\", kdt_bulk_groups);") != std::string::npos);
    // sm_80: no bulk copies at all ...
    REQUIRE(emit(sample("accumulate_blocks"), "ptx", "sm_80", tmp.file("a80.ptx")) == 0);
    std::string a80 = read_text(tmp.file("a80.ptx"));
    CHECK(a80.find("cp.async.bulk") == std::string::npos);
    CHECK(a80.find("cp.reduce.async.bulk") == std::string::npos);
    // ... but 16-byte cp.async for global->shared, completed on the slot's mbarrier.
    CHECK(a80.find("cp.async.cg.shared.global") != std::string::npos);
    CHECK(a80.find("cp.async.mbarrier.arrive.shared.b64") != std::string::npos);
    CHECK(a80.find("mbarrier.test_wait.parity.shared.b64") != std::string::npos);
    // Rows of 8 and 4 bytes: cp.async of that width, on both archs.
    kdt::test::write_text(tmp.file("narrow.kd"), kNarrowRows);
    for (std::string arch : {"sm_80", "sm_90"}) {
      REQUIRE(emit(tmp.file("narrow.kd"), "ptx", arch, tmp.file("n.ptx")) == 0);
      std::string n = read_text(tmp.file("n.ptx"));
      CHECK_MESSAGE(n.find("cp.async.ca.shared.global [%r") != std::string::npos, arch);
      CHECK_MESSAGE(n.find("], 8;") != std::string::npos, arch);
      CHECK_MESSAGE(n.find("], 4;") != std::string::npos, arch);
      CHECK_MESSAGE(n.find("cp.async.bulk.shared") == std::string::npos, arch);
    }
    // An i8 add=true takes the cooperative path (atomic CAS on the containing word).
    kdt::test::write_text(tmp.file("c.kd"), kConstructs);
    REQUIRE(emit(tmp.file("c.kd"), "ptx", "sm_90", tmp.file("c.ptx")) == 0);
    std::string c = read_text(tmp.file("c.ptx"));
    CHECK(c.find("cp.reduce.async.bulk") == std::string::npos);
    CHECK(c.find("atom.cas.b32") != std::string::npos);
    // The asm bodies arrive in the PTX with registers of the operand widths.
    CHECK(c.find("add.rn.f16 %rs") != std::string::npos);
    CHECK(c.find("add.rn.f64 %fd") != std::string::npos);
    CHECK(c.find("xor.b64 %rd") != std::string::npos);
    CHECK(c.find("not.b32 %r") != std::string::npos);
    // Bulk reduce for each dtype PTX allows (i64 as .u64, f16/bf16 with .noftz).
    kdt::test::write_text(tmp.file("adds.kd"), kAdds);
    REQUIRE(emit(tmp.file("adds.kd"), "ptx", "sm_90", tmp.file("adds.ptx")) == 0);
    std::string adds = read_text(tmp.file("adds.ptx"));
    for (const char* suffix : {".add.s32", ".add.u32", ".add.u64", ".add.f64", ".add.noftz.f16", ".add.noftz.bf16"}) {
      CHECK_MESSAGE(adds.find(std::string("cp.reduce.async.bulk.global.shared::cta.bulk_group") + suffix) != std::string::npos,
                    suffix);
    }
    CHECK(adds.find("atom.cas.b32") != std::string::npos);  // the i16 add
    // devices(N): remote adds and semaphore counters at system scope, waits acquire.
    REQUIRE(emit(sample("remote_accumulate"), "ptx", "sm_90", tmp.file("r.ptx")) == 0);
    std::string r = read_text(tmp.file("r.ptx"));
    CHECK(r.find("atom.global.sys.add.f32") != std::string::npos);
    // (the counter's address may stay generic: atom.sys.add.u64 is the same operation)
    CHECK(std::regex_search(r, std::regex("atom(\\.global)?\\.sys\\.add\\.u64")));
    CHECK(r.find("ld.acquire.sys.global.u64") != std::string::npos);
    CHECK(r.find("membar.sys") != std::string::npos);
    CHECK(r.find("cp.reduce.async.bulk") == std::string::npos);
  }
}

TEST_SUITE("cuda_link") {
  TEST_CASE("a host program using the launcher API links against cudart") {
    link_host_program(sample("accumulate_blocks"), R"CU(
#include "kernels.cuh"
#include <cstdio>
int main() {
  float *x = nullptr, *out = nullptr;
  cudaStream_t stream;
  if (cudaStreamCreate(&stream) != cudaSuccess) return 1;
  cudaMalloc(&x, 1024 * 256 * sizeof(float));
  cudaMalloc(&out, 128 * 256 * sizeof(float));
  cudaError_t e = kdt_kernels::accumulate_blocks(x, out, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
)CU");
  }

  TEST_CASE("a host program using the devices(N) launcher links against cudart") {
    link_host_program(sample("ring_exchange"), R"CU(
#include "kernels.cuh"
#include <cstdio>
int main() {
  constexpr int N = kdt_kernels::ring_exchange_devices;
  float *xw[N], *recv[N], *mixed[N];
  const float* x[N];
  void* sync[N];
  int device[N];
  cudaStream_t stream[N];
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 1;
  for (int d = 0; d < N; ++d) {
    device[d] = d % count;
    cudaSetDevice(device[d]);
    cudaStreamCreate(&stream[d]);
    cudaMalloc(&xw[d], 128 * 64 * sizeof(float));
    x[d] = xw[d];
    cudaMalloc(&recv[d], 128 * 64 * sizeof(float));
    cudaMalloc(&mixed[d], 128 * 64 * sizeof(float));
    cudaMalloc(&sync[d], kdt_kernels::ring_exchange_sync_bytes);
  }
  cudaError_t e = kdt_kernels::ring_exchange(x, recv, mixed, sync, device, stream);
  for (int d = 0; d < N && e == cudaSuccess; ++d) e = cudaStreamSynchronize(stream[d]);
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
)CU");
  }
}
