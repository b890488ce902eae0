// The C++ target's statements and values: serial element loops (one flat
// loop where every operand allows it), checked loads and stores,
// reductions and `dot` as plain loops, inline PTX through its fallback.
#include "cpp_kernel_emitter.h"
#include "lazy_operands.h"

namespace kdt::cpp {

using emit::count_of;
using emit::index_of;

void CppKernelEmitter::let(const ir::Stmt& s) {
  const ir::Local& l = k_.locals[s.local];
  const std::string& name = local_name(s.local);
  if (l.type.shape.empty()) {
    std::string v = scalar(*s.value);
    w_.line(std::string("[[maybe_unused]] ") + (l.mutable_ ? "" : "const ") + ctype(l.type.dtype) + " " + name + " = " + v + ";");
  } else {
    declare_tile(l.type.dtype, name, count_of(l.type.shape), s.range, l.spelled());
    store_tile(name, l.type.shape, *s.value);
  }
}

void CppKernelEmitter::loop_variable(const std::string& v) {
  w_.line("[[maybe_unused]] const int32_t " + v + " = static_cast<int32_t>(" + v + "_it);");
}

void CppKernelEmitter::assert_stmt(const ir::Stmt& s) {
  std::string cond = scalar(*s.value);
  std::string message = s.message.empty() ? "assertion failed" : "assertion failed: " + s.message;
  w_.line("if (!(" + cond + ")) kdt_rt::fail(" + run_code(DiagCode::AssertFailed) + ", " + loc(s.range) + ", \"" +
          emit::CodeWriter::escape(message) + "\");");
}

void CppKernelEmitter::eval(const ir::Stmt& s) {
  std::string v = scalar_or_tile(*s.value);
  w_.line("(void)" + v + ";");
}

std::string CppKernelEmitter::declare_temp(const Expr& e, const std::string& name) {
  std::string T = ctype(e.type.dtype);
  if (e.type.shape.empty()) w_.line(T + " " + name + "{};");
  else declare_tile(e.type.dtype, name, count_of(e.type.shape), e.range, "a temporary");
  return name;
}

std::string CppKernelEmitter::leaf(const Expr& e, const LoopCtx& ctx) {
  switch (e.kind) {
    case ExprKind::ScalarParam: return "p." + names_.scalars[e.index];
    case ExprKind::ProgramId: return "static_cast<int32_t>(s.program[" + std::to_string(e.index) + "])";
    case ExprKind::DeviceId: return "static_cast<int32_t>(device)";
    // The counter is 64-bit; sem_read is an i32 (spec section 7).
    case ExprKind::SemRead: return materialized_.at(&e);
    case ExprKind::PtxOp: {
      std::string call = "kdt_rt::ptx::" + e.name + "(";
      for (size_t i = 0; i < e.operands.size(); ++i) call += (i ? ", " : "") + elem(*e.operands[i], ctx);
      return call + ")";
    }
    default: return "0 /* not a leaf */";
  }
}

// sem_read is a scheduling point (spec section 17): the scheduler lets
// the other devices run, then reads the counter. Inside a `while` loop it
// is a poll: the scheduler counts a device that finds the counter as this
// read last found it, having done nothing in between, as blocked on it.
// A DMA semaphore reads as the bytes of its DMAs not yet waited, each
// landed first (with --dma-mode=on_wait its data moves now; it stays in
// flight until a wait retires it).
void CppKernelEmitter::prepare_sem_read(const Expr& e) {
  if (materialized_.count(&e)) return;
  const bool dma = k_.sems[e.sem->sem].kind == SemKind::Dma;
  std::string sem = sem_ref(*e.sem);
  std::string count = "[&] { return " + (dma ? sem + ".unwaited_bytes()" : counter(sem)) + "; }";
  std::string land = dma ? "[&] { for (const auto& d_ : " + sem + ".in_flight) if (!d_->landed) " + names_.kernel + "_run_dma(L, *d_); }"
                         : "[] {}";
  int site = next_temp_;
  std::string name = fresh("sem");
  std::string read = "L.scheduler.read_semaphore(device, " + count + ", " + land + ")";
  if (in_while_) {
    read = "L.scheduler.poll_semaphore(device, &" + sem + ", " + count + ", " + land + ", " + std::to_string(site) +
           ", {\"sem_read polling `" + k_.sems[e.sem->sem].kd_name + "`, unchanged since this read last saw it\", " +
           loc(e.range) + ", s.flat})";
  }
  w_.line("const int32_t " + name + " = static_cast<int32_t>(" + read + ");");
  materialized_[&e] = name;
}

std::string CppKernelEmitter::checked_start(const std::string& value, const ir::View& v, size_t d, bool masked) {
  if (!options_.checks || masked) return value;
  const ir::ViewDim& dim = v.dims[d];
  return "kdt_rt::checked_index(" + value + ", " + std::to_string(dim.size) + ", " + std::to_string(k_.refs[v.ref].shape[d]) +
         ", " + loc(dim.start->range) + ", \"index\")";
}

std::string CppKernelEmitter::divisor(const Expr& e, const std::string& b) {
  if (!options_.checks) return b;
  return "kdt_rt::checked_divisor<" + ctype(e.operands[0]->type.dtype) + ">(" + b + ", " + loc(e.range) + ")";
}

std::string CppKernelEmitter::mesh_coordinate(const Expr& e, size_t axis, const std::string& c) {
  if (!options_.checks) return c;
  return "kdt_rt::checked_coordinate(" + c + ", " + std::to_string(k_.mesh[axis]) + ", \"" +
         mesh_axis_label(k_.mesh_axes, axis) + "\", " + loc(e.range) + ")";
}

std::string CppKernelEmitter::load(const Expr& e, const LoopCtx& ctx) {
  std::string T = ctype(e.type.dtype);
  const std::vector<std::string>& starts = view_starts_.at(&e);
  std::vector<std::string> coords;
  std::string offset = view_elem_offset(*e.view, starts, ctx, &coords);
  std::string access = ref_base(e.view->ref) + "[" + offset + "]";
  if (!e.mask) return access;
  std::string other = e.other ? elem(*e.other, ctx) : T + "{}";
  std::string mask = elem(*e.mask, ctx);
  if (!options_.checks) return "(" + mask + " ? " + access + " : " + other + ")";
  // Masked-on elements must lie inside the ref.
  std::string inside = in_bounds(*e.view, coords);
  std::string shadow_check = "kdt_rt::check_element(" + shadow_of(e.view->ref) + ", static_cast<size_t>(" + offset +
                             "), kdt_rt::Access::Read, s.clock, " + masked_sites_.at(&e) + "), ";
  return "(" + mask + " ? ((" + inside + ") ? (" + shadow_check + access + ") : (kdt_rt::fail(" + run_code(DiagCode::OutOfBounds) + ", " +
         loc(e.range) + ", \"a masked-on element lies outside the ref\"), " + access + ")) : " + other + ")";
}

// Nested loops over `ctx.shape` with a running flat index.
void CppKernelEmitter::open_loop(const LoopCtx& ctx) {
  if (ctx.shape.empty()) {
    w_.open("{");
    return;
  }
  w_.open("{");
  w_.line("int64_t " + ctx.flat + " = 0;");
  w_.line("(void)" + ctx.flat + ";");
  for (size_t d = 0; d < ctx.shape.size(); ++d) {
    w_.open("for (int64_t " + ctx.index[d] + " = 0; " + ctx.index[d] + " < " + std::to_string(ctx.shape[d]) + "; ++" +
            ctx.index[d] + ") {");
  }
}

void CppKernelEmitter::close_loop(const LoopCtx& ctx) {
  if (ctx.shape.empty()) {
    w_.close();
    return;
  }
  w_.line("++" + ctx.flat + ";");
  for (size_t d = 0; d < ctx.shape.size(); ++d) w_.close();
  w_.close();
}

// Writes tile `value` into the array `name` of `shape`.
void CppKernelEmitter::store_tile(const std::string& name, const Shape& shape, const Expr& value) {
  prepare(value);
  LoopCtx ctx = new_ctx(shape);
  // Same-shape element-wise trees index with one flat counter: the
  // tightest loop, which the compiler vectorises.
  if (flat_friendly(value, shape)) {
    std::string i = ctx.flat;
    w_.open("for (int64_t " + i + " = 0; " + i + " < " + std::to_string(count_of(shape)) + "; ++" + i + ") {");
    LoopCtx flat = ctx;
    flat.index.clear();
    w_.line(name + "[" + i + "] = " + elem(value, flat) + ";");
    w_.close();
    return;
  }
  open_loop(ctx);
  w_.line(name + "[" + ctx.flat + "] = " + elem(value, ctx) + ";");
  close_loop(ctx);
}

// Whether every leaf of an element-wise tree has `shape` or is a scalar,
// so that one flat index addresses all of them.
bool CppKernelEmitter::flat_friendly(const Expr& e, const Shape& shape) {
  if (e.type.shape.empty()) return true;
  if (e.type.shape != shape) return false;
  switch (e.kind) {
    case ExprKind::Load: return !e.mask && e.view->is_whole(k_.refs[e.view->ref]);
    case ExprKind::Iota: return false;
    case ExprKind::Local:
    case ExprKind::Fill: return true;
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Where:
    case ExprKind::Cast:
    case ExprKind::Math:
    case ExprKind::Broadcast:
    case ExprKind::PtxOp:
      for (const ir::ExprPtr& o : e.operands) {
        if (!flat_friendly(*o, shape)) return false;
      }
      return true;
    default: return materialized_.count(&e) > 0;
  }
}

std::string CppKernelEmitter::scalar_or_tile(const Expr& e) {
  if (e.type.shape.empty()) return scalar(e);
  return materialize(e);
}

// Dynamic starts of a load are evaluated (and checked) once, before the loop.
void CppKernelEmitter::prepare_load(const Expr& e) {
  std::vector<std::string> starts = view_starts(*e.view, e.mask != nullptr);
  view_starts_[&e] = starts;
  if (options_.checks) {
    if (!e.mask) {
      w_.line("kdt_rt::check_access(" + shadow_of(e.view->ref) + ", " + box_of(*e.view, starts) + ", kdt_rt::Access::Read, s.clock, " +
              site(e.range) + ");");
    } else {
      masked_sites_[&e] = site(e.range);
    }
  }
}

std::string CppKernelEmitter::in_bounds(const ir::View& v, const std::vector<std::string>& coords) {
  const Shape& rs = k_.refs[v.ref].shape;
  std::string out;
  for (size_t d = 0; d < rs.size(); ++d) {
    // A static range inside the ref needs no test; a masked view's static
    // slice may reach past it (the checker allows that).
    const ir::ViewDim& dim = v.dims[d];
    if (!dim.start && dim.static_start >= 0 && dim.static_start + dim.size <= rs[d]) continue;
    std::string c = "(" + coords[d] + ")";
    out += (out.empty() ? "" : " && ") + c + " >= 0 && " + c + " < " + std::to_string(rs[d]);
  }
  return out.empty() ? "true" : out;
}

// ----- stores into views ---------------------------------------------------------------
// `+=` and friends read what they write.
std::string CppKernelEmitter::access_kind(const ir::Stmt& s) {
  return s.store_op == ir::StoreOp::Assign ? "kdt_rt::Access::Write" : "kdt_rt::Access::Update";
}

void CppKernelEmitter::store_view(const ir::Stmt& s) {
  const ir::View& v = *s.view;
  Shape vshape = v.shape();
  // Evaluate the value first (it may read the destination).
  prepare(*s.value);
  if (s.mask) prepare(*s.mask);
  std::vector<std::string> starts = view_starts(v, s.mask != nullptr);
  std::string mask_site;
  if (options_.checks) {
    if (!s.mask) {
      w_.line("kdt_rt::check_access(" + shadow_of(v.ref) + ", " + box_of(v, starts) + ", " + access_kind(s) + ", s.clock, " +
              site(s.range) + ");");
    } else {
      mask_site = site(s.range);
    }
  }
  // A value that reads the destination must be computed in full before
  // any element is written.
  std::string value_array;
  if (!vshape.empty() && reads_ref(*s.value, v.ref) && !same_elements(*s.value, v)) {
    value_array = materialize_array(*s.value);
  }
  LoopCtx ctx = new_ctx(vshape);
  bool flat = !s.mask && value_array.empty() && v.is_whole(k_.refs[v.ref]) && flat_friendly(*s.value, vshape);
  if (flat) {
    // The whole ref, element-wise: one flat, vectorisable loop.
    ctx.index.clear();
    w_.open("for (int64_t " + ctx.flat + " = 0; " + ctx.flat + " < " + std::to_string(count_of(vshape)) + "; ++" +
            ctx.flat + ") {");
  } else {
    open_loop(ctx);
  }
  std::vector<std::string> coords;
  std::string offset = view_elem_offset(v, starts, ctx, &coords);
  if (ctx.index.empty() && !vshape.empty()) offset = ctx.flat;
  std::string target = ref_base(v.ref) + "[" + offset + "]";
  std::string value = value_array.empty() ? elem(*s.value, ctx) : index_of(value_array, vshape, ctx);
  static const char* const ops[] = {"", "kdt_rt::op_add", "kdt_rt::op_sub", "kdt_rt::op_mul"};
  if (s.store_op != ir::StoreOp::Assign) value = std::string(ops[static_cast<int>(s.store_op)]) + "(" + target + ", " + value + ")";
  if (s.mask) {
    w_.open("if (" + elem(*s.mask, ctx) + ") {");
    if (options_.checks) {
      w_.line("if (!(" + in_bounds(v, coords) + ")) kdt_rt::fail(" + run_code(DiagCode::OutOfBounds) + ", " + loc(s.range) +
              ", \"a masked-on element lies outside the ref\");");
    }
    if (options_.checks) {
      w_.line("kdt_rt::check_element(" + shadow_of(v.ref) + ", static_cast<size_t>(" + offset + "), " + access_kind(s) +
              ", s.clock, " + mask_site + ");");
    }
    w_.line(target + " = " + value + ";");
    w_.close();
  } else {
    w_.line(target + " = " + value + ";");
  }
  if (flat) w_.close();
  else close_loop(ctx);
}

// `r[v] = r[v] * 2` reads each element just before writing it: no copy needed.
bool CppKernelEmitter::same_elements(const Expr& e, const ir::View& v) {
  if (e.kind == ExprKind::Load) return e.view->ref != v.ref || same_view(*e.view, v);
  if (e.kind == ExprKind::Reduce || e.kind == ExprKind::Dot || e.kind == ExprKind::Transpose ||
      e.kind == ExprKind::Reshape || e.kind == ExprKind::TileSlice) {
    return materialized_.count(&e) > 0;
  }
  for (const ir::ExprPtr& o : e.operands) {
    if (!same_elements(*o, v)) return false;
  }
  return true;
}

// ----- asm blocks (through their fallback) ---------------------------------------
void CppKernelEmitter::asm_stmt(const ir::Stmt& s) {
  const ir::AsmBlock& a = k_.asms[s.asm_id];
  int64_t n = count_of(a.shape);
  std::vector<std::string> outs;
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    std::string name = "asm" + std::to_string(s.asm_id) + "_" + a.output_names[i];
    outs.push_back(name);
    if (a.shape.empty()) w_.line(ctype(a.outputs[i].second) + " " + name + "{};");
    else declare_tile(a.outputs[i].second, name, n, a.range, a.output_names[i]);
  }
  asm_outputs_[s.asm_id] = outs;
  if (!a.fallback) return;
  LoopCtx ctx = new_ctx(a.shape);
  std::vector<std::string> ins;
  for (const ir::ExprPtr& v : a.input_values) {
    prepare(*v);
  }
  open_loop(ctx);
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    w_.line("const " + ctype(a.inputs[i].second) + " " + local_name(a.inputs[i].first) + " = " +
            elem(*a.input_values[i], ctx) + ";");
  }
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    w_.line(ctype(a.outputs[i].second) + " " + local_name(a.outputs[i].first) + "{};");
  }
  block(*a.fallback);
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    w_.line(outs[i] + (a.shape.empty() ? "" : "[" + ctx.flat + "]") + " = " + local_name(a.outputs[i].first) + ";");
  }
  close_loop(ctx);
}

void CppKernelEmitter::reduce(const Expr& e, const std::string& name) {
  const Shape& shape = e.type.shape;
  const Shape& xs = e.operands[0]->type.shape;
  const Reduction r = begin_reduction(e, name);
  if (xs.empty()) {
    // A rank-0 value reduces to itself; a sum's one lane starts from +0
    // like every other (so sum(-0.0) is +0).
    w_.line(name + " = " + (r.sum ? from_acc(e, r, rt("op_add(") + r.acc_t + "{}, " + to_acc(r, r.src) + ")") : r.src) + ";");
    return;
  }
  // The runtime's reductions (kdt_reduce.h) fix kdt's order: 32 lanes
  // combined by halving, as a warp does on the compiled path.
  const std::string fn = rt(r.sum ? "reduce_sum(" : e.reduce == ir::ReduceOp::Max ? "reduce_max(" : "reduce_min(");
  if (e.index < 0) {
    const std::string value = from_acc(e, r, fn + r.src + ", " + std::to_string(count_of(xs)) + ", 1)");
    if (shape.empty()) w_.line(name + " = " + value + ";");
    else w_.line("std::fill_n(" + name + ", " + std::to_string(count_of(shape)) + ", " + value + ");");
    return;
  }
  const int64_t outer = r.outer, inner = r.inner, len = r.len;
  const std::string dst = shape.empty() ? name : name + "[o_ * " + std::to_string(inner) + " + in_]";
  w_.open("for (int64_t o_ = 0; o_ < " + std::to_string(outer) + "; ++o_) {");
  w_.open("for (int64_t in_ = 0; in_ < " + std::to_string(inner) + "; ++in_) {");
  w_.line(dst + " = " + from_acc(e, r, fn + r.src + " + o_ * " + std::to_string(len * inner) + " + in_, " +
                                   std::to_string(len) + ", " + std::to_string(inner) + ")") + ";");
  w_.close();
  w_.close();
}

void CppKernelEmitter::dot(const Expr& e, const std::string& name) {
  const DotOperands d = begin_dot(e, name);
  const std::string &ap = d.a, &bp = d.b, &acc_t = d.acc_t;
  const int64_t M = d.M, K = d.K, N = d.N;
  if (is_float(e.type.dtype)) {
    // The runtime's blocked kernel (kdt_dot.h): the plain loop's operations
    // on each element, in its order, so the same result bit for bit.
    w_.line("kdt_rt::dot(" + name + ", " + ap + ", " + bp + ", " + std::to_string(M) + ", " + std::to_string(K) + ", " +
            std::to_string(N) + ");");
    return;
  }
  auto widen = [&](const std::string& v) { return CLikeEmitter::widen(e, d, v, true); };
  // Integer accumulators (wrapping): i-k-j order, the inner loop along rows of B and C, contiguous and
  // vectorisable. k advances U at a time, so that each element of C is
  // loaded and stored once per U products (c = ((c + a0 b0) + a1 b1) + ...:
  // the same operations in the same order as U single steps, so the same
  // result); the fewer stores also keep the speed from depending on where
  // the stack puts the tiles (4 KiB aliasing between C and B).
  int64_t U = 1;
  for (int64_t u : {4, 2}) {
    if (K % u == 0) {
      U = u;
      break;
    }
  }
  w_.line("for (int64_t j_ = 0; j_ < " + std::to_string(M * N) + "; ++j_) " + name + "[j_] = " + acc_t + "{};");
  w_.open("for (int64_t i_ = 0; i_ < " + std::to_string(M) + "; ++i_) {");
  w_.open("for (int64_t k_ = 0; k_ < " + std::to_string(K) + "; k_ += " + std::to_string(U) + ") {");
  w_.line(acc_t + "* c_ = " + name + " + i_ * " + std::to_string(N) + ";");
  std::string sum = "c_[j_]";
  for (int64_t u = 0; u < U; ++u) {
    const std::string a = "a" + std::to_string(u) + "_", b = "b" + std::to_string(u) + "_";
    w_.line("const " + acc_t + " " + a + " = " + widen(ap + "[i_ * " + std::to_string(K) + " + k_ + " + std::to_string(u) + "]") +
            ";");
    w_.line("const auto* " + b + " = " + bp + " + (k_ + " + std::to_string(u) + ") * " + std::to_string(N) + ";");
    sum = "kdt_rt::op_add(" + sum + ", kdt_rt::op_mul(" + a + ", " + widen(b + "[j_]") + "))";
  }
  w_.line("for (int64_t j_ = 0; j_ < " + std::to_string(N) + "; ++j_) c_[j_] = " + sum + ";");
  w_.close();
  w_.close();
}

void CppKernelEmitter::transpose(const Expr& e, const std::string& name) {
  std::string src = materialize_array(*e.operands[0]);
  int64_t R = e.operands[0]->type.shape[0], C = e.operands[0]->type.shape[1];
  declare_temp(e, name);
  w_.line("for (int64_t r_ = 0; r_ < " + std::to_string(R) + "; ++r_) for (int64_t c_ = 0; c_ < " + std::to_string(C) +
          "; ++c_) " + name + "[c_ * " + std::to_string(R) + " + r_] = " + src + "[r_ * " + std::to_string(C) + " + c_];");
}

// Same elements in the same row-major order: the operand itself.
std::string CppKernelEmitter::reshape(const Expr& e, const std::string&) {
  // Same elements in the same row-major order.
  std::string src = materialize_array(*e.operands[0]);
  return src;
}

void CppKernelEmitter::tile_slice(const Expr& e, const std::string& name) {
  const Shape& shape = e.type.shape;
  const Expr& x = *e.operands[0];
  std::string src = materialize_array(x);
  LoopCtx ctx = new_ctx(shape);
  declare_temp(e, name);
  open_loop(ctx);
  w_.line((shape.empty() ? name : name + "[" + ctx.flat + "]") + " = " + src + "[" + tile_slice_offset(e, ctx) + "];");
  close_loop(ctx);
}

}  // namespace kdt::cpp
