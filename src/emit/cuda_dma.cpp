// The CUDA back end: DMAs. The lowering is chosen per DMA from its views,
// dtype and --arch (bulk copies and bulk reduce on sm_90, cp.async on
// sm_80+, the cooperative block copy otherwise), and devices(N) kernels copy
// through peer pointers and raise semaphores in the sync buffers
// (docs/cuda.md, "DMAs and semaphores").
#include <algorithm>

#include "cuda_kernel_emitter.h"

namespace kdt::cuda {

bool KernelEmitter::bulk_add_dtype(DType t) {
  switch (t) {
    case DType::I32:
    case DType::U32:
    case DType::I64:
    case DType::U64:
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64: return true;
    default: return false;
  }
}

bool KernelEmitter::rows_divisible(const ir::View& src, const ir::View& dst, size_t tail, int64_t row_bytes, int64_t width) const {
  if (row_bytes % width != 0) return false;
  for (const ir::View* v : {&src, &dst}) {
    const ir::Ref& r = k_.refs[v->ref];
    std::vector<int64_t> st = row_major_strides(r.shape);
    for (size_t d = 0; d + tail < r.shape.size(); ++d) {
      if (!v->dims[d].dropped && (st[d] * elem_size(r.dtype)) % width != 0) return false;
    }
  }
  return true;
}

size_t KernelEmitter::dma_tail(const ir::Stmt& s, int64_t* row_bytes) const {
  const Shape shape = s.src->shape();
  const size_t rank = shape.size();
  size_t tail = std::min(s.src->contiguous_tail(k_.refs[s.src->ref].shape), s.dst->contiguous_tail(k_.refs[s.dst->ref].shape));
  if (rank == 0) tail = 0;
  int64_t chunk = 1;
  for (size_t i = rank - tail; i < rank; ++i) chunk *= shape[i];
  *row_bytes = chunk * elem_size(k_.refs[s.src->ref].dtype);
  return tail;
}

bool KernelEmitter::bulk_add_eligible(const ir::Stmt& s) const {
  const ir::Ref& sr = k_.refs[s.src->ref];
  const ir::Ref& dr = k_.refs[s.dst->ref];
  if (!use_bulk() || s.src_sem || multi_device() || !bar_off_.count(s.sem.sem) || !bulk_add_dtype(sr.dtype)) return false;
  if (sr.space != MemSpace::Shared || dr.space != MemSpace::Global) return false;
  int64_t row_bytes = 0;
  const size_t tail = dma_tail(s, &row_bytes);
  if (!rows_divisible(*s.src, *s.dst, tail, row_bytes, 16)) return false;
  // Row 0's address modulo 16 is the base's plus every start's offset.
  for (const ir::View* v : {&*s.src, &*s.dst}) {
    const ir::Ref& r = k_.refs[v->ref];
    const std::vector<int64_t> st = row_major_strides(r.shape);
    for (size_t d = 0; d < v->dims.size(); ++d) {
      const int64_t step = st[d] * elem_size(r.dtype);
      const int64_t fixed = v->dims[d].static_start * step;
      if (fixed % 16 != 0 || (v->dims[d].start && step % 16 != 0)) return false;
    }
  }
  return true;
}

// The bulk lowering a DMA takes on sm_90 (one elected thread, the async
// proxy), or Coop: a thread-0 bulk copy needs a dma semaphore with an
// mbarrier queue, global <-> shared, rows that move in 16-byte pieces, and a
// load that fits one mbarrier phase. Row 0 is checked for alignment at run
// time; the other rows differ from it by multiples of the outer strides,
// checked here. (A bulk copy into shared memory always fits one phase: no
// block has that much shared memory; the check only guards future limits.)
KernelEmitter::DmaRoute KernelEmitter::bulk_route(const ir::Stmt& s) const {
  const ir::Ref& sr = k_.refs[s.src->ref];
  const ir::Ref& dr = k_.refs[s.dst->ref];
  if (!use_bulk() || s.src_sem || !bar_off_.count(s.sem.sem)) return DmaRoute::Coop;
  const bool g2s = sr.space == MemSpace::Global && dr.space == MemSpace::Shared;
  const bool s2g = sr.space == MemSpace::Shared && dr.space == MemSpace::Global;
  DmaRoute route = DmaRoute::Coop;
  if (g2s && !s.add) route = DmaRoute::G2S;
  else if (s2g && !s.add) route = DmaRoute::S2G;
  // Peers may add into the same memory with system-scope atomics.
  else if (s2g && s.add && bulk_add_dtype(sr.dtype) && !multi_device() && !atomic_add_refs_.count(s.dst->ref)) route = DmaRoute::S2GAdd;
  if (route == DmaRoute::Coop) return route;
  int64_t row_bytes = 0;
  const size_t tail = dma_tail(s, &row_bytes);
  const int64_t bytes = count_of(s.src->shape()) * elem_size(sr.dtype);
  if (!rows_divisible(*s.src, *s.dst, tail, row_bytes, 16) || (route == DmaRoute::G2S && bytes > kMaxTx)) return DmaRoute::Coop;
  return route;
}

void KernelEmitter::dma_start(const ir::Stmt& s) {
  const ir::View& src = *s.src;
  const ir::View& dst = *s.dst;
  const ir::Ref& sr = k_.refs[src.ref];
  const ir::Ref& dr = k_.refs[dst.ref];
  DType t = sr.dtype;
  Shape shape = src.shape();
  int64_t esize = elem_size(t);
  int64_t bytes = count_of(shape) * esize;
  if (multi_device() && (s.device || sync_sem(s.sem.sem))) return device_dma_start(s);
  w_.open("{  // DMA: " + std::string(s.add ? "dst += src" : "dst = src") + ", " + std::to_string(bytes) + " bytes");
  std::vector<std::string> ss = view_starts(src, false), ds = view_starts(dst, false);
  if (s.device) w_.line("(void)(" + scalar(*s.device) + ");  // one device: the target is this device");
  const std::string semname = names_.sems[s.sem.sem];
  std::string q = dma_queue(s.sem);
  DmaRoute kind = bulk_route(s);
  const bool g2s = sr.space == MemSpace::Global && dr.space == MemSpace::Shared;
  size_t rank = shape.size();
  int64_t row_bytes = 0;
  const size_t tail = dma_tail(s, &row_bytes);
  // sm_80+: cp.async of 16, 8 or 4 bytes by every thread, completed on the
  // slot's mbarrier (cp.async.mbarrier.arrive).
  int width = 0;
  if (kind == DmaRoute::Coop && g2s && !s.add && !s.src_sem && bar_off_.count(s.sem.sem)) {
    for (int w : {16, 8, 4}) {
      if (rows_divisible(src, dst, tail, row_bytes, w)) {
        width = w;
        kind = DmaRoute::G2SAsync;
        break;
      }
    }
  }
  std::string bar = "kdt_bar_" + semname + " + " + sem_index(s.sem) + " * " + std::to_string(queue_cap(s.sem.sem) * kMbarBytes) +
                    " + 8 * kdt_cu::dma_next_slot(" + q + ")";
  if (kind == DmaRoute::G2SAsync) {
    std::vector<std::string> zero(rank, "0");
    std::string s0 = ref_base(src.ref) + " + " + view_elem_offset(src, ss, at_index(zero));
    std::string d0 = ref_base(dst.ref) + " + " + view_elem_offset(dst, ds, at_index(zero));
    w_.line("const bool kdt_async = KDT_HAS_CP_ASYNC && ((reinterpret_cast<uintptr_t>(" + s0 +
            ") | reinterpret_cast<uintptr_t>(" + d0 + ")) & " + std::to_string(width - 1) + ") == 0;");
    w_.open("if (kdt_async) {");
    barrier();
    const std::vector<std::string> idx = open_row_pieces(shape, tail, row_bytes / width);
    std::string sp = ref_base(src.ref) + " + " + view_elem_offset(src, ss, at_index(idx));
    std::string dp = ref_base(dst.ref) + " + " + view_elem_offset(dst, ds, at_index(idx));
    std::string w = std::to_string(width);
    w_.line("kdt_cu::cp_async<" + w + ">(reinterpret_cast<unsigned char*>(" + dp + ") + col_ * " + w +
            ", reinterpret_cast<const unsigned char*>(" + sp + ") + col_ * " + w + ");");
    w_.close();
    w_.line("kdt_cu::cp_async_complete_on(" + bar + ");");
    w_.line("kdt_cu::dma_push(" + q + ", 1, " + site(s, "dma_start on `" + k_.sems[s.sem.sem].kd_name + "`") + ");");
    w_.reopen("} else {");
  }
  if (kind != DmaRoute::Coop && kind != DmaRoute::G2SAsync) {
    std::vector<std::string> zero(rank, "0");
    std::string s0 = ref_base(src.ref) + " + " + view_elem_offset(src, ss, at_index(zero));
    std::string d0 = ref_base(dst.ref) + " + " + view_elem_offset(dst, ds, at_index(zero));
    w_.line("const bool kdt_bulk = KDT_HAS_BULK && ((reinterpret_cast<uintptr_t>(" + s0 + ") | reinterpret_cast<uintptr_t>(" +
            d0 + ")) & 15) == 0;");
    w_.open("if (kdt_bulk) {");
    // Generic-proxy accesses of the shared side (by every thread) come
    // before the async proxy's: each thread fences, then the barrier. The
    // same for the global side where the generic proxy writes it too.
    w_.line("kdt_cu::fence_proxy_async_shared();");
    if (generic_global_writes_.count(kind == DmaRoute::G2S ? src.ref : dst.ref)) w_.line("kdt_cu::fence_proxy_async_global();");
    barrier();
    w_.open("if (kdt_tid == 0) {");
    if (kind == DmaRoute::G2S) w_.line("kdt_cu::mbar_expect_tx(" + bar + ", " + std::to_string(bytes) + "u);");
    // One tensor copy of the whole box where the launcher encoded its map
    // and the shared side is 128-byte aligned; else one bulk copy per row.
    const auto map = tensor_dma_.find(&s);
    if (map != tensor_dma_.end()) {
      const std::string smem = kind == DmaRoute::G2S ? d0 : s0;
      w_.open("if (kdt_tensor_maps.ok && (kdt_cu::smem_addr(" + smem + ") & 127) == 0) {");
      tensor_dma_issue(s, map->second, kind == DmaRoute::G2S ? ss : ds, smem, bar);
      w_.reopen("} else {");
    }
    std::vector<std::string> idx;
    for (size_t i = 0; i < rank - tail; ++i) {
      std::string v = "r" + std::to_string(i) + "_";
      w_.open("for (int64_t " + v + " = 0; " + v + " < " + std::to_string(shape[i]) + "; ++" + v + ") {");
      idx.push_back(v);
    }
    for (size_t i = rank - tail; i < rank; ++i) idx.push_back("0");
    std::string sp = ref_base(src.ref) + " + " + view_elem_offset(src, ss, at_index(idx));
    std::string dp = ref_base(dst.ref) + " + " + view_elem_offset(dst, ds, at_index(idx));
    std::string rb = std::to_string(row_bytes) + "u";
    if (kind == DmaRoute::G2S) w_.line("kdt_cu::bulk_g2s(" + dp + ", " + sp + ", " + rb + ", " + bar + ");");
    else if (kind == DmaRoute::S2G) w_.line("kdt_cu::bulk_s2g(" + dp + ", " + sp + ", " + rb + ");");
    else w_.line("kdt_cu::bulk_s2g_add(" + dp + ", " + sp + ", " + rb + ");");
    for (size_t i = 0; i < rank - tail; ++i) w_.close();
    if (map != tensor_dma_.end()) w_.close();
    if (kind != DmaRoute::G2S) w_.line("kdt_cu::bulk_commit();");
    w_.close();
    // A bulk store is the program's next bulk group (every thread counts it).
    w_.line("kdt_cu::dma_push(" + q + ", " + std::string(kind == DmaRoute::G2S ? "1" : "2") + ", " +
            site(s, "dma_start on `" + k_.sems[s.sem.sem].kd_name + "`") + (kind == DmaRoute::G2S ? "" : ", ++kdt_bulk_groups") + ");");
    count_unwaited(s.sem.sem, q, bytes, true);
    w_.reopen("} else {");
  }
  // The cooperative path: the whole block copies (or accumulates), then a barrier.
  cooperative_copy(s, ss, ds, ref_base(dst.ref));
  w_.line("kdt_cu::dma_push(" + q + ", 0, " + site(s, "dma_start on `" + k_.sems[s.sem.sem].kd_name + "`") + ");");
  count_unwaited(s.sem.sem, q, bytes, true);
  if (kind != DmaRoute::Coop) w_.close();
  if (s.src_sem) source_read(s);  // a remote DMA to this device: the source was read with the copy
  w_.close();
}

void KernelEmitter::cooperative_copy(const ir::Stmt& s, const std::vector<std::string>& src_starts,
                                     const std::vector<std::string>& dst_starts, const std::string& dst_base) {
  const ir::View& src = *s.src;
  const ir::View& dst = *s.dst;
  LoopCtx ctx = new_ctx(src.shape());
  open_loop(ctx);
  std::string sp = ref_base(src.ref) + "[" + view_elem_offset(src, src_starts, ctx) + "]";
  std::string dp = dst_base + "[" + view_elem_offset(dst, dst_starts, ctx) + "]";
  w_.line(copy_element(s, dp, sp));
  close_loop(ctx);
}

std::string KernelEmitter::copy_element(const ir::Stmt& s, const std::string& dst, const std::string& value) {
  const ir::Ref& r = k_.refs[s.dst->ref];
  if (!s.add) return dst + " = " + value + ";";
  if (r.space == MemSpace::Global) return atomic_add() + "(&" + dst + ", " + value + ");";
  return dst + " = kdt_cu::op_add<" + ctype(r.dtype) + ">(" + dst + ", " + value + ");";
}

std::string KernelEmitter::site(const ir::Stmt& s, const std::string& what) const {
  if (!s.range.valid()) return "nullptr";
  const LineColumn lc = sources_.position(s.range.file, s.range.begin);
  return "\"" + emit::CodeWriter::escape(sources_.file(s.range.file).path + ":" + std::to_string(lc.line) + ":" +
                                         std::to_string(lc.column) + ": " + what) + "\"";
}

std::string KernelEmitter::dma_queue(const ir::SemRef& r) {
  return "kdt_q_" + names_.sems[r.sem] + "[" + sem_index(r) + "]";
}

void KernelEmitter::source_read(const ir::Stmt& s) {
  if (sync_sem(s.src_sem->sem)) {
    w_.line(signal_counter(*s.src_sem, "", std::to_string(s.bytes)));
  } else {
    std::string q = dma_queue(*s.src_sem);
    w_.line("kdt_cu::dma_push(" + q + ", 0, " + site(s, "dma_start on `" + k_.sems[s.src_sem->sem].kd_name + "` (source)") + ");");
    count_unwaited(s.src_sem->sem, q, s.bytes, true);
  }
}

void KernelEmitter::count_unwaited(int sem, const std::string& q, int64_t bytes, bool started) {
  if (read_dma_sems_.count(sem)) w_.line(q + ".unwaited " + (started ? "+= " : "-= ") + std::to_string(bytes) + ";");
}

void KernelEmitter::device_dma_start(const ir::Stmt& s) {
  const ir::View& src = *s.src;
  const ir::View& dst = *s.dst;
  DType t = k_.refs[src.ref].dtype;
  w_.open("{  // DMA to device " + std::string(s.device ? "`device`" : "self") + ": " + (s.add ? "dst += src" : "dst = src") +
          ", " + std::to_string(s.bytes) + " bytes");
  std::vector<std::string> ss = view_starts(src, false), ds = view_starts(dst, false);
  std::string device = "kdt_device";
  if (s.device) {
    device = fresh("device");
    w_.line("const int32_t " + device + " = " + scalar(*s.device) + ";");
  }
  if (staged(s.sem.sem)) {
    staged_dma_start(s, device, ss, ds);
    w_.close();
    return;
  }
  std::string base = ref_base(dst.ref);
  if (s.device && nvshmem() && !s.add) {
    put_runs(s, ss, ds, device);
  } else {
    if (s.device) {
      base = fresh("peer");
      std::string peer = nvshmem() ? "kdt_cu::peer_or_fail(" + ref_base(dst.ref) + ", " + device + ", " +
                                         site(s, "dma_start (add=true) to another device") + ")"
                                   : "kdt_peers." + names_.refs[dst.ref] + "[" + device + "]";
      w_.line(ctype(t) + "* const " + base + " = " + peer + ";");
    }
    cooperative_copy(s, ss, ds, base);
  }
  if (s.src_sem) source_read(s);
  w_.line(signal_counter(s.sem, s.device ? device : "", std::to_string(s.bytes)));
  w_.close();
}

}  // namespace kdt::cuda
