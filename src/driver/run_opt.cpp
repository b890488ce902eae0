#include "driver/run_opt.h"

#include <algorithm>
#include <limits>

namespace kdt {

namespace {

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max() / 4;
constexpr int64_t kUnknownTrips = 64;

int64_t times(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSaturated / b ? kSaturated : a * b;
}
int64_t plus(int64_t a, int64_t b) { return std::min(kSaturated, a + b); }

int64_t elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n = times(n, d);
  return n;
}

int64_t expr_ops(const ir::ExprPtr& e) {
  if (!e) return 0;
  int64_t ops = elements(e->type.shape);
  if (e->kind == ir::ExprKind::Dot && e->operands.size() == 2 && e->operands[0]->type.shape.size() == 2) {
    ops = times(ops, e->operands[0]->type.shape[1]);  // M x N results, K products each
  }
  for (const ir::ExprPtr& o : e->operands) ops = plus(ops, expr_ops(o));
  return plus(ops, plus(expr_ops(e->mask), expr_ops(e->other)));
}

int64_t block_ops(const ir::Block& b, const ir::Kernel& k);

int64_t stmt_ops(const ir::Stmt& s, const ir::Kernel& k) {
  int64_t ops = plus(expr_ops(s.value), expr_ops(s.mask));
  if (s.view) ops = plus(ops, elements(s.view->shape()));
  if (s.kind == ir::StmtKind::DmaIssue && s.dma_id >= 0) {
    ops = plus(ops, elements(k.dmas[static_cast<size_t>(s.dma_id)].dst.shape()));
  }
  if (s.kind == ir::StmtKind::For) {
    int64_t trips = kUnknownTrips;
    if (s.lo && s.hi && s.lo->kind == ir::ExprKind::Const && s.hi->kind == ir::ExprKind::Const && s.step > 0) {
      const int64_t lo = s.lo->int_value, hi = s.hi->int_value;
      // In unsigned arithmetic: hi - lo may not fit in int64_t, but fits in uint64_t.
      const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
      const uint64_t count = hi <= lo ? 0 : (span - 1) / static_cast<uint64_t>(s.step) + 1;
      trips = static_cast<int64_t>(std::min<uint64_t>(count, kSaturated));
    }
    ops = plus(ops, times(trips, block_ops(s.body, k)));
  } else if (s.kind == ir::StmtKind::While) {
    ops = plus(ops, times(kUnknownTrips, block_ops(s.body, k)));
  }
  int64_t costliest = 0;
  for (const ir::IfClause& c : s.clauses) costliest = std::max(costliest, plus(expr_ops(c.cond), block_ops(c.body, k)));
  return plus(ops, costliest);
}

int64_t block_ops(const ir::Block& b, const ir::Kernel& k) {
  int64_t ops = 0;
  for (const ir::StmtPtr& s : b) ops = plus(ops, plus(1, stmt_ops(*s, k)));
  return ops;
}

}  // namespace

int64_t estimate_element_ops(const ir::Kernel& k) {
  int64_t programs = k.devices;
  for (int64_t g : k.grid) programs = times(programs, g);
  for (int64_t s : k.steps) programs = times(programs, s);
  return times(programs, block_ops(k.body, k));
}

std::string kernel_opt_level(const ir::Kernel& k) {
  const int64_t ops = estimate_element_ops(k);
  return ops > kOptimiseAboveOps ? "-O2" : ops > kDebugOptUpToOps ? "-O1" : "-Og";
}

}  // namespace kdt
