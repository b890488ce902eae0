#include "kdt/syntax/ast.h"

namespace kdt::ast {

const char* unary_op_spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Not: return "!";
    case UnaryOp::BitNot: return "~";
  }
  return "?";
}

const char* binary_op_spelling(BinaryOp op) {
  static const char* const spellings[] = {"*", "/", "%",  "+",  "-",  "<<", ">>", "&",  "^",
                                          "|", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  return spellings[static_cast<int>(op)];
}

std::string AsmBlock::joined_template() const {
  std::string joined;
  for (size_t i = 0; i < strings.size(); ++i) {
    if (i) joined += '\n';
    joined += strings[i].text;
  }
  return joined;
}

namespace {

std::unique_ptr<TileTypeExpr> clone(const TileTypeExpr* t) {
  if (!t) return nullptr;
  auto out = std::make_unique<TileTypeExpr>();
  out->dtype = t->dtype;
  out->type_name = t->type_name;
  for (const ExprPtr& d : t->dims) out->dims.push_back(clone(*d));
  out->range = t->range;
  return out;
}

ExprPtr clone_or_null(const ExprPtr& e) { return e ? clone(*e) : nullptr; }

StmtPtr clone(const Stmt& s) {
  auto out = std::make_unique<Stmt>();
  out->kind = s.kind;
  out->range = s.range;
  out->name = s.name;
  out->names = s.names;
  out->tile_type = clone(s.tile_type.get());
  out->mem_space = s.mem_space;
  out->sem_count = clone_or_null(s.sem_count);
  out->sem_cols = clone_or_null(s.sem_cols);
  out->sem_kind = s.sem_kind;
  out->value = clone_or_null(s.value);
  out->target = clone_or_null(s.target);
  out->assign_op = s.assign_op;
  out->op_range = s.op_range;
  out->lo = clone_or_null(s.lo);
  out->hi = clone_or_null(s.hi);
  out->step = clone_or_null(s.step);
  out->step_word = s.step_word;
  out->body = clone(s.body);
  for (const IfClause& c : s.clauses) out->clauses.push_back({clone_or_null(c.cond), clone(c.body), c.range});
  out->message = s.message;
  for (const ExprPtr& v : s.values) out->values.push_back(clone(*v));
  out->tuple = s.tuple;
  return out;
}

}  // namespace

Block clone(const Block& b) {
  Block out;
  out.range = b.range;
  for (const StmtPtr& s : b.stmts) out.stmts.push_back(clone(*s));
  return out;
}

ExprPtr clone(const Expr& e) {
  auto out = std::make_unique<Expr>();
  out->kind = e.kind;
  out->range = e.range;
  out->parenthesized = e.parenthesized;
  if (e.kind == Expr::Kind::FloatLiteral) out->float_value = e.float_value;
  else out->int_value = e.int_value;
  out->too_large = e.too_large;
  out->bool_value = e.bool_value;
  out->spelling = e.spelling;
  out->unary_op = e.unary_op;
  out->binary_op = e.binary_op;
  out->op_range = e.op_range;
  for (const ExprPtr& o : e.operands) out->operands.push_back(clone(*o));
  for (const Arg& a : e.args) {
    Arg c;
    c.kind = a.kind;
    c.keyword = a.keyword;
    c.value = clone_or_null(a.value);
    c.type = clone(a.type.get());
    for (const ExprPtr& d : a.shape) c.shape.push_back(clone(*d));
    c.range = a.range;
    out->args.push_back(std::move(c));
  }
  for (const IndexEntry& i : e.indices) {
    IndexEntry c;
    c.kind = i.kind;
    c.first = clone_or_null(i.first);
    c.second = clone_or_null(i.second);
    c.range = i.range;
    out->indices.push_back(std::move(c));
  }
  if (e.asm_block) {
    const AsmBlock& a = *e.asm_block;
    auto b = std::make_unique<AsmBlock>();
    b->lang = a.lang;
    b->is_volatile = a.is_volatile;
    for (const std::vector<AsmOperand>* list : {&a.inputs, &a.outputs}) {
      for (const AsmOperand& op : *list) {
        AsmOperand c{op.name, op.dtype, clone_or_null(op.value), op.range};
        (list == &a.inputs ? b->inputs : b->outputs).push_back(std::move(c));
      }
    }
    b->clobbers = a.clobbers;
    b->strings = a.strings;
    if (a.fallback) b->fallback = clone(*a.fallback);
    b->body_range = a.body_range;
    b->range = a.range;
    out->asm_block = std::move(b);
  }
  return out;
}

}  // namespace kdt::ast
