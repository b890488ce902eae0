// The CUDA back end: shared-memory layout, the `__global__` function and
// its body's prologue, and the host launchers (docs/cuda.md, "The mapping",
// "devices(N)").
#include <algorithm>

#include "analysis/explorer.h"
#include "cuda_kernel_emitter.h"
#include "kdt/version.h"

namespace kdt::cuda {

bool KernelEmitter::size_queues() {
  analysis::Explorer explorer(k_);
  explorer.run();
  bool ok = true;
  for (size_t i = 0; i < k_.sems.size(); ++i) {
    const int sem = static_cast<int>(i);
    if (k_.sems[i].kind != SemKind::Dma || sync_sem(sem)) continue;
    std::optional<int64_t> bound = explorer.in_flight_bound(sem);
    if (!bound) continue;  // kQueue, and a trap naming the DMA if it overflows
    if (*bound > kMaxQueue) {
      diags_.report(DiagCode::LimitExceeded, k_.range,
                    "kernel `" + names_.kernel + "` has up to " + std::to_string(*bound) + " DMAs in flight at once on " +
                        "semaphore `" + k_.sems[i].kd_name + "`; the compiled path holds at most " + std::to_string(kMaxQueue) +
                        " per semaphore element (`kdt run` runs it as it is)");
      ok = false;
      continue;
    }
    queue_cap_[sem] = std::max<int64_t>(*bound, 1);
  }
  return ok;
}

bool KernelEmitter::emit() {
  if (threads_ > 1024) {
    diags_.report(DiagCode::InvalidDeclaration, k_.range,
                  "kernel `" + names_.kernel + "` asks for " + std::to_string(threads_) +
                      " threads per block; CUDA allows at most 1024 (threads(T) or --threads)");
    return false;
  }
  layout_sync(k_.body);
  if (!layout_staging() || !size_queues()) return false;
  ir::for_each_expr(k_, [&](const ir::Expr& e) {
    if (e.kind == ExprKind::SemRead && k_.sems[e.sem->sem].kind == SemKind::Dma && !sync_sem(e.sem->sem)) {
      read_dma_sems_.insert(e.sem->sem);
    }
  });
  // Issue 19, item 5: global memory the generic proxy writes (stores,
  // cooperative and atomic DMAs, a peer's remote DMAs) must be fenced
  // against the async proxy before a bulk copy reads or writes it.
  ir::for_each_stmt(k_.body, [&](const ir::Stmt& st) {
    if (st.kind == ir::StmtKind::Store && k_.refs[st.view->ref].space == MemSpace::Global) {
      generic_global_writes_.insert(st.view->ref);
    }
    if (st.kind == ir::StmtKind::DmaStart && k_.refs[st.dst->ref].space == MemSpace::Global &&
        (st.device || st.add || k_.refs[st.src->ref].space == MemSpace::Global)) {
      generic_global_writes_.insert(st.dst->ref);
    }
  });
  layout_state();
  ir::for_each_stmt(k_.body, [&](const ir::Stmt& st) {
    if (st.kind == ir::StmtKind::DmaStart && st.add && k_.refs[st.dst->ref].space == MemSpace::Global &&
        !bulk_add_eligible(st)) {
      atomic_add_refs_.insert(st.dst->ref);
    }
  });
  plan_tensor_maps();
  emit_body();
  const int64_t limit = kdt_cu::max_shared_per_block(arch_);
  if (peak_ > limit) {
    DiagnosticBuilder d = diags_.report(DiagCode::InvalidDeclaration, k_.range,
                                        "kernel `" + names_.kernel + "` needs " + std::to_string(peak_) +
                                            " bytes of shared memory for its scratch buffers and tile values on the "
                                            "compiled path; " + options_.arch + " allows " + std::to_string(limit) +
                                            " per block");
    std::string blocks;
    for (const ir::Ref& r : k_.refs) {
      if (r.block_of.empty()) continue;
      int64_t bytes = dtype_bytes(r.dtype);
      for (int64_t n : r.shape) bytes *= n;
      blocks += (blocks.empty() ? "" : ", ") + std::string("`") + r.block_of + "` " + std::to_string(bytes);
    }
    if (!blocks.empty()) {
      d.note("the block specs' buffers (two per block along a sequence) take bytes: " + blocks +
             "; smaller blocks fit");
    }
    return false;
  }
  emit_kernel();
  emit_launcher();
  return true;
}

int64_t KernelEmitter::alloc(int64_t bytes) {
  top_ = (top_ + 127) / 128 * 128;
  int64_t off = top_;
  top_ += std::max<int64_t>(bytes, 1);
  peak_ = std::max(peak_, top_);
  return off;
}

std::string KernelEmitter::smem_ptr(DType t, int64_t off) {
  return "reinterpret_cast<" + ctype(t) + "*>(kdt_smem + " + std::to_string(off) + ")";
}

void KernelEmitter::layout_state() {
  for (size_t i = 0; i < k_.refs.size(); ++i) {
    const ir::Ref& r = k_.refs[i];
    if (!r.is_param) ref_off_[static_cast<int>(i)] = alloc(count_of(r.shape) * elem_size(r.dtype));
  }
  red_off_ = alloc(static_cast<int64_t>(threads_) * 8);
  if (use_mbarriers()) {
    for (size_t i = 0; i < k_.sems.size(); ++i) {
      if (k_.sems[i].kind == SemKind::Dma && !sync_sem(static_cast<int>(i))) {
        bar_off_[static_cast<int>(i)] = alloc(k_.sems[i].count * queue_cap(static_cast<int>(i)) * kMbarBytes);
      }
    }
  }
}

void KernelEmitter::layout_sync(const ir::Block& b) {
  if (!multi_device()) return;
  auto add_sem = [&](int sem) {
    if (sync_base_.count(sem)) return;
    sync_base_[sem] = sync_slots_;
    sync_slots_ += k_.sems[sem].count;
  };
  for (size_t i = 0; i < k_.sems.size(); ++i) {
    if (k_.sems[i].kind == SemKind::Regular) add_sem(static_cast<int>(i));
  }
  ir::for_each_stmt(b, [&](const ir::Stmt& st) {
    if (st.kind != ir::StmtKind::DmaStart || !st.device) return;
    add_sem(st.sem.sem);
    // A scratch destination is staged (cuda_staging.cpp), not reached through a peer pointer.
    if (k_.refs[st.dst->ref].is_param) peer_refs_.insert(st.dst->ref);
  });
}

std::string KernelEmitter::sync_counter(const ir::SemRef& r, const std::string& device) {
  std::string dev = device.empty() ? "kdt_device" : device;
  return "(kdt_peers.sync[" + dev + "] + kdt_flat * " + std::to_string(sync_slots_) + " + " +
         std::to_string(sync_base_.at(r.sem)) + " + " + sem_index(r) + ")";
}

std::string KernelEmitter::ref_base(int ref) const {
  const ir::Ref& r = k_.refs[ref];
  return r.is_param ? names_.refs[ref] : "kdt_s_" + names_.refs[ref];
}

std::string KernelEmitter::param_type(bool is_ref, int i) const {
  if (!is_ref) return ctype(k_.scalars[i].dtype);
  const ir::Ref& r = k_.refs[i];
  return std::string(r.writable ? "" : "const ") + ctype(r.dtype) + "*";
}

std::string KernelEmitter::params_decl() {
  std::string sig;
  for (auto [is_ref, i] : k_.params) sig += (sig.empty() ? "" : ", ") + param_type(is_ref, i) + " " + param_name(is_ref, i);
  if (multi_device()) sig += std::string(sig.empty() ? "" : ", ") + "const " + names_.kernel + "_peers kdt_peers, const int32_t kdt_device";
  return sig;
}

void KernelEmitter::emit_peer_table() {
  std::string n = std::to_string(k_.devices);
  out_.line("// Peer table of `" + names_.kernel + "`: entry d is device d's copy (peer access enabled by the caller).");
  out_.open("struct " + names_.kernel + "_peers {");
  for (int ref : peer_refs_) out_.line(ctype(k_.refs[ref].dtype) + "* " + names_.refs[ref] + "[" + n + "];");
  out_.line("unsigned long long* sync[" + n + "];  // sync buffers (" + names_.kernel + "_sync_bytes each)");
  out_.close("};");
}

void KernelEmitter::emit_kernel() {
  if (multi_device()) emit_peer_table();
  if (!tensor_maps_.empty()) emit_tensor_maps_type();
  out_.line("// Kernel `" + names_.kernel + "`: grid " + shape_string(k_.grid) + " = " + std::to_string(count_of(k_.grid)) +
            " blocks of " + std::to_string(threads_) + " threads, " + std::to_string(peak_) +
            " bytes of dynamic shared memory.");
  std::string params = params_decl();
  if (!tensor_maps_.empty()) {
    params += std::string(params.empty() ? "" : ", ") + "const __grid_constant__ " + names_.kernel + kTensorMapsSuffix + " kdt_tensor_maps";
  }
  out_.line("__global__ void __launch_bounds__(" + std::to_string(threads_) + ") " + names_.kernel + "_kernel(" + params + ")");
  out_.raw(w_.str());
  out_.line();
}

void KernelEmitter::emit_launcher() {
  if (multi_device()) return emit_multi_device_launcher();
  std::string args;
  for (auto [is_ref, i] : k_.params) args += (args.empty() ? "" : ", ") + (is_ref ? names_.refs[i] : names_.scalars[i]);
  if (!tensor_maps_.empty()) args += std::string(args.empty() ? "" : ", ") + "kdt_tensor_maps";
  std::string sig = params_decl();
  out_.line("#ifndef __CUDACC_RTC__");
  out_.line("constexpr unsigned " + names_.kernel + "_threads = " + std::to_string(threads_) + ";");
  out_.line("constexpr unsigned " + names_.kernel + "_blocks = " + std::to_string(count_of(k_.grid)) + ";");
  out_.line("constexpr size_t " + names_.kernel + "_shared_bytes = " + std::to_string(peak_) + ";");
  out_.line("// Launches `" + names_.kernel + "` on `stream`: device pointers (row-major), scalars by value.");
  out_.line("// Returns the launch status (cudaGetLastError after the launch).");
  out_.open("inline cudaError_t " + names_.kernel + "(" + sig + (sig.empty() ? "" : ", ") + "cudaStream_t stream = 0) {");
  emit_shared_memory_opt_in();
  if (!tensor_maps_.empty()) emit_tensor_maps_encode();
  out_.line(own("_kernel") + "<<<dim3(" + own("_blocks") + "), dim3(" + own("_threads") + "), " + own("_shared_bytes") +
            ", stream>>>(" + args + ");");
  out_.line("return cudaGetLastError();");
  out_.close();
  out_.line("#endif  // __CUDACC_RTC__");
  out_.line();
}

// A launcher's first lines: the dynamic shared memory fits the device, and
// past 48 KiB the kernel opts in to it.
void KernelEmitter::emit_shared_memory_opt_in() {
  out_.line("if (cudaError_t e = kdt_cu::shared_memory_fits(\"" + k_.kd_name + "\", " + own("_shared_bytes") +
            "); e != cudaSuccess) return e;");
  out_.open("if (" + own("_shared_bytes") + " > 48 * 1024) {");
  out_.line("cudaError_t e = cudaFuncSetAttribute(" + own("_kernel") + ", cudaFuncAttributeMaxDynamicSharedMemorySize, "
            "static_cast<int>(" + own("_shared_bytes") + "));");
  out_.line("if (e != cudaSuccess) return e;");
  out_.close();
}

void KernelEmitter::emit_multi_device_constants() {
  std::string K = names_.kernel;
  out_.line("#ifndef __CUDACC_RTC__");
  out_.line("constexpr int " + K + "_devices = " + std::to_string(k_.devices) + ";");
  out_.line("constexpr unsigned " + K + "_threads = " + std::to_string(threads_) + ";");
  out_.line("constexpr unsigned " + K + "_blocks = " + std::to_string(count_of(k_.grid)) + ";");
  out_.line("constexpr size_t " + K + "_shared_bytes = " + std::to_string(peak_) + ";");
  out_.line("constexpr size_t " + K + "_sync_bytes = " +
            std::to_string(std::max<int64_t>(counter_bytes() + count_of(k_.grid) * stage_bytes_, 8)) + ";");
}

void KernelEmitter::emit_multi_device_launcher() {
  if (nvshmem()) return emit_nvshmem_launcher();
  std::string n = std::to_string(k_.devices);
  std::string K = names_.kernel;
  std::string sig;
  for (auto [is_ref, i] : k_.params) {
    std::string t = param_type(is_ref, i);
    sig += (is_ref ? t + " const" : "const " + t) + " (&" + param_name(is_ref, i) + ")[" + n + "], ";
  }
  emit_multi_device_constants();
  out_.line("// Launches `" + K + "` on " + n + " devices at once. Every argument is indexed by device: device d runs");
  out_.line("// on CUDA device `device[d]` and stream `stream[d]` with its own parameters; `sync[d]` is");
  out_.line("// " + K + "_sync_bytes of memory on device d (zeroed here). Peer access between the devices must be");
  out_.line("// enabled. Returns the first error.");
  out_.open("inline cudaError_t " + K + "(" + sig + "void* const (&sync)[" + n + "], const int (&device)[" + n +
            "], const cudaStream_t (&stream)[" + n + "]) {");
  out_.line(own("_peers") + " peers{};");
  out_.open("for (int d = 0; d < " + n + "; ++d) {");
  for (int ref : peer_refs_) out_.line("peers." + names_.refs[ref] + "[d] = " + names_.refs[ref] + "[d];");
  out_.line("peers.sync[d] = static_cast<unsigned long long*>(sync[d]);");
  out_.close();
  out_.line("kdt_cu::DeviceGroup<" + n + "> group(device, stream);");
  out_.line("cudaError_t e = group.prepare(\"" + k_.kd_name + "\", reinterpret_cast<const void*>(" + own("_kernel") + "), " +
            own("_threads") + ", " + own("_shared_bytes") + ", " + own("_blocks") + ", sync, " + own("_sync_bytes") + ");");
  out_.open("for (int d = 0; d < " + n + " && e == cudaSuccess; ++d) {");
  std::string args;
  for (auto [is_ref, i] : k_.params) {
    std::string name = param_name(is_ref, i);
    out_.line(param_type(is_ref, i) + " " + name + "_ = " + name + "[d];");
    args += "&" + name + "_, ";
  }
  out_.line("int32_t device_ = d;");
  out_.line("void* args[] = {" + args + "&peers, &device_};");
  out_.line("e = group.launch(d, reinterpret_cast<const void*>(" + own("_kernel") + "), " + own("_blocks") + ", " +
            own("_threads") + ", args, " + own("_shared_bytes") + ");");
  out_.close();
  out_.line("return group.finish(e);");
  out_.close();
  out_.line("#endif  // __CUDACC_RTC__");
  out_.line();
}

void KernelEmitter::emit_body() {
  w_.open("{");
  w_.line("extern __shared__ __align__(128) unsigned char kdt_smem[];");
  w_.line("const int64_t kdt_tid = threadIdx.x;");
  w_.line("const int64_t kdt_nt = blockDim.x;");
  w_.line("(void)kdt_tid;");
  w_.line("(void)kdt_nt;");
  w_.line("unsigned char* const kdt_red = kdt_smem + " + std::to_string(red_off_) + ";");
  w_.line("(void)kdt_red;");
  w_.line("const int64_t kdt_flat = blockIdx.x;");
  int64_t stride = 1;
  std::vector<std::string> pid(k_.grid.size());
  for (size_t d = k_.grid.size(); d-- > 0;) {
    w_.line("const int32_t kdt_pid" + std::to_string(d) + " = static_cast<int32_t>(kdt_flat / " + std::to_string(stride) +
            " % " + std::to_string(k_.grid[d]) + ");");
    w_.line("(void)kdt_pid" + std::to_string(d) + ";");
    stride *= k_.grid[d];
  }
  for (auto [ref, off] : ref_off_) {
    const ir::Ref& r = k_.refs[ref];
    w_.line(ctype(r.dtype) + "* const " + ref_base(ref) + " = " + smem_ptr(r.dtype, off) + ";  // scratch " +
            type_string(Type::ref(r.dtype, r.shape, r.space)));
    w_.line("(void)" + ref_base(ref) + ";");
  }
  for (size_t i = 0; i < k_.sems.size(); ++i) {
    const ir::Semaphore& s = k_.sems[i];
    if (sync_sem(static_cast<int>(i))) {
      w_.line("// semaphore `" + names_.sems[i] + "`: counters in the sync buffer (other devices raise it)");
    } else if (s.kind == SemKind::Regular) {
      // Only this program raises and lowers its regular semaphores, and every
      // thread runs the same control flow: each keeps the counter itself.
      w_.line("int32_t kdt_sem_" + names_.sems[i] + "[" + std::to_string(s.count) + "] = {};");
    } else {
      w_.line("kdt_cu::DmaQueue<" + std::to_string(queue_cap(static_cast<int>(i))) + "> kdt_q_" + names_.sems[i] + "[" +
              std::to_string(s.count) + "] = {};");
      if (bar_off_.count(static_cast<int>(i))) {
        w_.line("unsigned char* const kdt_bar_" + names_.sems[i] + " = kdt_smem + " + std::to_string(bar_off_[static_cast<int>(i)]) + ";");
      }
    }
  }
  // The bulk groups (shared -> global bulk copies and reduces) this program
  // has committed: a wait for one lets the younger ones stay in flight.
  w_.line("[[maybe_unused]] unsigned kdt_bulk_groups = 0;");
  for (const auto& staged_sem : staging_) emit_stage_apply(staged_sem.first);
  if (!bar_off_.empty()) {
    w_.open("if (kdt_tid == 0) {");
    for (auto [sem, off] : bar_off_) {
      w_.line("for (int b_ = 0; b_ < " + std::to_string(k_.sems[sem].count * queue_cap(sem)) + "; ++b_) kdt_cu::mbar_init(kdt_smem + " +
              std::to_string(off) + " + 8 * b_);");
    }
    w_.line("kdt_cu::mbar_init_fence();");
    w_.close();
    barrier();
  }
  find_lets_in_place(k_.body);
  plan_register_tiles();
  block(k_.body);
  w_.source_line(emit::closing_brace(k_.range));  // the program's end, as in C
  w_.close();
  w_.restore({});  // then runtime glue: lines of the generated file
}

}  // namespace kdt::cuda
