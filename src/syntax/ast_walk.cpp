#include "kdt/syntax/ast_walk.h"

namespace kdt::ast {

namespace {

using Visit = std::function<void(const Expr&)>;

void walk_block(const Block& b, const Visit& f);
void walk_tile_type(const TileTypeExpr* t, const Visit& f);

void walk_expr(const Expr* e, const Visit& f) {
  if (!e) return;
  f(*e);
  for (const auto& op : e->operands) walk_expr(op.get(), f);
  for (const auto& a : e->args) {
    walk_expr(a.value.get(), f);
    walk_tile_type(a.type.get(), f);
    for (const auto& s : a.shape) walk_expr(s.get(), f);
  }
  for (const auto& ix : e->indices) {
    walk_expr(ix.first.get(), f);
    walk_expr(ix.second.get(), f);
  }
  if (e->asm_block) {
    for (const auto& in : e->asm_block->inputs) walk_expr(in.value.get(), f);
    if (e->asm_block->fallback) walk_block(*e->asm_block->fallback, f);
  }
}

void walk_tile_type(const TileTypeExpr* t, const Visit& f) {
  if (!t) return;
  for (const auto& d : t->dims) walk_expr(d.get(), f);
}

void walk_stmt(const Stmt& s, const Visit& f) {
  walk_tile_type(s.tile_type.get(), f);
  walk_expr(s.sem_count.get(), f);
  walk_expr(s.sem_cols.get(), f);
  walk_expr(s.value.get(), f);
  walk_expr(s.target.get(), f);
  walk_expr(s.lo.get(), f);
  walk_expr(s.hi.get(), f);
  walk_expr(s.step.get(), f);
  walk_block(s.body, f);
  for (const auto& v : s.values) walk_expr(v.get(), f);
  for (const auto& c : s.clauses) {
    walk_expr(c.cond.get(), f);
    walk_block(c.body, f);
  }
}

void walk_block(const Block& b, const Visit& f) {
  for (const auto& s : b.stmts) {
    if (s) walk_stmt(*s, f);
  }
}

uint32_t length(const SourceRange& r) { return r.end - r.begin; }

}  // namespace

void for_each_expr(const File& file, const std::function<void(const Expr&)>& f) {
  for (const auto& c : file.consts) walk_expr(c.value.get(), f);
  for (const auto& k : file.kernels) {
    for (const auto& p : k.params) walk_tile_type(p.tile_type.get(), f);
    for (const auto& a : k.attrs) {
      for (const auto& arg : a.args) walk_expr(arg.get(), f);
    }
    walk_block(k.body, f);
  }
  for (const auto& fn : file.functions) {
    for (const auto& p : fn.params) {
      walk_tile_type(p.type.get(), f);
      walk_expr(p.sem_count.get(), f);
    }
    for (const auto& r : fn.results) walk_tile_type(r.get(), f);
    walk_block(fn.body, f);
  }
}

void for_each_expr(const Block& block, const std::function<void(const Expr&)>& f) { walk_block(block, f); }
void for_each_expr(const Expr& expr, const std::function<void(const Expr&)>& f) { walk_expr(&expr, f); }

bool contains(const SourceRange& r, FileId file, uint32_t offset) {
  return r.file == file && r.begin <= offset && offset < r.end;
}

bool touches(const SourceRange& r, FileId file, uint32_t offset) {
  return r.file == file && r.begin <= offset && offset <= r.end;
}

ExprsAt exprs_at(const File& file, uint32_t offset) {
  ExprsAt at;
  const FileId id = file.file;
  for_each_expr(file, [&](const Expr& e) {
    if (e.kind == Expr::Kind::Name && touches(e.range, id, offset)) {
      bool inside = contains(e.range, id, offset);
      bool best_inside = at.name && contains(at.name->range, id, offset);
      if (!at.name || (inside && !best_inside) || (inside == best_inside && length(e.range) < length(at.name->range))) {
        at.name = &e;
      }
    }
    if (contains(e.range, id, offset) && !e.type.is_error() &&
        (!at.innermost || length(e.range) <= length(at.innermost->range))) {
      at.innermost = &e;
    }
  });
  return at;
}

}  // namespace kdt::ast
