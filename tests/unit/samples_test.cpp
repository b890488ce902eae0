// Every sample checks clean through the binary, and the emitted text of a
// few samples (AST, IR before and after discharge, C++, CUDA) matches its golden file
// (KDT_UPDATE_GOLDENS=1 rewrites them).
#include <doctest/doctest.h>

#include <cstdlib>

#include "test_support.h"

namespace fs = std::filesystem;

namespace {

// Runs kdt from the source directory so that paths in the output are relative.
kdt::test::RunResult run_in_source(const std::string& args) {
  return kdt::test::run_kdt("--color=never " + args);
}

// `emit` is the --emit value plus any flags. For emitted C++ and CUDA only
// the kernels are compared (from `namespace kdt_kernels {` on): the embedded
// runtime prelude is checked against its header elsewhere.
void golden(const std::string& sample, const std::string& emit, const std::string& golden_name) {
  kdt::test::TempDir tmp;
  std::string cmd = "cd " + kdt::test::shell_quote(kdt::test::source_dir()) + " && " +
                    kdt::test::shell_quote(kdt::test::kdt_binary()) + " --emit=" + emit + " samples/" + sample +
                    " > " + tmp.file("out") + " 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string actual = kdt::test::read_text(tmp.file("out"));
  if (size_t kernels = actual.find("\nnamespace kdt_kernels {"); kernels != std::string::npos) {
    actual = actual.substr(kernels + 1);
  }
  std::string path = kdt::test::source_dir() + "/tests/golden/" + golden_name;
  const char* update = std::getenv("KDT_UPDATE_GOLDENS");
  if (update && std::string(update) == "1") {
    kdt::test::write_text(path, actual);
    return;
  }
  REQUIRE_MESSAGE(fs::exists(path), "missing golden " << path << " (run with KDT_UPDATE_GOLDENS=1)");
  CHECK_MESSAGE(actual == kdt::test::read_text(path),
                "output of --emit=" << emit << " for " << sample << " differs from " << path
                                    << "; if intended, regenerate with KDT_UPDATE_GOLDENS=1 and review `git diff`");
}

}  // namespace

TEST_SUITE("samples") {
  TEST_CASE("every sample checks clean") {
    int count = 0;
    for (const auto& entry : fs::directory_iterator(kdt::test::source_dir() + "/samples")) {
      if (entry.path().extension() != ".kd") continue;
      ++count;
      kdt::test::RunResult r = run_in_source(kdt::test::shell_quote(entry.path().string()));
      CAPTURE(entry.path().string());
      CHECK(r.status == 0);
      CHECK(r.err.empty());
    }
    CHECK(count >= 8);
  }

  TEST_CASE("golden --emit=ast") {
    golden("accumulate_blocks.kd", "ast", "accumulate_blocks.ast.json");
    golden("ragged_edge.kd", "ast", "ragged_edge.ast.json");
  }

  // The IR before discharge: what the CUDA emitter reads.
  TEST_CASE("golden --emit=ir") {
    golden("accumulate_blocks.kd", "ir", "accumulate_blocks.ir");
    golden("dma_pipeline.kd", "ir", "dma_pipeline.ir");
    golden("ring_exchange.kd", "ir", "ring_exchange.ir");
    golden("ptx_fallback.kd", "ir", "ptx_fallback.ir");
    golden("mesh_allreduce.kd", "ir", "mesh_allreduce.ir");  // functions and descriptors expanded
    golden("reduce_scatter.kd", "ir", "reduce_scatter.ir");
    golden("scoped_barrier.kd", "ir", "scoped_barrier.ir");  // scope_enter / scope_exit in the step loop
    golden("ring_allreduce.kd", "ir", "ring_allreduce.ir");
    golden("generic_matmul.kd", "ir", "generic_matmul.ir");  // instances named after their generics
    golden("peer_scratch.kd", "ir", "peer_scratch.ir");      // returned descriptors
    golden("collatz.kd", "ir", "collatz.ir");                // while, data-dependent
    golden("fifo_hazard.kd", "ir", "fifo_hazard.ir");
    golden("block_matmul.kd --kernel=matmul", "ir", "block_matmul.ir");  // the block-spec pipeline (section 13)
    golden("block_rows.kd --kernel=layernorm", "ir", "block_rows.ir");   // one step: no loop, one buffer
    golden("all_gather_steps.kd", "ir", "all_gather_steps.ir");          // the grid as the step loop
  }

  // The IR after discharge: what the C++ emitter reads.
  TEST_CASE("golden --emit=discharged-ir") {
    golden("accumulate_blocks.kd", "discharged-ir", "accumulate_blocks.discharged-ir");
    golden("partial_accumulate.kd", "discharged-ir", "partial_accumulate.discharged-ir");
    golden("ptx_fallback.kd", "discharged-ir", "ptx_fallback.discharged-ir");
  }

  TEST_CASE("golden --emit=cpp") {
    golden("accumulate_blocks.kd", "cpp", "accumulate_blocks.cpp");
    golden("ptx_translate.kd", "cpp --no-checks", "ptx_translate.no-checks.cpp");
    golden("scoped_barrier.kd", "cpp", "scoped_barrier.cpp");  // the checks at each scope's entry and exit
    golden("block_reduce.kd", "cpp", "block_reduce.cpp");      // the steps of a sequence in one program
    // Devices as MPI ranks (issue 20): the launch in a window, remote DMAs' arrivals, the harness's gather.
    golden("ring_exchange.kd", "cpp --harness --devices=mpi", "ring_exchange.mpi.cpp");
    // Free-running devices with -j (issue 17): communication under the scheduler's lock, the rerun wrapper.
    golden("ring_exchange.kd", "cpp --no-checks", "ring_exchange.no-checks.cpp");
  }

  // The bindings after the kernels (docs/c-api.md): the C ABI, and the XLA
  // FFI handlers of a multi-device kernel with scalars (devices first).
  TEST_CASE("golden --emit=c-api and --emit=xla-ffi") {
    golden("accumulate_blocks.kd", "c-api", "accumulate_blocks.c-api.cpp");
    golden("dma_pipeline.kd", "xla-ffi", "dma_pipeline.xla-ffi.cpp");
    golden("ring_exchange.kd", "xla-ffi", "ring_exchange.xla-ffi.cpp");
    // The CUDA platform's handlers: XLA's stream, scalars (f32) as attributes.
    golden("layernorm.kd", "cuda-xla-ffi --arch=sm_90", "layernorm.cuda-xla-ffi.cu");
  }

  TEST_CASE("golden --emit=cuda") {
    golden("accumulate_blocks.kd", "cuda --arch=sm_90", "accumulate_blocks.sm_90.cu");
    golden("dma_pipeline.kd", "cuda --arch=sm_80", "dma_pipeline.sm_80.cu");
    golden("ring_exchange.kd", "cuda --arch=sm_90", "ring_exchange.sm_90.cu");
    golden("mesh_allreduce.kd", "cuda --arch=sm_80", "mesh_allreduce.sm_80.cu");  // mesh ids as linear ids
    golden("peer_scratch.kd", "cuda --arch=sm_90", "peer_scratch.sm_90.cu");  // remote DMAs into @shared, staged
    golden("block_matmul.kd --kernel=matmul", "cuda --arch=sm_90", "block_matmul.sm_90.cu");  // steps as a loop, bulk copies
  }
}
