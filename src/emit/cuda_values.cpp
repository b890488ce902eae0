// The CUDA back end: statements, block-stride element loops, values,
// reductions, `dot`, transposes, slices and stores.
#include <algorithm>

#include "cuda_kernel_emitter.h"
#include "lazy_operands.h"

namespace kdt::cuda {

void KernelEmitter::block(const ir::Block& b) {
  int64_t mark = top_;
  for (const ir::StmtPtr& s : b) stmt(*s);
  top_ = mark;
}

void KernelEmitter::stmt(const ir::Stmt& s) {
  w_.source_line(s.range);
  // Temporaries of one statement die with it; a tile `let` and asm outputs
  // live until the end of the enclosing block.
  switch (s.kind) {
    case ir::StmtKind::Let: {
      const ir::Local& l = k_.locals[s.local];
      if (l.type.shape.empty()) {
        int64_t mark = top_;
        std::string v = scalar(*s.value);
        top_ = mark;
        w_.line(ctype(l.type.dtype) + " " + l.name + " = " + v + ";");
        w_.line("(void)" + l.name + ";");
      } else {
        int64_t off = alloc(count_of(l.type.shape) * elem_size(l.type.dtype));
        w_.line(ctype(l.type.dtype) + "* const " + l.name + " = " + smem_ptr(l.type.dtype, off) + ";");
        int64_t mark = top_;
        store_tile(l.name, l.type.shape, *s.value);
        top_ = mark;
      }
      return;
    }
    case ir::StmtKind::AsmStmt: asm_stmt(s); return;
    default: break;
  }
  int64_t mark = top_;
  switch (s.kind) {
    case ir::StmtKind::Assign: {
      const ir::Local& l = k_.locals[s.local];
      if (l.type.shape.empty()) w_.line(l.name + " = " + scalar(*s.value) + ";");
      else store_tile(l.name, l.type.shape, *s.value);
      break;
    }
    case ir::StmtKind::Store: store_view(s); break;
    case ir::StmtKind::For: {
      std::string lo = scalar(*s.lo), hi = scalar(*s.hi);
      std::string v = local_name(s.local);
      w_.open("for (int64_t " + v + "_it = " + lo + "; " + v + "_it < " + hi + "; " + v + "_it += " + std::to_string(s.step) +
              ") {");
      w_.line("const int32_t " + v + " = static_cast<int32_t>(" + v + "_it);");
      w_.line("(void)" + v + ";");
      block(s.body);
      w_.close();
      break;
    }
    case ir::StmtKind::If: if_chain(s.clauses, 0); break;
    case ir::StmtKind::Assert:
      // Run-time checks belong to the interpretation path.
      w_.line("// assert: checked on the C++ path only");
      break;
    case ir::StmtKind::Eval: {
      if (s.value->type.shape.empty()) w_.line("(void)(" + scalar(*s.value) + ");");
      else materialize_array(*s.value);
      break;
    }
    case ir::StmtKind::DmaStart: dma_start(s); break;
    case ir::StmtKind::DmaWait: {
      if (sync_sem(s.sem.sem)) {
        w_.line("kdt_cu::wait_sys(" + sync_counter(s.sem) + ", " + std::to_string(s.bytes) + ");");
        break;
      }
      std::string q = "kdt_q_" + k_.sems[s.sem.sem].name + "[" + sem_index(s.sem) + "]";
      std::string bars = bar_off_.count(s.sem.sem)
                             ? "kdt_bar_" + k_.sems[s.sem.sem].name + " + " + sem_index(s.sem) + " * " +
                                   std::to_string(kQueue * 8)
                             : "nullptr";
      w_.line("kdt_cu::dma_retire(" + q + ", " + bars + ");");
      break;
    }
    case ir::StmtKind::SemSignal: {
      if (sync_sem(s.sem.sem)) {
        std::string amount = scalar(*s.amount);
        std::string device = s.device ? "(" + scalar(*s.device) + ")" : "";
        w_.line("kdt_cu::signal_sys(" + sync_counter(s.sem, device) + ", " + amount + ");");
        break;
      }
      w_.line("kdt_sem_" + k_.sems[s.sem.sem].name + "[" + sem_index(s.sem) + "] += " + scalar(*s.amount) + ";");
      break;
    }
    case ir::StmtKind::SemWait: {
      if (sync_sem(s.sem.sem)) {
        w_.line("kdt_cu::wait_sys(" + sync_counter(s.sem) + ", " + scalar(*s.amount) + ");");
        break;
      }
      std::string sem = "kdt_sem_" + k_.sems[s.sem.sem].name + "[" + sem_index(s.sem) + "]";
      std::string amount = scalar(*s.amount);
      // Nothing else can raise this program's semaphore: an unmet wait is a deadlock.
      w_.line("if (" + sem + " < " + amount + ") __trap();");
      w_.line(sem + " -= " + amount + ";");
      break;
    }
    case ir::StmtKind::DmaIssue:
    case ir::StmtKind::DmaRetire:
    case ir::StmtKind::Let:
    case ir::StmtKind::AsmStmt: break;
  }
  top_ = mark;
}

void KernelEmitter::if_chain(const std::vector<ir::IfClause>& clauses, size_t i) {
  w_.open("if (" + scalar(*clauses[i].cond) + ") {");
  block(clauses[i].body);
  if (i + 1 < clauses.size()) {
    w_.reopen("} else {");
    if (clauses[i + 1].cond) if_chain(clauses, i + 1);
    else block(clauses[i + 1].body);
  }
  w_.close();
}

LoopCtx KernelEmitter::new_ctx(const Shape& shape) {
  LoopCtx ctx;
  ctx.shape = shape;
  std::string id = std::to_string(next_temp_++);
  for (size_t d = 0; d < shape.size(); ++d) ctx.index.push_back("i" + id + "_" + std::to_string(d) + "_");
  ctx.flat = shape.empty() ? "0" : "e" + id + "_";
  return ctx;
}

void KernelEmitter::open_loop(const LoopCtx& ctx) {
  w_.line("__syncthreads();");
  if (ctx.shape.empty()) {
    w_.open("if (kdt_tid == 0) {");
    return;
  }
  w_.open("for (int64_t " + ctx.flat + " = kdt_tid; " + ctx.flat + " < " + std::to_string(count_of(ctx.shape)) + "; " +
          ctx.flat + " += kdt_nt) {");
  std::vector<int64_t> st = strides_of(ctx.shape);
  for (size_t d = 0; d < ctx.shape.size(); ++d) {
    std::string v = ctx.flat;
    if (st[d] != 1) v = "(" + v + " / " + std::to_string(st[d]) + ")";
    if (d != 0) v += " % " + std::to_string(ctx.shape[d]);
    w_.line("const int64_t " + ctx.index[d] + " = " + v + ";");
    w_.line("(void)" + ctx.index[d] + ";");
  }
}

void KernelEmitter::close_loop() {
  w_.close();
  w_.line("__syncthreads();");
}

void KernelEmitter::store_tile(const std::string& name, const Shape& shape, const Expr& value) {
  prepare(value);
  LoopCtx ctx = new_ctx(shape);
  open_loop(ctx);
  w_.line(name + "[" + ctx.flat + "] = " + elem(value, ctx) + ";");
  close_loop();
}

std::string KernelEmitter::scalar(const Expr& e) {
  prepare(e);
  LoopCtx ctx;
  return elem(e, ctx);
}

void KernelEmitter::prepare(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Reduce:
    case ExprKind::Dot:
    case ExprKind::Transpose:
    case ExprKind::Reshape:
    case ExprKind::TileSlice:
      if (!materialized_.count(&e)) materialize(e);
      return;
    case ExprKind::SemRead:
      // A counter other devices raise: read once for the block, before any element loop.
      if (sync_sem(e.sem->sem) && !materialized_.count(&e)) {
        std::string name = fresh("sem");
        w_.line("const int32_t " + name + " = kdt_cu::read_sys(" + sync_counter(*e.sem) + ", kdt_red);");
        materialized_[&e] = name;
      }
      return;
    case ExprKind::Load:
      view_starts_[&e] = view_starts(*e.view);
      if (e.mask) prepare(*e.mask);
      if (e.other) prepare(*e.other);
      return;
    case ExprKind::Select:
    case ExprKind::Binary:
      // Scalars are the same in every thread: the branch is uniform, so a
      // block reduction inside it is safe.
      if (emit::needs_lazy_operand(e, false)) {
        if (!materialized_.count(&e)) materialize_lazy(e);
        return;
      }
      for (const ir::ExprPtr& o : e.operands) prepare(*o);
      return;
    default:
      for (const ir::ExprPtr& o : e.operands) prepare(*o);
  }
}

// A Select or a scalar `&&`/`||` with each lazy operand in its own branch.
std::string KernelEmitter::materialize_lazy(const Expr& e) {
  std::string name = declare_temp(e, fresh("t"));
  auto assign = [&](const Expr& value) {
    if (e.type.shape.empty()) w_.line(name + " = " + scalar(value) + ";");
    else store_tile(name, e.type.shape, value);
  };
  emit::write_lazy_branches(w_, e, name, [&](const Expr& x) { return scalar(x); }, assign);
  materialized_[&e] = name;
  return name;
}

std::vector<std::string> KernelEmitter::view_starts(const ir::View& v) {
  std::vector<std::string> starts;
  for (const ir::ViewDim& dim : v.dims) {
    if (!dim.start) {
      starts.push_back(std::to_string(dim.static_start));
      continue;
    }
    std::string name = fresh("start");
    w_.line("const int64_t " + name + " = static_cast<int64_t>(" + scalar(*dim.start) + ");");
    starts.push_back(name);
  }
  return starts;
}

std::string KernelEmitter::view_elem_offset(const ir::View& v, const std::vector<std::string>& starts,
                               const std::vector<std::string>& index) {
  const Shape& rs = k_.refs[v.ref].shape;
  std::vector<int64_t> st = strides_of(rs);
  Shape vshape = v.shape();
  size_t offset_dims = index.size() - std::min(index.size(), vshape.size());
  std::string out;
  size_t vd = 0;
  for (size_t d = 0; d < rs.size(); ++d) {
    const ir::ViewDim& dim = v.dims[d];
    std::string coord = starts[d];
    if (!dim.dropped) {
      std::string i = (index.empty() || vshape[vd] == 1) ? "" : index[offset_dims + vd];
      if (!i.empty()) coord = coord == "0" ? i : coord + " + " + i;
      ++vd;
    }
    if (coord == "0") continue;
    std::string term = st[d] == 1 ? "(" + coord + ")" : "(" + coord + ") * " + std::to_string(st[d]);
    out += out.empty() ? term : " + " + term;
  }
  return out.empty() ? "0" : out;
}

std::string KernelEmitter::elem(const Expr& e, const LoopCtx& ctx) {
  if (auto it = materialized_.find(&e); it != materialized_.end()) return index_of(it->second, e.type.shape, ctx);
  std::string T = ctype(e.type.dtype);
  auto operand = [&](size_t i) { return elem(*e.operands[i], ctx); };
  switch (e.kind) {
    case ExprKind::Const: return const_literal(e);
    case ExprKind::Local: return index_of(local_name(e.local), e.type.shape, ctx);
    case ExprKind::ScalarParam: return k_.scalars[e.index].name;
    case ExprKind::ProgramId: return "kdt_pid" + std::to_string(e.index);
    case ExprKind::NumPrograms:
      return "int32_t(" + std::to_string(e.index >= 0 && static_cast<size_t>(e.index) < k_.grid.size() ? k_.grid[e.index] : 1) + ")";
    case ExprKind::DeviceId: return multi_device() ? "kdt_device" : "int32_t(0)";
    case ExprKind::NumDevices: return "int32_t(" + std::to_string(k_.devices) + ")";
    case ExprKind::Load: {
      const std::vector<std::string>& starts = view_starts_.at(&e);
      std::string access = ref_base(e.view->ref) + "[" + view_elem_offset(*e.view, starts, ctx.index) + "]";
      if (!e.mask) return access;
      std::string other = e.other ? elem(*e.other, ctx) : T + "()";
      return "(" + elem(*e.mask, ctx) + " ? " + access + " : " + other + ")";
    }
    case ExprKind::Unary: {
      std::string a = operand(0);
      switch (e.unary) {
        case ir::UnaryOp::Neg: return "kdt_cu::op_neg(" + a + ")";
        case ir::UnaryOp::Not: return "(!" + a + ")";
        case ir::UnaryOp::BitNot: return "static_cast<" + T + ">(~" + a + ")";
      }
      return a;
    }
    case ExprKind::Binary: return binary(e, operand(0), operand(1));
    case ExprKind::Select:
    case ExprKind::Where: return "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")";
    case ExprKind::Cast: return "kdt_cu::convert<" + T + ">(" + operand(0) + ")";
    case ExprKind::Math:
      if (e.name == "maximum" || e.name == "minimum") {
        return "kdt_cu::" + e.name + "<" + T + ">(" + operand(0) + ", " + operand(1) + ")";
      }
      return "kdt_cu::math::" + e.name + "<" + T + ">(" + operand(0) + ")";
    case ExprKind::Fill: return operand(0);
    case ExprKind::Iota: {
      // Broadcast into the loop's shape (right-aligned): the loop's index
      // along the same dimension, and 0 along a dimension of size 1.
      size_t axis = static_cast<size_t>(e.index);
      std::string i = ctx.index.empty() || e.type.shape[axis] == 1 ? "0" : ctx.index[ctx.index.size() - e.type.shape.size() + axis];
      return "kdt_cu::convert<" + T + ">(" + i + ")";
    }
    case ExprKind::Broadcast: return operand(0);
    case ExprKind::SemRead:
      if (sync_sem(e.sem->sem)) return materialized_.at(&e);
      return "kdt_sem_" + k_.sems[e.sem->sem].name + "[" + sem_index(*e.sem) + "]";
    case ExprKind::AsmOutput: return index_of(asm_outputs_.at(e.asm_id)[e.index], e.type.shape, ctx);
    case ExprKind::PtxOp: return "0 /* PtxOp appears only after discharge */";
    default: return index_of(materialize(e), e.type.shape, ctx);
  }
}

std::string KernelEmitter::binary(const Expr& e, const std::string& a, const std::string& b) {
  DType t = e.operands[0]->type.dtype;
  std::string T = ctype(t);
  using Op = ir::BinaryOp;
  switch (e.binary) {
    case Op::Add: return "kdt_cu::op_add<" + T + ">(" + a + ", " + b + ")";
    case Op::Sub: return "kdt_cu::op_sub<" + T + ">(" + a + ", " + b + ")";
    case Op::Mul: return "kdt_cu::op_mul<" + T + ">(" + a + ", " + b + ")";
    case Op::Div:
      if (is_float(t)) return "kdt_cu::op_div<" + T + ">(" + a + ", " + b + ")";
      return "kdt_cu::int_div<" + T + ">(" + a + ", " + b + ")";
    case Op::Rem:
      if (is_float(t)) return "kdt_cu::op_rem<" + T + ">(" + a + ", " + b + ")";
      return "kdt_cu::int_rem<" + T + ">(" + a + ", " + b + ")";
    case Op::Shl: return "kdt_cu::shl<" + T + ">(" + a + ", " + b + ")";
    case Op::Shr: return "kdt_cu::shr<" + T + ">(" + a + ", " + b + ")";
    case Op::BitAnd: return "static_cast<" + T + ">(" + a + " & " + b + ")";
    case Op::BitXor: return "static_cast<" + T + ">(" + a + " ^ " + b + ")";
    case Op::BitOr: return "static_cast<" + T + ">(" + a + " | " + b + ")";
    case Op::And: return "(" + a + " && " + b + ")";
    case Op::Or: return "(" + a + " || " + b + ")";
    default: break;
  }
  static const char* const cmp[] = {"<", "<=", ">", ">=", "==", "!="};
  std::string op = cmp[static_cast<int>(e.binary) - static_cast<int>(Op::Lt)];
  return "(kdt_cu::cmp_value(" + a + ") " + op + " kdt_cu::cmp_value(" + b + "))";
}

std::string KernelEmitter::declare_temp(const Expr& e, const std::string& name) {
  std::string T = ctype(e.type.dtype);
  if (e.type.shape.empty()) {
    w_.line(T + " " + name + " = " + T + "();");
  } else {
    int64_t off = alloc(count_of(e.type.shape) * elem_size(e.type.dtype));
    w_.line(T + "* const " + name + " = " + smem_ptr(e.type.dtype, off) + ";");
  }
  return name;
}

std::string KernelEmitter::materialize(const Expr& e) {
  if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
  std::string T = ctype(e.type.dtype);
  std::string name = fresh("t");
  const Shape& shape = e.type.shape;
  switch (e.kind) {
    case ExprKind::Reduce: {
      const Expr& x = *e.operands[0];
      std::string src = materialize_array(x);
      const Shape& xs = x.type.shape;
      declare_temp(e, name);
      bool sum = e.name == "sum";
      bool narrow = e.type.dtype == DType::F16 || e.type.dtype == DType::BF16;
      std::string acc_t = narrow ? "float" : T;
      auto value = [&](const std::string& v) { return narrow ? "kdt_cu::to_f32(" + v + ")" : v; };
      std::string op = sum ? "kdt_cu::AddOp{}" : e.name == "max" ? "kdt_cu::MaxOp{}" : "kdt_cu::MinOp{}";
      auto finish = [&](const std::string& acc) { return narrow ? "kdt_cu::convert<" + T + ">(" + acc + ")" : acc; };
      if (e.index < 0) {
        std::string acc = fresh("acc");
        if (xs.empty()) {
          w_.line(acc_t + " " + acc + " = " + value(src) + ";");
        } else {
          int64_t n = count_of(xs);
          w_.line(acc_t + " " + acc + "p = " + (sum ? acc_t + "()" : value(src + "[kdt_tid % " + std::to_string(n) + "]")) + ";");
          w_.line("for (int64_t j_ = kdt_tid; j_ < " + std::to_string(n) + "; j_ += kdt_nt) " + acc + "p = " + op + "(" +
                  acc + "p, " + value(src + "[j_]") + ");");
          w_.line("const " + acc_t + " " + acc + " = kdt_cu::block_reduce(" + acc + "p, kdt_red, " + op + ");");
        }
        if (shape.empty()) {
          w_.line(name + " = " + finish(acc) + ";");
        } else {
          LoopCtx ctx = new_ctx(shape);
          open_loop(ctx);
          w_.line(name + "[" + ctx.flat + "] = " + finish(acc) + ";");
          close_loop();
        }
      } else {
        size_t axis = static_cast<size_t>(e.index);
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < axis; ++d) outer *= xs[d];
        for (size_t d = axis + 1; d < xs.size(); ++d) inner *= xs[d];
        int64_t len = xs[axis];
        // One output element per thread, reduced in order.
        std::string o = fresh("o");
        std::string at = "(" + o + " / " + std::to_string(inner) + ") * " + std::to_string(len * inner) + " + " + o +
                         " % " + std::to_string(inner);
        if (shape.empty()) {
          // A rank-1 reduce along its only axis, without keepdims: like the full reduction.
          w_.line("// (axis reduction to a scalar)");
        }
        w_.line("__syncthreads();");
        w_.open(shape.empty() ? "{" : "for (int64_t " + o + " = kdt_tid; " + o + " < " + std::to_string(outer * inner) + "; " +
                                          o + " += kdt_nt) {");
        if (shape.empty()) w_.line("const int64_t " + o + " = 0;");
        w_.line(acc_t + " acc_ = " + (sum ? acc_t + "()" : value(src + "[" + at + "]")) + ";");
        w_.line("for (int64_t r_ = 0; r_ < " + std::to_string(len) + "; ++r_) acc_ = " + op + "(acc_, " +
                value(src + "[" + at + " + r_ * " + std::to_string(inner) + "]") + ");");
        w_.line((shape.empty() ? name : name + "[" + o + "]") + " = " + finish("acc_") + ";");
        w_.close();
        w_.line("__syncthreads();");
      }
      break;
    }
    case ExprKind::Dot: {
      const Expr& a = *e.operands[0];
      const Expr& b = *e.operands[1];
      std::string ap = materialize_array(a), bp = materialize_array(b);
      int64_t M = a.type.shape[0], K = a.type.shape[1], N = b.type.shape[1];
      DType in = a.type.dtype;
      // The node's dtype is the accumulator: f32, f64, i32 or i64 (ir/lower.cpp).
      std::string acc_t = ctype(e.type.dtype);
      auto widen = [&](const std::string& v) {
        if (in == e.type.dtype) return v;
        return "kdt_cu::convert<" + acc_t + ">(" + v + ")";
      };
      declare_temp(e, name);
      // Each thread computes whole output elements from shared memory.
      w_.line("__syncthreads();");
      w_.open("for (int64_t o_ = kdt_tid; o_ < " + std::to_string(M * N) + "; o_ += kdt_nt) {");
      w_.line("const int64_t r_ = o_ / " + std::to_string(N) + ", c_ = o_ % " + std::to_string(N) + ";");
      w_.line(acc_t + " acc_ = " + acc_t + "();");
      w_.line("for (int64_t k_ = 0; k_ < " + std::to_string(K) + "; ++k_) acc_ = kdt_cu::op_add(acc_, kdt_cu::op_mul(" +
              widen(ap + "[r_ * " + std::to_string(K) + " + k_]") + ", " + widen(bp + "[k_ * " + std::to_string(N) + " + c_]") +
              "));");
      w_.line(name + "[o_] = acc_;");
      w_.close();
      w_.line("__syncthreads();");
      break;
    }
    case ExprKind::Transpose: {
      std::string src = materialize_array(*e.operands[0]);
      int64_t R = e.operands[0]->type.shape[0], C = e.operands[0]->type.shape[1];
      declare_temp(e, name);
      LoopCtx ctx = new_ctx(shape);  // [C, R]
      open_loop(ctx);
      w_.line(name + "[" + ctx.flat + "] = " + src + "[" + ctx.index[1] + " * " + std::to_string(C) + " + " + ctx.index[0] + "];");
      close_loop();
      (void)R;
      break;
    }
    case ExprKind::Reshape: {
      std::string src = materialize_array(*e.operands[0]);
      if (shape.empty()) {
        w_.line(T + " " + name + " = " + (e.operands[0]->type.shape.empty() ? src : src + "[0]") + ";");
        materialized_[&e] = name;
        return name;
      }
      if (e.operands[0]->type.shape.empty()) {
        declare_temp(e, name);
        w_.line("__syncthreads();");
        w_.line("if (kdt_tid == 0) " + name + "[0] = " + src + ";");
        w_.line("__syncthreads();");
        break;
      }
      materialized_[&e] = src;
      return src;
    }
    case ExprKind::TileSlice: {
      const Expr& x = *e.operands[0];
      std::string src = materialize_array(x);
      std::vector<int64_t> st = strides_of(x.type.shape);
      LoopCtx ctx = new_ctx(shape);
      std::string offset;
      size_t vd = 0;
      for (size_t d = 0; d < e.tile_dims.size(); ++d) {
        const ir::ViewDim& dim = e.tile_dims[d];
        std::string coord = std::to_string(dim.static_start);
        if (!dim.dropped) coord += " + " + ctx.index[vd++];
        offset += (offset.empty() ? "" : " + ") + ("(" + coord + ") * " + std::to_string(st[d]));
      }
      if (offset.empty()) offset = "0";
      if (shape.empty()) {
        w_.line(T + " " + name + " = " + (x.type.shape.empty() ? src : src + "[" + offset + "]") + ";");
        break;
      }
      declare_temp(e, name);
      open_loop(ctx);
      w_.line(name + "[" + ctx.flat + "] = " + src + "[" + offset + "];");
      close_loop();
      break;
    }
    default: {
      declare_temp(e, name);
      if (shape.empty()) w_.line(name + " = " + scalar(e) + ";");
      else store_tile(name, shape, e);
      break;
    }
  }
  materialized_[&e] = name;
  return name;
}

std::string KernelEmitter::materialize_array(const Expr& e) {
  if (e.kind == ExprKind::Local) return local_name(e.local);
  if (e.kind == ExprKind::AsmOutput) return asm_outputs_.at(e.asm_id)[e.index];
  if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
  if (e.kind == ExprKind::Reduce || e.kind == ExprKind::Dot || e.kind == ExprKind::Transpose ||
      e.kind == ExprKind::Reshape || e.kind == ExprKind::TileSlice) {
    return materialize(e);
  }
  std::string name = fresh("t");
  if (e.type.shape.empty()) {
    std::string v = scalar(e);
    w_.line(ctype(e.type.dtype) + " " + name + " = " + v + ";");
  } else {
    declare_temp(e, name);
    store_tile(name, e.type.shape, e);
  }
  materialized_[&e] = name;
  return name;
}

bool KernelEmitter::reads_ref(const Expr& e, int ref) {
  if (e.kind == ExprKind::Load && e.view->ref == ref) return true;
  for (const ir::ExprPtr& o : e.operands) {
    if (reads_ref(*o, ref)) return true;
  }
  return (e.mask && reads_ref(*e.mask, ref)) || (e.other && reads_ref(*e.other, ref));
}

bool KernelEmitter::same_elements(const Expr& e, const ir::View& v) {
  if (e.kind == ExprKind::Load) return e.view->ref != v.ref || (!e.mask && same_view(*e.view, v));
  if (materialized_.count(&e)) return true;
  if (e.kind == ExprKind::Reduce || e.kind == ExprKind::Dot || e.kind == ExprKind::Transpose ||
      e.kind == ExprKind::Reshape || e.kind == ExprKind::TileSlice) {
    return false;
  }
  if (e.kind == ExprKind::Broadcast && e.type.shape != e.operands[0]->type.shape) return !reads_ref(e, v.ref);
  for (const ir::ExprPtr& o : e.operands) {
    if (!same_elements(*o, v)) return false;
  }
  return true;
}

bool KernelEmitter::same_view(const ir::View& a, const ir::View& b) {
  if (a.ref != b.ref) return false;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const ir::ViewDim& x = a.dims[d];
    const ir::ViewDim& y = b.dims[d];
    if (x.start || y.start || x.static_start != y.static_start || x.size != y.size || x.dropped != y.dropped) return false;
  }
  return true;
}

void KernelEmitter::store_view(const ir::Stmt& s) {
  const ir::View& v = *s.view;
  Shape vshape = v.shape();
  prepare(*s.value);
  if (s.mask) prepare(*s.mask);
  std::vector<std::string> starts = view_starts(v);
  // A value that reads the destination is computed in full first (its
  // elements may come from other threads' elements).
  std::string value_array;
  if (!vshape.empty() && reads_ref(*s.value, v.ref) && !same_elements(*s.value, v)) {
    value_array = materialize_array(*s.value);
  }
  LoopCtx ctx = new_ctx(vshape);
  open_loop(ctx);
  std::string target = ref_base(v.ref) + "[" + view_elem_offset(v, starts, ctx.index) + "]";
  std::string value = value_array.empty() ? elem(*s.value, ctx) : index_of(value_array, s.value->type.shape, ctx);
  DType t = k_.refs[v.ref].dtype;
  static const char* const ops[] = {"", "kdt_cu::op_add", "kdt_cu::op_sub", "kdt_cu::op_mul"};
  if (s.store_op != ir::StoreOp::Assign) {
    value = std::string(ops[static_cast<int>(s.store_op)]) + "<" + ctype(t) + ">(" + target + ", " + value + ")";
  }
  if (s.mask) w_.line("if (" + elem(*s.mask, ctx) + ") " + target + " = " + value + ";");
  else w_.line(target + " = " + value + ";");
  close_loop();
}

}  // namespace kdt::cuda
