// Tile values in registers (issue 19, item 10). A block-stride loop gives
// element e of a tile of N elements to thread e % T, its (e / T)-th; a
// tile value read only that way — by element loops of its own shape, so
// every thread reads exactly the elements it wrote — needs no shared
// memory: each thread keeps its ceil(N / T) elements in a register array,
// and the loops that touch it run as unrolled loops over those slots
// (docs/cuda.md). A loop that writes only registers and reads only
// registers, scalars and `in` parameters needs no barrier either.
#include <functional>
#include <vector>
#include <stdexcept>

#include "cuda_kernel_emitter.h"
#include "lazy_operands.h"

namespace kdt::cuda {

namespace {

// A tile value's slots per thread at most, and the register bytes per
// thread all such values of a kernel may take: past them the compiler
// would spill to local memory, which is slower than shared memory.
constexpr int64_t kMaxSlotBytes = 64;
constexpr int64_t kMaxRegisterBytes = 256;

}  // namespace

int64_t KernelEmitter::register_slots(const Shape& shape) const {
  return (count_of(shape) + threads_ - 1) / threads_;
}

// Which tile locals live in registers: every read of the local is an
// element of a loop of its own shape (so the element is the reading
// thread's own), and it fits the budget. What disqualifies a read:
// another loop shape (a broadcast), being the direct operand of a
// reduction, `dot`, transpose, reshape or slice (which read the array by
// address), a `let` that names shared memory in place.
void KernelEmitter::plan_register_tiles() {
  std::set<int> rejected;
  const Shape scalar_loop;
  std::function<void(const Expr&, const Shape&)> visit = [&](const Expr& e, const Shape& loop) {
    if (e.kind == ExprKind::Local && !e.type.shape.empty() && e.type.shape != loop) rejected.insert(e.local);
    if (is_materialized_kind(e.kind)) {
      for (const ir::ExprPtr& o : e.operands) {
        if (o->kind == ExprKind::Local) rejected.insert(o->local);
        visit(*o, o->type.shape);
      }
      return;
    }
    // A lazy operand is computed into a temporary of the expression's shape.
    const Shape& inner = emit::needs_lazy_operand(e, target_.loads_ahead) ? e.type.shape : loop;
    for (const ir::ExprPtr& o : e.operands) visit(*o, inner);
    if (e.mask) visit(*e.mask, loop);
    if (e.other) visit(*e.other, loop);
    if (e.view) {
      for (const ir::ViewDim& d : e.view->dims) {
        if (d.start) visit(*d.start, scalar_loop);
      }
    }
    if (e.sem) {
      if (e.sem->index) visit(*e.sem->index, scalar_loop);
      if (e.sem->col) visit(*e.sem->col, scalar_loop);
    }
  };
  auto visit_scalar = [&](const ir::ExprPtr& e) {
    if (e) visit(*e, scalar_loop);
  };
  auto visit_view = [&](const std::optional<ir::View>& v) {
    if (!v) return;
    for (const ir::ViewDim& d : v->dims) visit_scalar(d.start);
  };
  ir::for_each_stmt(k_.body, [&](const ir::Stmt& s) {
    switch (s.kind) {
      case ir::StmtKind::Let:
      case ir::StmtKind::Assign:
        if (lets_in_place_.count(&s)) rejected.insert(s.local);
        visit(*s.value, k_.locals[s.local].type.shape);
        return;
      case ir::StmtKind::Store:
        visit(*s.value, s.view->shape());
        if (s.mask) visit(*s.mask, s.view->shape());
        visit_view(s.view);
        return;
      case ir::StmtKind::AsmStmt: {
        const ir::AsmBlock& a = k_.asms[s.asm_id];
        for (const ir::ExprPtr& v : a.input_values) visit(*v, a.shape);
        return;
      }
      default: break;
    }
    // Everything else is scalar: bounds, conditions, amounts, indices, starts.
    for (const ir::ExprPtr* e : {&s.value, &s.mask, &s.lo, &s.hi, &s.device, &s.amount, &s.sem.index, &s.sem.col}) {
      visit_scalar(*e);
    }
    if (s.src_sem) {
      visit_scalar(s.src_sem->index);
      visit_scalar(s.src_sem->col);
    }
    visit_view(s.view);
    visit_view(s.src);
    visit_view(s.dst);
    for (const ir::IfClause& c : s.clauses) visit_scalar(c.cond);
  });
  int64_t budget = kMaxRegisterBytes;
  for (size_t l = 0; l < k_.locals.size(); ++l) {
    const Type& t = k_.locals[l].type;
    if (t.shape.empty() || rejected.count(static_cast<int>(l))) continue;
    const int64_t bytes = register_slots(t.shape) * elem_size(t.dtype);
    if (bytes > kMaxSlotBytes || bytes > budget) continue;
    budget -= bytes;
    register_tiles_.insert(static_cast<int>(l));
    register_names_.insert(local_name(static_cast<int>(l)));
  }
}

// Whether element (ctx) of `e` reads a tile value held in registers.
bool KernelEmitter::reads_registers(const Expr& e) const {
  if (materialized_.count(&e)) return false;
  if (e.kind == ExprKind::Local) return register_tiles_.count(e.local) != 0;
  for (const ir::ExprPtr& o : e.operands) {
    if (reads_registers(*o)) return true;
  }
  return (e.mask && reads_registers(*e.mask)) || (e.other && reads_registers(*e.other));
}

// Whether element (ctx) of `e` reads memory another thread may have
// written: shared memory (tile values outside registers, temporaries,
// scratch), @global refs other than `in` parameters, semaphores.
bool KernelEmitter::reads_shared_state(const Expr& e) const {
  if (materialized_.count(&e)) return !e.type.shape.empty();
  switch (e.kind) {
    case ExprKind::Local: return !e.type.shape.empty() && !register_tiles_.count(e.local);
    case ExprKind::Load: {
      const ir::Ref& r = k_.refs[e.view->ref];
      if (r.space != MemSpace::Global || r.writable || !r.is_param) return true;
      break;
    }
    case ExprKind::SemRead: return true;
    case ExprKind::AsmOutput: return !e.type.shape.empty();
    default:
      if (is_materialized_kind(e.kind)) return true;
  }
  for (const ir::ExprPtr& o : e.operands) {
    if (reads_shared_state(*o)) return true;
  }
  return (e.mask && reads_shared_state(*e.mask)) || (e.other && reads_shared_state(*e.other));
}

std::string KernelEmitter::local_elem(const Expr& e, const LoopCtx& ctx) {
  if (!register_tiles_.count(e.local)) return CLikeEmitter::local_elem(e, ctx);
  // plan_register_tiles admits only reads this can serve.
  if (ctx.slot.empty() || e.type.shape != ctx.shape) {
    throw std::logic_error("CUDA emitter: tile value `" + local_name(e.local) + "` is in registers but read outside its own loop");
  }
  return local_name(e.local) + "[" + ctx.slot + "]";
}

// An element loop over `shape` for a statement that writes `into` (a name,
// or empty for memory) and reads `values`: over register slots where any
// of them is a tile value in registers, without barriers where it touches
// no memory another thread shares.
LoopCtx KernelEmitter::element_loop(const Shape& shape, const std::string& into, const std::vector<const Expr*>& values) {
  LoopCtx ctx = new_ctx(shape);
  const bool into_registers = register_names_.count(into) != 0;
  bool registers = into_registers, shared = !into_registers;
  for (const Expr* v : values) {
    if (!v) continue;
    registers |= reads_registers(*v);
    shared |= reads_shared_state(*v);
  }
  if (registers) {
    ctx.slot = fresh("k");
    ctx.fenced = shared;
  }
  return ctx;
}

}  // namespace kdt::cuda
