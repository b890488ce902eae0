// What --devices=nvshmem changes in a devices(N) kernel's CUDA (issue 20;
// kdt_cuda_nvshmem.h has the runtime): counters are NVSHMEM signal words
// in the symmetric sync buffer, a remote copy is nvshmem_putmem_nbi per
// contiguous run, and the launcher starts this PE's grid with
// nvshmemx_collective_launch. Without it, the same operations go through
// the peer table (cuda_kernel.cpp, kdt_cuda_sync.h).
#include "cuda_kernel_emitter.h"

namespace kdt::cuda {

using emit::count_of;

std::string KernelEmitter::signal_counter(const ir::SemRef& r, const std::string& device, const std::string& amount) {
  // A symmetric address names the same counter on every PE.
  if (nvshmem()) return "kdt_cu::signal_pe(" + sync_counter(r) + ", " + amount + ", " + (device.empty() ? "kdt_device" : device) + ");";
  return "kdt_cu::signal_sys(" + sync_counter(r, device) + ", " + amount + ");";
}

std::string KernelEmitter::wait_counter(const ir::SemRef& r, const std::string& amount, const std::string& site) {
  return std::string(nvshmem() ? "kdt_cu::wait_pe(" : "kdt_cu::wait_sys(") + sync_counter(r) + ", " + amount + ", " + site + ");";
}

std::string KernelEmitter::read_counter(const ir::SemRef& r) {
  return std::string(nvshmem() ? "kdt_cu::read_pe(" : "kdt_cu::read_sys(") + sync_counter(r) + ", kdt_red)";
}

// Each thread puts its share of the rows: runs of the innermost dimension
// when it is the ref's own innermost one in both views (contiguous), else
// single elements.
void KernelEmitter::put_runs(const ir::Stmt& s, const std::vector<std::string>& src_starts,
                             const std::vector<std::string>& dst_starts, const std::string& device) {
  const ir::View& src = *s.src;
  const ir::View& dst = *s.dst;
  Shape rows = src.shape();
  int64_t run = 1;
  if (!rows.empty() && !src.dims.back().dropped && !dst.dims.back().dropped) {
    run = rows.back();
    rows.back() = 1;
  }
  const std::string T = ctype(k_.refs[src.ref].dtype);
  w_.line("// nvshmem_putmem_nbi: " + std::to_string(run) + "-element runs into device `" + device + "`'s copy");
  LoopCtx ctx = new_ctx(rows);
  open_loop(ctx);
  w_.line("nvshmem_putmem_nbi(" + ref_base(dst.ref) + " + " + view_elem_offset(dst, dst_starts, ctx) + ", " +
          ref_base(src.ref) + " + " + view_elem_offset(src, src_starts, ctx) + ", " + std::to_string(run) + " * sizeof(" +
          T + "), " + device + ");");
  close_loop(ctx);
}

void KernelEmitter::emit_nvshmem_launcher() {
  std::string n = std::to_string(k_.devices);
  std::string K = names_.kernel;
  std::string sig, args;
  for (auto [is_ref, i] : k_.params) {
    sig += param_type(is_ref, i) + " " + param_name(is_ref, i) + ", ";
    args += "&" + param_name(is_ref, i) + ", ";
  }
  emit_multi_device_constants();
  out_.line("// Launches `" + K + "` as device nvshmem_my_pe() of " + n + " NVSHMEM PEs (nvshmem_n_pes() must be " + n + ";");
  out_.line("// every PE calls this, as for any collective). Every ref is this PE's copy on the symmetric heap");
  out_.line("// (nvshmem_malloc, in the same order on every PE); scalars are the same on every PE. The sync");
  out_.line("// buffer is allocated on the symmetric heap at the first launch (collectively) and kept; it is");
  out_.line("// zeroed on `stream` and every PE waits for every other's before its grid starts. Returns the first error.");
  out_.open("inline cudaError_t " + K + "(" + sig + "cudaStream_t stream = 0) {");
  out_.line("if (nvshmem_n_pes() != " + n + ") return cudaErrorInvalidConfiguration;");
  emit_shared_memory_opt_in();
  out_.line("static void* sync = nullptr;");
  out_.open("if (!sync) {");
  out_.line("sync = nvshmem_malloc(" + own("_sync_bytes") + ");");
  out_.line("if (!sync) return cudaErrorMemoryAllocation;");
  out_.close();
  out_.line("// The peers this PE reaches by load and store (nvshmem_ptr; null on another node).");
  out_.line(own("_peers") + " peers{};");
  out_.open("for (int d = 0; d < " + n + "; ++d) {");
  for (int ref : peer_refs_) {
    out_.line("peers." + names_.refs[ref] + "[d] = static_cast<" + ctype(k_.refs[ref].dtype) + "*>(nvshmem_ptr(" +
              names_.refs[ref] + ", d));");
  }
  out_.line("peers.sync[d] = static_cast<unsigned long long*>(nvshmem_ptr(sync, d));");
  out_.close();
  out_.line("int32_t device_ = nvshmem_my_pe();");
  out_.line("peers.sync[device_] = static_cast<unsigned long long*>(sync);");
  out_.line("if (cudaError_t e = cudaMemsetAsync(sync, 0, " + own("_sync_bytes") + ", stream); e != cudaSuccess) return e;");
  out_.line("nvshmemx_barrier_all_on_stream(stream);  // no PE signals into a buffer not yet zeroed");
  out_.line("void* args[] = {" + args + "&peers, &device_};");
  out_.line("if (nvshmemx_collective_launch(reinterpret_cast<const void*>(" + own("_kernel") + "), dim3(" + own("_blocks") +
            "), dim3(" + own("_threads") + "), args, " + own("_shared_bytes") + ", stream) != 0) return cudaErrorLaunchFailure;");
  out_.line("return cudaGetLastError();");
  out_.close();
  out_.line("#endif  // __CUDACC_RTC__");
  out_.line();
}

}  // namespace kdt::cuda
