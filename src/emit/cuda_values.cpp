// The CUDA back end: statements, block-stride element loops, values,
// reductions, `dot`, transposes, slices and stores.
#include <algorithm>

#include "cuda_kernel_emitter.h"
#include "lazy_operands.h"

namespace kdt::cuda {

// A block-wide barrier, unless the last one still holds: nothing but
// pointer declarations was written since (two barriers in a row are one).
void KernelEmitter::barrier() {
  if (w_.lines() == barrier_holds_at_) return;
  w_.line("__syncthreads();");
  barrier_holds_at_ = w_.lines();
}

// A line that only declares a pointer into shared memory: it touches no
// memory, so a barrier just before it still holds after it.
void KernelEmitter::pointer_line(const std::string& text) {
  const bool holds = w_.lines() == barrier_holds_at_;
  w_.line(text);
  if (holds) barrier_holds_at_ = w_.lines();
}

void KernelEmitter::block(const ir::Block& b) {
  int64_t mark = top_;
  CLikeEmitter::block(b);
  top_ = mark;
}

// Temporaries of one statement die with it; a tile `let` and asm outputs
// live until the end of the enclosing block.
void KernelEmitter::stmt(const ir::Stmt& s) {
  if (s.kind == ir::StmtKind::Let || s.kind == ir::StmtKind::AsmStmt) {
    CLikeEmitter::stmt(s);
    return;
  }
  int64_t mark = top_;
  CLikeEmitter::stmt(s);
  top_ = mark;
}

void KernelEmitter::let(const ir::Stmt& s) {
  const ir::Local& l = k_.locals[s.local];
  if (l.type.shape.empty()) {
    int64_t mark = top_;
    std::string v = scalar(*s.value);
    top_ = mark;
    w_.line(ctype(l.type.dtype) + " " + local_name(s.local) + " = " + v + ";");
    w_.line("(void)" + local_name(s.local) + ";");
  } else if (lets_in_place_.count(&s)) {
    w_.line(ctype(l.type.dtype) + "* const " + local_name(s.local) + " = " + view_in_place(*s.value) + ";");
  } else if (register_tiles_.count(s.local)) {
    const std::string& name = local_name(s.local);
    w_.line(ctype(l.type.dtype) + " " + name + "[" + std::to_string(register_slots(l.type.shape)) + "];  // in registers");
    w_.line("(void)" + name + ";");
    int64_t mark = top_;
    store_tile(name, l.type.shape, *s.value);
    top_ = mark;
  } else {
    const std::string& name = local_name(s.local);
    int64_t off = alloc(count_of(l.type.shape) * elem_size(l.type.dtype));
    pointer_line(ctype(l.type.dtype) + "* const " + name + " = " + smem_ptr(l.type.dtype, off) + ";");
    int64_t mark = top_;
    const Expr& v = *s.value;
    if (is_materialized_kind(v.kind) && v.kind != ExprKind::Reshape && v.type.dtype == l.type.dtype) {
      // A reduction, dot, transpose or slice writes the let's array itself
      // (no temporary and no copy loop); its operands' temporaries, allocated
      // after the array, die with the statement.
      predeclared_ = name;
      materialize(v, name);
      predeclared_.clear();
    } else {
      store_tile(name, l.type.shape, v);
    }
    top_ = mark;
  }
}

void KernelEmitter::loop_variable(const std::string& v) {
  w_.line("const int32_t " + v + " = static_cast<int32_t>(" + v + "_it);");
  w_.line("(void)" + v + ";");
}

// Run-time checks belong to the interpretation path.
void KernelEmitter::assert_stmt(const ir::Stmt&) { w_.line("// assert: checked on the C++ path only"); }

void KernelEmitter::eval(const ir::Stmt& s) {
  if (s.value->type.shape.empty()) w_.line("(void)(" + scalar(*s.value) + ");");
  else materialize_array(*s.value);
}

void KernelEmitter::dma_wait(const ir::Stmt& s) {
  if (sync_sem(s.sem.sem)) {
    w_.line(wait_counter(s.sem, std::to_string(s.bytes), site(s, "dma_wait on `" + k_.sems[s.sem.sem].kd_name + "`")));
    if (staged(s.sem.sem)) staged_wait(s);
    return;
  }
  std::string q = dma_queue(s.sem);
  std::string bars = bar_off_.count(s.sem.sem)
                         ? "kdt_bar_" + names_.sems[s.sem.sem] + " + " + sem_index(s.sem) + " * " + std::to_string(queue_cap(s.sem.sem) * kMbarBytes)
                         : "nullptr";
  w_.line("kdt_cu::dma_retire(" + q + ", " + bars + ", " + site(s, "dma_wait on `" + k_.sems[s.sem.sem].kd_name + "`") +
          ", kdt_bulk_groups);");
  count_unwaited(s.sem.sem, q, s.bytes, false);
}

void KernelEmitter::sem_signal(const ir::Stmt& s) {
  if (sync_sem(s.sem.sem)) {
    std::string amount = scalar(*s.amount);
    std::string device = s.device ? "(" + scalar(*s.device) + ")" : "";
    w_.line(signal_counter(s.sem, device, amount));
    return;
  }
  w_.line("kdt_sem_" + names_.sems[s.sem.sem] + "[" + sem_index(s.sem) + "] += " + scalar(*s.amount) + ";");
}

void KernelEmitter::sem_wait(const ir::Stmt& s) {
  if (sync_sem(s.sem.sem)) {
    w_.line(wait_counter(s.sem, scalar(*s.amount), site(s, "sem_wait on `" + k_.sems[s.sem.sem].kd_name + "`")));
    return;
  }
  std::string sem = "kdt_sem_" + names_.sems[s.sem.sem] + "[" + sem_index(s.sem) + "]";
  std::string amount = scalar(*s.amount);
  // Nothing else can raise this program's semaphore: an unmet wait is a deadlock.
  w_.line("if (" + sem + " < " + amount + ") kdt_cu::fail(" + site(s, "sem_wait on `" + k_.sems[s.sem.sem].kd_name + "`") +
          ", \"nothing else can raise this semaphore: a deadlock\");");
  w_.line(sem + " -= " + amount + ";");
}



void KernelEmitter::open_loop(const LoopCtx& ctx) {
  if (ctx.fenced) barrier();
  if (ctx.shape.empty()) {
    w_.open("if (kdt_tid == 0) {");
    return;
  }
  if (!ctx.slot.empty()) {
    // The same elements per thread as the block-stride loop (blockDim.x is
    // threads(T)), each slot a register once the loop is unrolled.
    const int64_t n = count_of(ctx.shape);
    w_.line("#pragma unroll");
    w_.open("for (int " + ctx.slot + " = 0; " + ctx.slot + " < " + std::to_string(register_slots(ctx.shape)) + "; ++" +
            ctx.slot + ") {");
    w_.line("const int64_t " + ctx.flat + " = kdt_tid + " + ctx.slot + " * " + std::to_string(threads_) + ";");
    if (n % threads_) w_.line("if (" + ctx.flat + " >= " + std::to_string(n) + ") break;");
    declare_indices(ctx);
    return;
  }
  w_.open("for (int64_t " + ctx.flat + " = kdt_tid; " + ctx.flat + " < " + std::to_string(count_of(ctx.shape)) + "; " +
          ctx.flat + " += kdt_nt) {");
  declare_indices(ctx);
}

// The loop's index in each dimension, from its flat index.
void KernelEmitter::declare_indices(const LoopCtx& ctx) {
  std::vector<int64_t> st = row_major_strides(ctx.shape);
  for (size_t d = 0; d < ctx.shape.size(); ++d) {
    std::string v = ctx.flat;
    if (st[d] != 1) v = "(" + v + " / " + std::to_string(st[d]) + ")";
    if (d != 0) v += " % " + std::to_string(ctx.shape[d]);
    w_.line("const int64_t " + ctx.index[d] + " = " + v + ";");
    w_.line("(void)" + ctx.index[d] + ";");
  }
}

void KernelEmitter::close_loop(const LoopCtx& ctx) {
  w_.close();
  if (ctx.fenced) barrier();
}

void KernelEmitter::store_tile(const std::string& name, const Shape& shape, const Expr& value) {
  prepare(value);
  const bool into_registers = register_names_.count(name) != 0;
  const bool vector = !into_registers && !reads_registers(value) && vector_load(name, shape, value);
  LoopCtx ctx = element_loop(shape, name, {&value});
  open_loop(ctx);
  w_.line(name + "[" + (into_registers ? ctx.slot : ctx.flat) + "] = " + elem(value, ctx) + ";");
  close_loop(ctx);
  if (vector) w_.close();
}

// Issue 19, item 10: tiles move between @global and shared memory in
// 16-byte pieces where the global view's rows are whole multiples of 16
// bytes and the ref's outer strides too (checked here): each thread one
// `uint4` per piece (LDG.E.128 / STG.E.128) instead of one element. Row 0's
// address and the tile's are checked at run time; an unaligned pair takes
// the element loop, in the `else` the vector copy opens (its caller's loop;
// the caller closes the branch). The same bytes either way.
//
// The pieces of `v` (a view of shape `shape`) a loop over `c_` visits:
// opens the alignment test and the loop, declares `row_`/`col_`, and
// returns the address of row `row_` (false: the rows are not pieces).
bool KernelEmitter::open_vector_loop(const ir::View& v, const std::vector<std::string>& starts, const Shape& shape,
                                     const std::string& tile, std::string* row) {
  const ir::Ref& r = k_.refs[v.ref];
  if (r.space != MemSpace::Global || shape.empty()) return false;
  const size_t rank = shape.size(), tail = v.contiguous_tail(r.shape);
  int64_t chunk = 1;
  for (size_t i = rank - tail; i < rank; ++i) chunk *= shape[i];
  const int64_t row_bytes = chunk * elem_size(r.dtype);
  if (tail == 0 || !rows_divisible(v, v, tail, row_bytes, 16)) return false;
  const std::string row0 = ref_base(v.ref) + " + " + view_elem_offset(v, starts, at_index(std::vector<std::string>(rank, "0")));
  const std::string aligned = fresh("vec");
  w_.line("const bool " + aligned + " = ((reinterpret_cast<uintptr_t>(" + row0 + ")" +
          (tile.empty() ? "" : " | reinterpret_cast<uintptr_t>(" + tile + ")") + ") & 15) == 0;");
  w_.open("if (" + aligned + ") {");
  barrier();
  *row = ref_base(v.ref) + " + " + view_elem_offset(v, starts, at_index(open_row_pieces(shape, tail, row_bytes / 16)));
  return true;
}

// A block-stride loop over the pieces of a tile of `shape` whose last
// `tail` dimensions are contiguous rows of `per_row` pieces each (the
// vector copies here, cp.async in dma_start): opens it, declares `row_` and
// `col_`, and returns each dimension's index of row `row_`'s first element
// (row-major over the outer dimensions, 0 in the tail).
std::vector<std::string> KernelEmitter::open_row_pieces(const Shape& shape, size_t tail, int64_t per_row) {
  const size_t rank = shape.size();
  int64_t rows = 1;
  for (size_t i = 0; i + tail < rank; ++i) rows *= shape[i];
  w_.open("for (int64_t c_ = kdt_tid; c_ < " + std::to_string(rows * per_row) + "; c_ += kdt_nt) {");
  w_.line("const int64_t row_ = c_ / " + std::to_string(per_row) + ", col_ = c_ % " + std::to_string(per_row) + ";");
  w_.line("(void)row_;");
  std::vector<std::string> idx(rank, "0");
  int64_t stride = 1;
  for (size_t i = rank - tail; i-- > 0;) {
    idx[i] = "((row_ / " + std::to_string(stride) + ") % " + std::to_string(shape[i]) + ")";
    stride *= shape[i];
  }
  return idx;
}

void KernelEmitter::close_vector_loop() {
  w_.close();
  barrier();
  w_.reopen("} else {");
}

// `let t = x[ds(r, 16), :]`: a plain load of @global rows into the shared tile `name`.
bool KernelEmitter::vector_load(const std::string& name, const Shape& shape, const Expr& value) {
  if (value.kind != ExprKind::Load || value.mask) return false;
  std::string row;
  if (!open_vector_loop(*value.view, view_starts_.at(&value), shape, name, &row)) return false;
  w_.line("reinterpret_cast<uint4*>(" + name + ")[c_] = reinterpret_cast<const uint4*>(" + row + ")[col_];");
  close_vector_loop();
  return true;
}

// `y[ds(r, 16), :] = e / s`: each thread computes a piece's elements into
// registers (the element loop's body, once per element of the piece), then
// stores them as one `uint4`.
bool KernelEmitter::vector_store(const ir::Stmt& s, const std::vector<std::string>& starts) {
  const ir::View& v = *s.view;
  if (s.mask || s.store_op != ir::StoreOp::Assign) return false;
  const Shape shape = v.shape();
  std::string row;
  if (!open_vector_loop(v, starts, shape, "", &row)) return false;
  const DType t = k_.refs[v.ref].dtype;
  const std::string per_piece = std::to_string(16 / elem_size(t));
  w_.line("alignas(16) " + ctype(t) + " piece_[" + per_piece + "];");
  w_.open("for (int q_ = 0; q_ < " + per_piece + "; ++q_) {");
  LoopCtx ctx = new_ctx(shape);
  w_.line("const int64_t " + ctx.flat + " = c_ * " + per_piece + " + q_;");
  declare_indices(ctx);
  w_.line("piece_[q_] = " + elem(*s.value, ctx) + ";");
  w_.close();
  w_.line("reinterpret_cast<uint4*>(" + row + ")[col_] = *reinterpret_cast<const uint4*>(piece_);");
  close_vector_loop();
  return true;
}

// A counter other devices raise: read once for the block, before any element loop.
void KernelEmitter::prepare_sem_read(const Expr& e) {
  if (sync_sem(e.sem->sem) && !materialized_.count(&e)) {
    std::string name = fresh("sem");
    w_.line("const int32_t " + name + " = " + read_counter(*e.sem) + ";");
    materialized_[&e] = name;
  }
}

std::string KernelEmitter::leaf(const Expr& e, const LoopCtx&) {
  switch (e.kind) {
    case ExprKind::ScalarParam: return names_.scalars[e.index];
    case ExprKind::ProgramId: return "kdt_pid" + std::to_string(e.index);
    case ExprKind::DeviceId: return multi_device() ? "kdt_device" : "int32_t(0)";
    case ExprKind::SemRead:
      if (sync_sem(e.sem->sem)) return materialized_.at(&e);
      if (k_.sems[e.sem->sem].kind == SemKind::Dma) {
        return "int32_t(kdt_q_" + names_.sems[e.sem->sem] + "[" + sem_index(*e.sem) + "].unwaited)";
      }
      return "kdt_sem_" + names_.sems[e.sem->sem] + "[" + sem_index(*e.sem) + "]";
    default: return "0 /* PtxOp appears only after discharge */";
  }
}

std::string KernelEmitter::load(const Expr& e, const LoopCtx& ctx) {
  const std::vector<std::string>& starts = view_starts_.at(&e);
  std::string access = ref_base(e.view->ref) + "[" + view_elem_offset(*e.view, starts, ctx) + "]";
  if (!e.mask) return access;
  std::string other = e.other ? elem(*e.other, ctx) : ctype(e.type.dtype) + "()";
  return "(" + elem(*e.mask, ctx) + " ? " + access + " : " + other + ")";
}

std::string KernelEmitter::declare_temp(const Expr& e, const std::string& name) {
  if (name == predeclared_) {  // a `let`'s array, declared by let()
    predeclared_.clear();
    return name;
  }
  std::string T = ctype(e.type.dtype);
  if (e.type.shape.empty()) {
    w_.line(T + " " + name + " = " + T + "();");
  } else {
    int64_t off = alloc(count_of(e.type.shape) * elem_size(e.type.dtype));
    pointer_line(T + "* const " + name + " = " + smem_ptr(e.type.dtype, off) + ";");
  }
  return name;
}

void KernelEmitter::reduce(const Expr& e, const std::string& name) {
  const Shape& shape = e.type.shape;
  const Shape& xs = e.operands[0]->type.shape;
  const Reduction r = begin_reduction(e, name);
  std::string op = r.sum ? "kdt_cu::AddOp{}" : e.reduce == ir::ReduceOp::Max ? "kdt_cu::MaxOp{}" : "kdt_cu::MinOp{}";
  if (e.index < 0) {
    std::string acc = fresh("acc");
    if (xs.empty()) {
      // A sum's one lane starts from +0 as on the C++ path (sum(-0.0) is +0).
      w_.line(r.acc_t + " " + acc + " = " + (r.sum ? op + "(" + r.acc_t + "(), " + to_acc(r, r.src) + ")" : to_acc(r, r.src)) + ";");
    } else {
      int64_t n = count_of(xs);
      w_.line(r.acc_t + " " + acc + "p = " + (r.sum ? r.acc_t + "()" : to_acc(r, r.src + "[kdt_tid % " + std::to_string(n) + "]")) + ";");
      w_.line("for (int64_t j_ = kdt_tid; j_ < " + std::to_string(n) + "; j_ += kdt_nt) " + acc + "p = " + op + "(" +
              acc + "p, " + to_acc(r, r.src + "[j_]") + ");");
      w_.line("const " + r.acc_t + " " + acc + " = kdt_cu::block_reduce(" + acc + "p, kdt_red, " + op + ");");
    }
    if (shape.empty()) {
      w_.line(name + " = " + from_acc(e, r, acc) + ";");
    } else {
      LoopCtx ctx = new_ctx(shape);
      open_loop(ctx);
      w_.line(name + "[" + ctx.flat + "] = " + from_acc(e, r, acc) + ";");
      close_loop(ctx);
    }
  } else {
    const int64_t outer = r.outer, inner = r.inner, len = r.len;
    // One output element per thread, or a warp per output (below).
    std::string o = fresh("o");
    std::string at = "(" + o + " / " + std::to_string(inner) + ") * " + std::to_string(len * inner) + " + " + o +
                     " % " + std::to_string(inner);
    if (shape.empty()) {
      // A rank-1 reduce along its only axis, without keepdims: like the full reduction.
      w_.line("// (axis reduction to a scalar)");
    }
    barrier();
    if (!shape.empty() && outer * inner < threads_ && len >= 32 && threads_ % 32 == 0) {
      // Issue 19, item 10: fewer outputs than threads (softmax's row
      // maxima and sums): a warp per output element, lane l combining
      // elements l, l + 32, ... in order, then a shuffle tree; the order
      // depends only on the warp size, so results are deterministic.
      w_.open("for (int64_t " + o + " = kdt_tid / 32; " + o + " < " + std::to_string(outer * inner) + "; " + o +
              " += kdt_nt / 32) {");
      w_.line("const int64_t lane_ = kdt_tid % 32;");
      // Sums start from +0 in every lane, as on the C++ path (a sum of -0s is +0).
      w_.line(r.acc_t + " acc_ = " +
              (r.sum ? r.acc_t + "()" : to_acc(r, r.src + "[" + at + " + lane_ * " + std::to_string(inner) + "]")) + ";");
      w_.line("for (int64_t r_ = lane_" + std::string(r.sum ? "" : " + 32") + "; r_ < " + std::to_string(len) +
              "; r_ += 32) acc_ = " + op + "(acc_, " +
              to_acc(r, r.src + "[" + at + " + r_ * " + std::to_string(inner) + "]") + ");");
      w_.line("acc_ = kdt_cu::warp_reduce(acc_, 32u, 32u, " + op + ");");
      w_.line("if (lane_ == 0) " + name + "[" + o + "] = " + from_acc(e, r, "acc_") + ";");
      w_.close();
      barrier();
      return;
    }
    w_.open(shape.empty() ? "{" : "for (int64_t " + o + " = kdt_tid; " + o + " < " + std::to_string(outer * inner) + "; " +
                                      o + " += kdt_nt) {");
    if (shape.empty()) w_.line("const int64_t " + o + " = 0;");
    // In the C++ path's order (32 lanes in registers), so the same bits.
    w_.line("const " + r.acc_t + " acc_ = kdt_cu::lanes_reduce<" + r.acc_t + ">(" + r.src + " + " + at + ", " +
            std::to_string(len) + ", " + std::to_string(inner) + ", " + (r.sum ? "true" : "false") + ", " + op + ");");
    w_.line((shape.empty() ? name : name + "[" + o + "]") + " = " + from_acc(e, r, "acc_") + ";");
    w_.close();
    barrier();
  }
}

// Issue 19, item 8: the K of one tensor-core step for `dot` over `in`
// giving `acc`, or 0 where `dot` stays a per-thread loop (an arch before
// sm_80, an f32 `dot` without --cuda-tf32, other dtypes).
int KernelEmitter::mma_step(DType in, DType acc) const {
  if (arch_ < 80) return 0;
  if ((in == DType::BF16 || in == DType::F16) && acc == DType::F32) return 16;
  if ((in == DType::I8 || in == DType::U8) && acc == DType::I32) return 16;
  if (in == DType::F32 && acc == DType::F32 && options_.tf32) return 8;
  return 0;
}

// The most staging a wgmma `dot` takes from shared memory: beyond it the
// warp-level path, which needs none, keeps the kernel's shared memory.
constexpr int64_t kWgmmaStagingLimit = 64 * 1024;

// Issue 19, item 8, on sm_90a (the only arch with wgmma): a `dot` whose
// operand types have a warp-level tensor-core step, M a multiple of 64 (the
// instruction's), N of 8, in a block of whole warpgroups, runs on
// warpgroups from a staged copy of its operands (kdt_cuda_wgmma.h).
bool KernelEmitter::wgmma_applies(const Expr& e) const {
  const DType in = e.operands[0]->type.dtype;
  const int64_t M = e.type.shape[0], N = e.type.shape[1], K = e.operands[0]->type.shape[1];
  const int64_t step = mma_step(in, e.type.dtype);
  const bool floats = in == DType::BF16 || in == DType::F16 || in == DType::F32;
  return options_.arch == "sm_90a" && step > 0 && floats && M % 64 == 0 && N % 8 == 0 && K % step == 0 &&
         threads_ % 128 == 0 && (M + N) * K * elem_size(in) <= kWgmmaStagingLimit;
}

// Whether `dot` `e` runs on the warp-level tensor cores (wmma): 16-multiple
// shapes in a block of whole warps, where mma_step allows.
bool KernelEmitter::mma_applies(const Expr& e) const {
  const Shape& a = e.operands[0]->type.shape;
  const int64_t step = mma_step(e.operands[0]->type.dtype, e.type.dtype);
  return step > 0 && a[0] % 16 == 0 && e.type.shape[1] % 16 == 0 && a[1] % step == 0 && threads_ % 32 == 0;
}

void KernelEmitter::dot(const Expr& e, const std::string& name) {
  emit_dot(e, begin_dot(e, name), name, false);
}

// Issue 19, item 10: `acc += dot(a, b)` where the dot runs on tensor cores
// sums the products onto acc in the accumulator fragments (loaded from acc,
// stored back): no temporary, no separate add pass. acc is then the first
// term of the dot's sum rather than added to it afterwards — an order the
// tensor cores choose anyway (the spec fixes none within a dot); the exact
// f32 loop keeps `acc + dot(a, b)` (docs/decisions.md).
bool KernelEmitter::accumulate_dot(const std::string& target, const Expr& e) {
  if (register_names_.count(target) || (!wgmma_applies(e) && !mma_applies(e))) return false;
  emit_dot(e, dot_operands(e), target, true);
  return true;
}

// c = a · b, or c += a · b with `accumulate`, on warpgroups, warps or one
// thread per element.
void KernelEmitter::emit_dot(const Expr& e, const DotOperands& d, const std::string& c, bool accumulate) {
  const std::string &ap = d.a, &bp = d.b, &acc_t = d.acc_t;
  const int64_t M = d.M, K = d.K, N = d.N;
  auto widen = [&](const std::string& v) { return CLikeEmitter::widen(e, d, v, false); };
  const std::string shape = std::to_string(M) + ", " + std::to_string(N) + ", " + std::to_string(K);
  const std::string tail = accumulate ? ", true" : "";
  barrier();
  if (wgmma_applies(e)) {
    // Warpgroups read a staged copy, so any operand alignment serves.
    const int64_t staging = alloc((M + N) * K * elem_size(d.in));
    w_.line("kdt_cu::dot_wgmma<" + shape + tail + ">(" + ap + ", " + bp + ", " + c + ", kdt_smem + " +
            std::to_string(staging) + ");");
    barrier();
    return;
  }
  const bool mma = mma_applies(e);
  if (mma) {
    // Whole warps compute 16x16 output tiles on tensor cores; operands that
    // are not 32-byte aligned (a view into a global ref) take the loop below.
    w_.open("if (kdt_cu::dot_mma_aligned(" + ap + ", " + bp + ", " + c + ")) {");
    w_.line("kdt_cu::dot_mma<" + shape + tail + ">(" + ap + ", " + bp + ", " + c + ");");
    w_.reopen("} else {");
  }
  // Each thread computes whole output elements, K in order.
  w_.open("for (int64_t o_ = kdt_tid; o_ < " + std::to_string(M * N) + "; o_ += kdt_nt) {");
  w_.line("const int64_t r_ = o_ / " + std::to_string(N) + ", c_ = o_ % " + std::to_string(N) + ";");
  w_.line(acc_t + " acc_ = " + (accumulate ? c + "[o_]" : acc_t + "()") + ";");
  w_.line("for (int64_t k_ = 0; k_ < " + std::to_string(K) + "; ++k_) acc_ = kdt_cu::op_add(acc_, kdt_cu::op_mul(" +
          widen(ap + "[r_ * " + std::to_string(K) + " + k_]") + ", " + widen(bp + "[k_ * " + std::to_string(N) + " + c_]") +
          "));");
  w_.line(c + "[o_] = acc_;");
  w_.close();
  if (mma) w_.close();
  barrier();
}

void KernelEmitter::transpose(const Expr& e, const std::string& name) {
  std::string T = ctype(e.type.dtype);
  const Shape& shape = e.type.shape;
  std::string src = materialize_array(*e.operands[0]);
  int64_t R = e.operands[0]->type.shape[0], C = e.operands[0]->type.shape[1];
  declare_temp(e, name);
  LoopCtx ctx = new_ctx(shape);  // [C, R]
  open_loop(ctx);
  w_.line(name + "[" + ctx.flat + "] = " + src + "[" + ctx.index[1] + " * " + std::to_string(C) + " + " + ctx.index[0] + "];");
  close_loop(ctx);
  (void)R;
}

std::string KernelEmitter::reshape(const Expr& e, const std::string& name) {
  std::string T = ctype(e.type.dtype);
  const Shape& shape = e.type.shape;
  std::string src = materialize_array(*e.operands[0]);
  if (shape.empty()) {
    w_.line(T + " " + name + " = " + (e.operands[0]->type.shape.empty() ? src : src + "[0]") + ";");
    return name;
  }
  if (e.operands[0]->type.shape.empty()) {
    declare_temp(e, name);
    barrier();
    w_.line("if (kdt_tid == 0) " + name + "[0] = " + src + ";");
    barrier();
    return name;
  }
  return src;
}

void KernelEmitter::tile_slice(const Expr& e, const std::string& name) {
  std::string T = ctype(e.type.dtype);
  const Shape& shape = e.type.shape;
  const Expr& x = *e.operands[0];
  std::string src = materialize_array(x);
  LoopCtx ctx = new_ctx(shape);
  std::string offset = tile_slice_offset(e, ctx);
  if (shape.empty()) {
    w_.line(T + " " + name + " = " + (x.type.shape.empty() ? src : src + "[" + offset + "]") + ";");
    return;
  }
  declare_temp(e, name);
  open_loop(ctx);
  w_.line(name + "[" + ctx.flat + "] = " + src + "[" + offset + "];");
  close_loop(ctx);
}

bool KernelEmitter::same_elements(const Expr& e, const ir::View& v) {
  if (e.kind == ExprKind::Load) return e.view->ref != v.ref || (!e.mask && same_view(*e.view, v));
  if (materialized_.count(&e)) return true;
  if (is_materialized_kind(e.kind)) return false;
  if (e.kind == ExprKind::Broadcast && e.type.shape != e.operands[0]->type.shape) return !reads_ref(e, v.ref);
  for (const ir::ExprPtr& o : e.operands) {
    if (!same_elements(*o, v)) return false;
  }
  return true;
}


// Issue 19, item 10: an unmasked load of a contiguous part of a shared ref
// — single elements down to one dimension that may be a range, then whole
// dimensions, as `a_buf[slot]` or `xs[ds(r, BR), :]` — is already the
// row-major array a `dot` or a reduction reads: no copy, no barrier pair.
bool KernelEmitter::readable_in_place(const Expr& e) const {
  if (e.kind != ExprKind::Load || e.mask) return false;
  const ir::View& v = *e.view;
  const ir::Ref& r = k_.refs[v.ref];
  if (r.space != MemSpace::Shared) return false;
  size_t d = 0;
  while (d < v.dims.size() && (v.dims[d].dropped || v.dims[d].size == 1)) ++d;
  for (size_t whole = d + 1; whole < v.dims.size(); ++whole) {
    const ir::ViewDim& dim = v.dims[whole];
    if (dim.dropped || dim.start || dim.static_start != 0 || dim.size != r.shape[whole]) return false;
  }
  return true;
}

std::string KernelEmitter::view_in_place(const Expr& e) {
  if (!readable_in_place(e)) return "";
  const ir::View& v = *e.view;
  const ir::Ref& r = k_.refs[v.ref];
  const std::vector<std::string> starts = view_starts(v, false);
  const std::vector<int64_t> strides = row_major_strides(r.shape);
  std::string at = ref_base(v.ref);
  for (size_t dim = 0; dim < starts.size(); ++dim) {
    if (starts[dim] != "0") at += " + (" + starts[dim] + ") * " + std::to_string(strides[dim]);
  }
  return at == ref_base(v.ref) ? at : "(" + at + ")";
}

namespace {

// Whether running `s` may change ref `ref`'s elements: a store into it, a
// DMA into it, and — conservatively — anything that synchronises (a wait
// may land a DMA, a signal may let a peer write) or runs asm.
bool may_change(const ir::Stmt& s, int ref) {
  bool changes = false;
  auto visit = [&](const ir::Stmt& t) {
    switch (t.kind) {
      case ir::StmtKind::Store: changes |= t.view->ref == ref; break;
      case ir::StmtKind::DmaStart:
      case ir::StmtKind::DmaIssue: changes |= t.device || !t.dst || t.dst->ref == ref; break;
      case ir::StmtKind::Let:
      case ir::StmtKind::Assign:
      case ir::StmtKind::For:
      case ir::StmtKind::While:
      case ir::StmtKind::If:
      case ir::StmtKind::Assert:
      case ir::StmtKind::Eval: break;
      default: changes = true;
    }
  };
  visit(s);
  ir::for_each_stmt(s.body, visit);
  for (const ir::IfClause& c : s.clauses) ir::for_each_stmt(c.body, visit);
  return changes;
}

}  // namespace

// Issue 19, item 10: a tile `let` of a load that readable_in_place accepts
// names the elements where they are, instead of copying them, when nothing
// after it in its block may change them (may_change): each use then reads
// what the copy would have held (`let a = a_buf[slot]; acc += dot(a, b);`).
void KernelEmitter::find_lets_in_place(const ir::Block& b) {
  for (size_t i = 0; i < b.size(); ++i) {
    const ir::Stmt& s = *b[i];
    for (const ir::IfClause& c : s.clauses) find_lets_in_place(c.body);
    find_lets_in_place(s.body);
    if (s.kind != ir::StmtKind::Let || k_.locals[s.local].mutable_ || !readable_in_place(*s.value)) continue;
    const int ref = s.value->view->ref;
    bool stable = true;
    for (size_t j = i + 1; j < b.size() && stable; ++j) stable = !may_change(*b[j], ref);
    if (stable) lets_in_place_.insert(&s);
  }
}

// Whether `v` is all of a ref in this block's shared memory (one row-major array).
bool KernelEmitter::whole_shared_ref(const ir::View& v) const {
  const ir::Ref& r = k_.refs[v.ref];
  return r.space == MemSpace::Shared && !r.is_param && v.is_whole(r);
}

void KernelEmitter::store_view(const ir::Stmt& s) {
  const ir::View& v = *s.view;
  Shape vshape = v.shape();
  // `acc[...] += dot(a, b)` into all of a shared scratch ref, row-major.
  if (s.store_op == ir::StoreOp::Add && !s.mask && s.value->kind == ExprKind::Dot && whole_shared_ref(v) &&
      s.value->type.dtype == k_.refs[v.ref].dtype && !reads_ref(*s.value, v.ref) &&
      accumulate_dot(ref_base(v.ref), *s.value)) {
    return;
  }
  prepare(*s.value);
  if (s.mask) prepare(*s.mask);
  std::vector<std::string> starts = view_starts(v, false);
  // A value that reads the destination is computed in full first (its
  // elements may come from other threads' elements).
  std::string value_array;
  if (!vshape.empty() && reads_ref(*s.value, v.ref) && !same_elements(*s.value, v)) {
    value_array = materialize_array(*s.value);
  }
  const bool vector = value_array.empty() && !reads_registers(*s.value) && vector_store(s, starts);
  LoopCtx ctx = element_loop(vshape, "", {s.value.get(), s.mask.get()});
  open_loop(ctx);
  std::string target = ref_base(v.ref) + "[" + view_elem_offset(v, starts, ctx) + "]";
  std::string value = value_array.empty() ? elem(*s.value, ctx) : index_of(value_array, s.value->type.shape, ctx);
  static const char* const ops[] = {"", "kdt_cu::op_add", "kdt_cu::op_sub", "kdt_cu::op_mul"};
  if (s.store_op != ir::StoreOp::Assign) {
    value = std::string(ops[static_cast<int>(s.store_op)]) + "(" + target + ", " + value + ")";
  }
  if (s.mask) w_.line("if (" + elem(*s.mask, ctx) + ") " + target + " = " + value + ";");
  else w_.line(target + " = " + value + ";");
  close_loop(ctx);
  if (vector) w_.close();
}

}  // namespace kdt::cuda
