// for_each_expr and for_each_stmt: every expression of a kernel, every
// statement of a block, for the queries of later stages.
#include "kdt/ir/ir.h"

namespace kdt::ir {

namespace {

class ExprWalker {
 public:
  explicit ExprWalker(const std::function<void(const Expr&)>& f) : f_(f) {}

  void block(const Block& b) {
    for (const StmtPtr& s : b) stmt(*s);
  }

 private:
  void expr(const ExprPtr& e) {
    if (!e) return;
    f_(*e);
    for (const ExprPtr& o : e->operands) expr(o);
    expr(e->mask);
    expr(e->other);
    if (e->view) view(*e->view);
    if (e->sem) {
      expr(e->sem->index);
      expr(e->sem->col);
    }
  }
  void view(const View& v) {
    for (const ViewDim& d : v.dims) expr(d.start);
  }
  void stmt(const Stmt& s) {
    expr(s.value);
    expr(s.mask);
    expr(s.lo);
    expr(s.hi);
    expr(s.device);
    expr(s.amount);
    expr(s.sem.index);
    expr(s.sem.col);
    if (s.src_sem) {
      expr(s.src_sem->index);
      expr(s.src_sem->col);
    }
    for (const std::optional<View>* v : {&s.view, &s.src, &s.dst}) {
      if (*v) view(**v);
    }
    for (const IfClause& c : s.clauses) {
      expr(c.cond);
      block(c.body);
    }
    block(s.body);
  }

  const std::function<void(const Expr&)>& f_;
};

}  // namespace

void for_each_expr(const Kernel& k, const std::function<void(const Expr&)>& f) {
  ExprWalker walker(f);
  walker.block(k.body);
  for (const AsmBlock& a : k.asms) {
    if (a.fallback) walker.block(*a.fallback);
  }
}

void for_each_stmt(const Block& b, const std::function<void(const Stmt&)>& f) {
  for (const StmtPtr& s : b) {
    f(*s);
    for_each_stmt(s->body, f);
    for (const IfClause& c : s->clauses) for_each_stmt(c.body, f);
  }
}

}  // namespace kdt::ir
