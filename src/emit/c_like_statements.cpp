// The statement walk both C-like targets share; each kind a target writes
// its own way is a hook (c_like_emitter.h).
#include "c_like_emitter.h"

namespace kdt::emit {

LoopCtx CLikeEmitter::new_ctx(const Shape& shape) {
  LoopCtx ctx;
  ctx.shape = shape;
  std::string id = std::to_string(next_temp_++);
  for (size_t d = 0; d < shape.size(); ++d) ctx.index.push_back("i" + id + "_" + std::to_string(d) + target_.temp_suffix);
  ctx.flat = shape.empty() ? "0" : target_.flat_prefix + id + target_.temp_suffix;
  return ctx;
}

void CLikeEmitter::block(const ir::Block& b) {
  for (const ir::StmtPtr& s : b) stmt(*s);
}

// A block whose following lines belong to the statement around it: a
// loop's closing brace (its next iteration: a debugger steps back to the
// loop's line, as in C), the rest of an asm statement after its fallback.
// An `if`'s closing brace (destructors only) stays with the block's last
// statement, so that stepping over it does not stop on the `if` again.
void CLikeEmitter::nested_block(const ir::Block& b) {
  const SourceMapping around = w_.mapping();
  block(b);
  w_.restore(around);
}

void CLikeEmitter::stmt(const ir::Stmt& s) {
  if (!s.inlined.empty()) w_.line("// " + s.inlined + " (KD function), expanded here");
  w_.source_line(s.range);
  const int enclosing_call = call_;
  call_ = s.call;
  switch (s.kind) {
    case ir::StmtKind::Let: let(s); break;
    case ir::StmtKind::Assign: {
      const ir::Local& l = k_.locals[s.local];
      const std::string& name = local_name(s.local);
      if (l.type.shape.empty()) {
        w_.line(name + " = " + scalar(*s.value) + ";");
        break;
      }
      // `acc = acc + dot(a, b)` (what `acc += dot(a, b)` is), neither operand reading acc.
      const Expr& v = *s.value;
      const bool adds_dot = v.kind == ExprKind::Binary && v.binary == ir::BinaryOp::Add &&
                            v.operands[0]->kind == ExprKind::Local && v.operands[0]->local == s.local &&
                            v.operands[1]->kind == ExprKind::Dot && v.operands[1]->type.dtype == l.type.dtype &&
                            v.operands[1]->type.shape == l.type.shape &&
                            !reads_local(*v.operands[1], s.local);
      if (!adds_dot || !accumulate_dot(name, *v.operands[1])) store_tile(name, l.type.shape, v);
      break;
    }
    case ir::StmtKind::Store: store_view(s); break;
    case ir::StmtKind::For: {
      std::string lo = scalar(*s.lo), hi = scalar(*s.hi);
      std::string v = local_name(s.local);
      // A 64-bit counter: `i += step` never overflows near INT32_MAX.
      w_.open("for (int64_t " + v + "_it = " + lo + "; " + v + "_it < " + hi + "; " + v + "_it += " + std::to_string(s.step) +
              ") {");
      loop_variable(v);
      nested_block(s.body);
      w_.close();
      break;
    }
    case ir::StmtKind::While:
      // The condition may need statements of its own (checked loads,
      // reductions, semaphore reads): they run before every test.
      ++in_while_;
      w_.open("while (true) {");
      w_.line("if (!(" + scalar(*s.value) + ")) break;");
      nested_block(s.body);
      w_.close();
      --in_while_;
      break;
    case ir::StmtKind::If: if_chain(s.clauses, 0); break;
    case ir::StmtKind::Assert: assert_stmt(s); break;
    case ir::StmtKind::Eval: eval(s); break;
    case ir::StmtKind::AsmStmt: asm_stmt(s); break;
    case ir::StmtKind::DmaStart: dma_start(s); break;
    case ir::StmtKind::DmaWait: dma_wait(s); break;
    case ir::StmtKind::DmaIssue: dma_issue(s); break;
    case ir::StmtKind::DmaRetire: dma_retire(s); break;
    case ir::StmtKind::SemSignal: sem_signal(s); break;
    case ir::StmtKind::SemWait: sem_wait(s); break;
    case ir::StmtKind::ScopeEnter: scope_enter(s); break;
    case ir::StmtKind::ScopeExit: scope_exit(s); break;
    case ir::StmtKind::BlockBegin: block_begin(s); break;
    case ir::StmtKind::BlockEnd: block_end(s); break;
  }
  call_ = enclosing_call;
}

// `else if` conditions may need statements of their own (hoisted
// reductions, checked indices), so each lives inside the previous `else`.
void CLikeEmitter::if_chain(const std::vector<ir::IfClause>& clauses, size_t i) {
  w_.open("if (" + scalar(*clauses[i].cond) + ") {");
  block(clauses[i].body);
  if (i + 1 < clauses.size()) {
    w_.reopen("} else {");
    if (clauses[i + 1].cond) if_chain(clauses, i + 1);
    else block(clauses[i + 1].body);
  }
  w_.close();
}

}  // namespace kdt::emit
