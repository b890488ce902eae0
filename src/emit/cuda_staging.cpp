// The CUDA back end: remote DMAs into `@shared` (spec section 7). A peer's
// shared memory cannot be written from another device, so such a DMA lands
// in a staging ring in the receiver's global memory (its sync buffer, after
// the counters) and the receiver's wait on the destination semaphore copies
// it, or adds it, into shared memory: the data is there exactly when the
// in-flight rule allows it to be read (docs/cuda.md, "KD 0.2 on the
// compiled path").
#include <algorithm>
#include <functional>

#include "cuda_kernel_emitter.h"

namespace kdt::cuda {

namespace {

int64_t round16(int64_t n) { return (n + 15) / 16 * 16; }

// Every DMA start in `b`, in program order.
void for_each_dma(const ir::Block& b, const std::function<void(const ir::Stmt&)>& f) {
  ir::for_each_stmt(b, [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::DmaStart) f(s);
  });
}

}  // namespace

bool KernelEmitter::layout_staging() {
  if (!multi_device()) return true;  // one device: a DMA "to device 0" is local
  for_each_dma(k_.body, [&](const ir::Stmt& s) {
    if (s.device && k_.refs[s.dst->ref].space == MemSpace::Shared) staging_[s.sem.sem];
  });
  if (staging_.empty()) return true;
  bool ok = true;
  for_each_dma(k_.body, [&](const ir::Stmt& s) {
    if (s.src_sem && staged(s.src_sem->sem)) {
      diags_.report(DiagCode::RemoteShared, s.range,
                    "semaphore `" + k_.sems[s.src_sem->sem].kd_name +
                        "` counts this DMA's source reads and receives a remote DMA into `@shared`; the compiled "
                        "path stages the second through global memory, so its waits could not tell the two apart")
          .note("use one semaphore for `src_sem=` and another for the receive (`kdt run` runs it as it is)");
      ok = false;
    }
    if (staged(s.sem.sem)) staging_[s.sem.sem].dmas.push_back(&s);
  });
  if (!ok) return false;
  // A slot: the turn (u64), the site (i64), the destination's starts (i64
  // per dimension), then the payload, 16-byte aligned. A ring: its tail and
  // head (u64 each), then kQueue slots.
  for (auto& [sem, st] : staging_) {
    size_t rank = 0;
    int64_t bytes = 0;
    for (const ir::Stmt* d : st.dmas) {
      rank = std::max(rank, d->dst->dims.size());
      bytes = std::max(bytes, d->bytes);
    }
    st.payload = round16(16 + 8 * static_cast<int64_t>(rank));
    st.slot_bytes = st.payload + round16(bytes);
    st.offset = stage_bytes_;
    stage_bytes_ += k_.sems[sem].count * (16 + kQueue * st.slot_bytes);
  }
  return true;
}

std::string KernelEmitter::stage_ring(const ir::SemRef& r, const std::string& device) {
  const Staging& st = staging_.at(r.sem);
  std::string dev = device.empty() ? "kdt_device" : device;
  std::string out = "(reinterpret_cast<unsigned char*>(kdt_peers.sync[" + dev + "]) + " + std::to_string(counter_bytes()) +
                    " + kdt_flat * " + std::to_string(stage_bytes_);
  if (st.offset) out += " + " + std::to_string(st.offset);
  if (k_.sems[r.sem].count > 1) out += " + " + sem_index(r) + " * " + std::to_string(16 + kQueue * st.slot_bytes);
  return out + ")";
}

void KernelEmitter::staged_dma_start(const ir::Stmt& s, const std::string& device, const std::vector<std::string>& src_starts,
                                     const std::vector<std::string>& dst_starts) {
  const Staging& st = staging_.at(s.sem.sem);
  const int64_t site = std::find(st.dmas.begin(), st.dmas.end(), &s) - st.dmas.begin();
  const ir::View& src = *s.src;
  w_.line("// staged: lands in device " + device + "'s staging ring, applied by its wait");
  if (nvshmem()) {
    // The receiver's ring is reached by load and store: this node's PEs only.
    w_.line("kdt_cu::peer_or_fail(kdt_peers.sync[" + device + "], " + device + ", " +
            this->site(s, "dma_start into another device's scratch") + ");");
  }
  std::string slot = fresh("slot");
  w_.line("unsigned char* const " + slot + " = kdt_cu::stage_claim(" + stage_ring(s.sem, device) + ", " +
          std::to_string(st.slot_bytes) + ", kdt_red);");
  w_.open("if (kdt_tid == 0) {");
  w_.line("long long* const header_ = kdt_cu::stage_header(" + slot + ");");
  w_.line("header_[0] = " + std::to_string(site) + ";");
  for (size_t d = 0; d < dst_starts.size(); ++d) w_.line("header_[" + std::to_string(d + 1) + "] = " + dst_starts[d] + ";");
  w_.close();
  LoopCtx ctx = new_ctx(src.shape());
  open_loop(ctx);
  std::string t = ctype(k_.refs[src.ref].dtype);
  w_.line("reinterpret_cast<" + t + "*>(" + slot + " + " + std::to_string(st.payload) + ")[" + ctx.flat + "] = " +
          ref_base(src.ref) + "[" + view_elem_offset(src, src_starts, ctx) + "];");
  close_loop(ctx);
  w_.line("kdt_cu::stage_publish(" + slot + ");");
  if (s.src_sem) source_read(s);
  w_.line(signal_counter(s.sem, device, std::to_string(s.bytes)));
}

// Once per staged semaphore, after the scratch pointers: the code its waits
// share, which copies (or adds) a taken slot into this device's memory as
// the DMA of the slot's site says, then frees the slot.
void KernelEmitter::emit_stage_apply(int sem) {
  const Staging& st = staging_.at(sem);
  w_.line("// semaphore `" + names_.sems[sem] + "` is staged: each wait applies the oldest slot of its ring");
  w_.open("auto kdt_apply_" + names_.sems[sem] + " = [&](unsigned char* const slot_) {");
  w_.line("const long long* const header_ = kdt_cu::stage_header(slot_);");
  for (size_t site = 0; site < st.dmas.size(); ++site) {
    const ir::Stmt& dma = *st.dmas[site];
    const ir::View& dst = *dma.dst;
    std::vector<std::string> starts;
    for (size_t d = 0; d < dst.dims.size(); ++d) {
      starts.push_back(dst.dims[d].start ? "header_[" + std::to_string(d + 1) + "]" : std::to_string(dst.dims[d].static_start));
    }
    const uint32_t line = sources_.position(dma.range.file, dma.range.begin).line;
    std::string test = "if (header_[0] == " + std::to_string(site) + ") {  // the DMA of line " + std::to_string(line);
    if (site == 0) w_.open(test);
    else w_.reopen("} else " + test);
    LoopCtx ctx = new_ctx(dst.shape());
    open_loop(ctx);
    std::string v = "reinterpret_cast<const " + ctype(k_.refs[dst.ref].dtype) + "*>(slot_ + " + std::to_string(st.payload) +
                    ")[" + ctx.flat + "]";
    w_.line(copy_element(dma, ref_base(dst.ref) + "[" + view_elem_offset(dst, starts, ctx) + "]", v));
    close_loop(ctx);
  }
  w_.close();
  w_.line("kdt_cu::stage_release(slot_);");
  w_.close("};");
}

void KernelEmitter::staged_wait(const ir::Stmt& s) {
  w_.line("kdt_apply_" + names_.sems[s.sem.sem] + "(kdt_cu::stage_take(" + stage_ring(s.sem) + ", " +
          std::to_string(staging_.at(s.sem.sem).slot_bytes) + ", kdt_red));");
}

}  // namespace kdt::cuda
