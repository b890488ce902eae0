// The block-spec pipeline (spec section 13), written as the IR of the
// double buffering a kernel author writes by hand (samples/matmul.kd):
//
//   for k in 0..K {                          // the sequence's steps
//     if k == 0 { a_at = index(k); dma_start(a[a_at] -> a_blocks[a_slot]) }
//     wait for this step's copy in; start the next step's when its
//       index differs (into the other buffer); note whether an output's
//       index changes after this step
//     body                                   // `a` is a_blocks[a_slot]
//     write an output back when its index changes or the steps end, and
//       wait for the write-back before its buffer is used again
//   }
//
// Each buffer has its own semaphore, so every --dma-order retires the
// right DMA. With no sequential axis there is one step and no loop.
#include "block_specs.h"

namespace kdt::ir {

namespace {

class PipelineBuilder {
 public:
  PipelineBuilder(Kernel& k, const Sequence& seq, const NewLocal& new_local)
      : k_(k), seq_(seq), new_local_(new_local), looped_(!seq.axes.empty()), steps_(seq.steps()) {}

  Block build(std::vector<BlockSpecPlan>& specs, Block body);

 private:
  // Per spec, the locals of its state (section 13's rules, in variables).
  struct State {
    BlockSpecPlan* spec = nullptr;
    std::vector<int> at, next;  // the block index of this step, and of the next
    int incoming = -1;          // in: a copy into this step's buffer is in flight
    int prefetched = -1;        // in: the next step's copy has started
    int changes = -1;           // out: the next step has another block index
    int writing = -1;           // out: a write-back from the other buffer is in flight
    int fresh = -1;             // out: this step starts a new block
  };

  SourceRange range() const { return seq_.range; }

  ExprPtr expr(ExprKind kind, DType dtype, SourceRange r) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->type = Type::value(dtype);
    e->type.weak = false;
    e->range = r;
    return e;
  }
  ExprPtr constant(DType dtype, int64_t v, SourceRange r) {
    auto e = expr(ExprKind::Const, dtype, r);
    e->int_value = v;
    e->float_value = static_cast<double>(v);
    return e;
  }
  ExprPtr i32(int64_t v, SourceRange r) { return constant(DType::I32, v, r); }
  ExprPtr boolean(bool v, SourceRange r) { return constant(DType::Bool, v ? 1 : 0, r); }
  ExprPtr local(int l, SourceRange r) {
    auto e = expr(ExprKind::Local, k_.locals[l].type.dtype, r);
    e->local = l;
    return e;
  }
  ExprPtr binary(BinaryOp op, ExprPtr a, ExprPtr b, SourceRange r) {
    bool logical = op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt || op == BinaryOp::Ge ||
                   op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::And || op == BinaryOp::Or;
    auto e = expr(ExprKind::Binary, logical ? DType::Bool : DType::I32, r);
    e->binary = op;
    e->operands.push_back(std::move(a));
    e->operands.push_back(std::move(b));
    return e;
  }
  // 1 - slot: the other buffer.
  ExprPtr other(int slot, SourceRange r) { return binary(BinaryOp::Sub, i32(1, r), local(slot, r), r); }
  ExprPtr slot_of(const State& st, SourceRange r) { return st.spec->slot >= 0 ? local(st.spec->slot, r) : i32(0, r); }

  StmtPtr stmt(StmtKind kind, SourceRange r) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->range = r;
    return s;
  }
  StmtPtr let(int l, ExprPtr v, SourceRange r) {
    auto s = stmt(StmtKind::Let, r);
    s->local = l;
    s->value = std::move(v);
    return s;
  }
  StmtPtr assign(int l, ExprPtr v, SourceRange r) {
    auto s = stmt(StmtKind::Assign, r);
    s->local = l;
    s->value = std::move(v);
    return s;
  }
  StmtPtr when(ExprPtr cond, Block body, SourceRange r) {
    auto s = stmt(StmtKind::If, r);
    IfClause c;
    c.cond = std::move(cond);
    c.body = std::move(body);
    s->clauses.push_back(std::move(c));
    return s;
  }
  int var(const std::string& name, DType dtype, ExprPtr init, Block& out, SourceRange r) {
    int l = new_local_(name, dtype, true);
    out.push_back(let(l, std::move(init), r));
    return l;
  }

  // The block `at` (locals of block indices) of the whole array.
  View array_view(const BlockSpecPlan& p, const std::vector<int>& at) {
    View v;
    v.ref = p.array;
    for (size_t d = 0; d < p.block.size(); ++d) {
      ViewDim dim;
      dim.size = p.block[d];
      dim.start = binary(BinaryOp::Mul, local(at[d], p.range), i32(p.block[d], p.range), p.range);
      v.dims.push_back(std::move(dim));
    }
    return v;
  }
  // Buffer `slot` of the double buffer.
  View buffer_view(const BlockSpecPlan& p, ExprPtr slot) {
    View v;
    v.ref = p.buffers;
    ViewDim lead;
    lead.dropped = true;
    if (slot->kind == ExprKind::Const) lead.static_start = slot->int_value;
    else lead.start = std::move(slot);
    v.dims.push_back(std::move(lead));
    for (int64_t b : p.block) {
      ViewDim dim;
      dim.size = b;
      v.dims.push_back(std::move(dim));
    }
    return v;
  }
  SemRef sem(const BlockSpecPlan& p, ExprPtr slot) {
    SemRef r;
    r.sem = p.sems;
    r.index = std::move(slot);
    return r;
  }
  int64_t bytes(const BlockSpecPlan& p) {
    int64_t n = dtype_bytes(k_.refs[p.array].dtype);
    for (int64_t b : p.block) n *= b;
    return n;
  }
  StmtPtr dma(View src, View dst, SemRef s, int64_t n, SourceRange r) {
    auto out = stmt(StmtKind::DmaStart, r);
    out->src = std::move(src);
    out->dst = std::move(dst);
    out->sem = std::move(s);
    out->bytes = n;
    out->pipeline = true;
    return out;
  }
  StmtPtr wait(const BlockSpecPlan& p, const std::function<ExprPtr()>& slot) {
    auto out = stmt(StmtKind::DmaWait, p.range);
    out->sem = sem(p, slot());
    out->view = buffer_view(p, slot());
    out->bytes = bytes(p);
    return out;
  }
  StmtPtr copy_in(const State& st, const std::vector<int>& at, const std::function<ExprPtr()>& slot) {
    const BlockSpecPlan& p = *st.spec;
    return dma(array_view(p, at), buffer_view(p, slot()), sem(p, slot()), bytes(p), p.range);
  }
  StmtPtr write_back(const State& st) {
    const BlockSpecPlan& p = *st.spec;
    auto here = [&] { return slot_of(st, p.range); };
    return dma(buffer_view(p, here()), array_view(p, st.at), sem(p, here()), bytes(p), p.range);
  }
  // `a != b` over block indices: any dimension differs.
  ExprPtr differs(const std::vector<int>& a, const std::vector<int>& b, SourceRange r) {
    ExprPtr out;
    for (size_t d = 0; d < a.size(); ++d) {
      ExprPtr ne = binary(BinaryOp::Ne, local(a[d], r), local(b[d], r), r);
      out = out ? binary(BinaryOp::Or, std::move(out), std::move(ne), r) : std::move(ne);
    }
    return out;
  }
  void copy_index(const std::vector<int>& to, const std::vector<int>& from, Block& out, SourceRange r) {
    for (size_t d = 0; d < to.size(); ++d) out.push_back(assign(to[d], local(from[d], r), r));
  }

  void step_begin(State& st, Block& out);
  void prefetch(State& st, Block& out);
  void step_end(State& st, Block& out);
  Block axis_lets(bool next);

  Kernel& k_;
  const Sequence& seq_;
  const NewLocal& new_local_;
  const bool looped_;
  const int64_t steps_;
};

// The sequential axes' values in this step (or the next) from the loop's
// counter: row-major over the axes, the last fastest.
Block PipelineBuilder::axis_lets(bool next) {
  Block out;
  const SourceRange r = range();
  if (seq_.axes.size() == 1) {
    if (next) out.push_back(let(seq_.axes[0].next_local, binary(BinaryOp::Add, local(seq_.axes[0].local, r), i32(1, r), r), r));
    return out;
  }
  int64_t stride = 1;
  std::vector<int64_t> strides(seq_.axes.size());
  for (size_t a = seq_.axes.size(); a-- > 0;) {
    strides[a] = stride;
    stride *= seq_.axes[a].extent;
  }
  for (size_t a = 0; a < seq_.axes.size(); ++a) {
    ExprPtr flat = local(seq_.step, r);
    if (next) flat = binary(BinaryOp::Add, std::move(flat), i32(1, r), r);
    if (strides[a] > 1) flat = binary(BinaryOp::Div, std::move(flat), i32(strides[a], r), r);
    if (a > 0) flat = binary(BinaryOp::Rem, std::move(flat), i32(seq_.axes[a].extent, r), r);
    out.push_back(let(next ? seq_.axes[a].next_local : seq_.axes[a].local, std::move(flat), r));
  }
  return out;
}

// Before the body: this step's block in its buffer.
void PipelineBuilder::step_begin(State& st, Block& out) {
  BlockSpecPlan& p = *st.spec;
  const SourceRange r = p.range;
  auto here = [&] { return slot_of(st, r); };
  if (!looped_) {
    if (p.copy_in) out.push_back(wait(p, here));  // started with the others (build)
    return;
  }
  if (st.incoming >= 0) {  // `in`: the copy started before this step
    Block arrived;
    arrived.push_back(wait(p, here));
    arrived.push_back(assign(st.incoming, boolean(false, r), r));
    out.push_back(when(local(st.incoming, r), std::move(arrived), r));
    return;
  }
  // An output: a new block (its index changed, or the first step).
  Block fresh;
  if (p.copy_in) {
    // The copy in waits for a write-back of the same block still in flight.
    Block retire;
    retire.push_back(wait(p, [&] { return other(p.slot, r); }));
    retire.push_back(assign(st.writing, boolean(false, r), r));
    fresh.push_back(when(local(st.writing, r), std::move(retire), r));
    fresh.push_back(copy_in(st, st.at, here));
    fresh.push_back(wait(p, here));
  } else {
    auto begin = stmt(StmtKind::BlockBegin, r);
    begin->view = buffer_view(p, here());
    fresh.push_back(std::move(begin));
  }
  fresh.push_back(assign(st.fresh, boolean(false, r), r));
  out.push_back(when(local(st.fresh, r), std::move(fresh), r));
}

// Inside `if step + 1 < steps`: the next step's block index; an input's
// copy starts now when it differs.
void PipelineBuilder::prefetch(State& st, Block& out) {
  BlockSpecPlan& p = *st.spec;
  const SourceRange r = p.range;
  for (size_t d = 0; d < st.next.size(); ++d) out.push_back(assign(st.next[d], std::move(p.next_index[d]), r));
  if (st.changes >= 0) {
    out.push_back(assign(st.changes, differs(st.next, st.at, r), r));
    return;
  }
  Block start;
  start.push_back(copy_in(st, st.next, [&] { return other(p.slot, r); }));
  start.push_back(assign(st.prefetched, boolean(true, r), r));
  out.push_back(when(differs(st.next, st.at, r), std::move(start), r));
}

// After the body: no DMA of the body left on the block; the buffers turn.
void PipelineBuilder::step_end(State& st, Block& out) {
  BlockSpecPlan& p = *st.spec;
  const SourceRange r = p.range;
  auto end = stmt(StmtKind::BlockEnd, r);
  end->scope_refs = {p.buffers};
  end->scope_sems = {p.sems};
  end->message = p.name;
  out.push_back(std::move(end));
  auto here = [&] { return slot_of(st, r); };
  if (!looped_) {
    if (p.write_back) {
      out.push_back(write_back(st));
      out.push_back(wait(p, here));
    }
    return;
  }
  if (st.prefetched >= 0) {
    Block turn;
    turn.push_back(assign(p.slot, other(p.slot, r), r));
    copy_index(st.at, st.next, turn, r);
    turn.push_back(assign(st.incoming, boolean(true, r), r));
    turn.push_back(assign(st.prefetched, boolean(false, r), r));
    out.push_back(when(local(st.prefetched, r), std::move(turn), r));
    return;
  }
  // Write back when the next step has another block, or after the last
  // step; the other buffer's older write-back retires before that buffer
  // takes the next block.
  Block flush;
  flush.push_back(write_back(st));
  Block retire;
  retire.push_back(wait(p, [&] { return other(p.slot, r); }));
  flush.push_back(when(local(st.writing, r), std::move(retire), r));
  flush.push_back(assign(st.writing, boolean(true, r), r));
  flush.push_back(assign(p.slot, other(p.slot, r), r));
  copy_index(st.at, st.next, flush, r);
  flush.push_back(assign(st.fresh, boolean(true, r), r));
  ExprPtr last = binary(BinaryOp::Eq, local(seq_.axes.size() == 1 ? seq_.axes[0].local : seq_.step, r),
                        i32(steps_ - 1, r), r);
  out.push_back(when(binary(BinaryOp::Or, std::move(last), local(st.changes, r), r), std::move(flush), r));
}

Block PipelineBuilder::build(std::vector<BlockSpecPlan>& specs, Block body) {
  Block out;
  std::vector<State> states(specs.size());
  const SourceRange r = range();
  for (size_t i = 0; i < specs.size(); ++i) {
    State& st = states[i];
    BlockSpecPlan& p = specs[i];
    st.spec = &p;
    const std::string& n = k_.refs[p.array].name;
    if (!looped_) {
      // One step: the index is evaluated once.
      for (size_t d = 0; d < p.index.size(); ++d) {
        int l = new_local_(n + "_at" + std::to_string(d), DType::I32, false);
        out.push_back(let(l, std::move(p.index[d]), p.range));
        st.at.push_back(l);
      }
      continue;
    }
    out.push_back(let(p.slot, i32(0, p.range), p.range));
    for (size_t d = 0; d < p.index.size(); ++d) {
      st.at.push_back(var(n + "_at" + std::to_string(d), DType::I32, i32(0, p.range), out, p.range));
      st.next.push_back(var(n + "_next" + std::to_string(d), DType::I32, i32(0, p.range), out, p.range));
    }
    if (!p.write_back) {
      st.incoming = var(n + "_incoming", DType::Bool, boolean(false, p.range), out, p.range);
      st.prefetched = var(n + "_prefetched", DType::Bool, boolean(false, p.range), out, p.range);
    } else {
      st.changes = var(n + "_changes", DType::Bool, boolean(false, p.range), out, p.range);
      st.writing = var(n + "_writing", DType::Bool, boolean(false, p.range), out, p.range);
      st.fresh = var(n + "_fresh", DType::Bool, boolean(true, p.range), out, p.range);
    }
  }
  if (!looped_) {
    // Every copy in starts before the first wait, so that they overlap.
    for (State& st : states) {
      if (st.spec->copy_in) out.push_back(copy_in(st, st.at, [&] { return i32(0, st.spec->range); }));
    }
    for (State& st : states) step_begin(st, out);
    for (StmtPtr& s : body) out.push_back(std::move(s));
    for (State& st : states) step_end(st, out);
    return out;
  }
  const int counter = seq_.axes.size() == 1 ? seq_.axes[0].local : seq_.step;
  Block step = axis_lets(false);
  // The first step: every block index, and the inputs' first copies.
  Block first;
  for (State& st : states) {
    for (size_t d = 0; d < st.at.size(); ++d) first.push_back(assign(st.at[d], std::move(st.spec->index[d]), r));
    if (st.incoming >= 0) {
      first.push_back(copy_in(st, st.at, [&] { return slot_of(st, r); }));
      first.push_back(assign(st.incoming, boolean(true, r), r));
    }
  }
  if (!specs.empty()) step.push_back(when(binary(BinaryOp::Eq, local(counter, r), i32(0, r), r), std::move(first), r));
  for (State& st : states) step_begin(st, step);
  if (!specs.empty()) {
    Block next = axis_lets(true);
    for (State& st : states) prefetch(st, next);
    step.push_back(when(binary(BinaryOp::Lt, binary(BinaryOp::Add, local(counter, r), i32(1, r), r), i32(steps_, r), r),
                        std::move(next), r));
  }
  for (StmtPtr& s : body) step.push_back(std::move(s));
  for (State& st : states) step_end(st, step);
  auto loop = stmt(StmtKind::For, r);
  loop->local = counter;
  loop->lo = i32(0, r);
  loop->hi = i32(steps_, r);
  loop->body = std::move(step);
  out.push_back(std::move(loop));
  // After the last step: the write-backs still in flight.
  for (State& st : states) {
    if (st.writing < 0) continue;
    Block retire;
    retire.push_back(wait(*st.spec, [&] { return other(st.spec->slot, r); }));
    out.push_back(when(local(st.writing, r), std::move(retire), r));
  }
  return out;
}

}  // namespace

Block lower_block_specs(Kernel& k, const Sequence& seq, std::vector<BlockSpecPlan>& specs, Block body,
                        const NewLocal& new_local) {
  return PipelineBuilder(k, seq, new_local).build(specs, std::move(body));
}

}  // namespace kdt::ir
