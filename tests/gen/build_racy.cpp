// Deliberately racy patterns (spec section 7 and section 1): `kdt run` with
// checks on must report `race` for these in every DMA mode and program order.
#include "build_state.h"

namespace kdt::gen {

namespace {

std::shared_ptr<Expr> node(Expr::Kind kind, DType dt, const Shape& shape) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->dtype = dt;
  e->shape = shape;
  return e;
}

ExprPtr int_lit(int64_t v, bool weak) {
  auto e = node(Expr::Kind::Literal, DType::I32, {});
  e->bits = from_int(DType::I32, static_cast<uint64_t>(v));
  e->weak = weak;
  return e;
}

}  // namespace

void Builder::phase_racy() {
  racy_ = true;
  const DType dt = pick_dtype();
  const uint64_t pattern = ch_.below(programs_ >= 2 ? 5 : 3);
  Shape shape = random_shape(2, 12);
  if (shape.empty()) shape.push_back(ch_.range(1, 4));
  auto store_of = [&](const View& v, ExprPtr value) {
    Stmt s;
    s.kind = Stmt::Kind::Store;
    s.view = v;
    s.expr = std::move(value);
    emit(s);
  };
  // A @global ref of P blocks of `shape`, one per program.
  auto blocked_ref = [&](Mode mode) -> RefState& {
    Param p;
    p.name = fresh("h");
    p.mode = mode;
    p.dtype = dt;
    p.shape = {programs_};
    p.shape.insert(p.shape.end(), shape.begin(), shape.end());
    if (mode == Mode::InOut) init_data(p, false);
    k_.params.push_back(p);
    RefState r;
    r.name = p.name;
    r.role = Role::Shared;
    r.dtype = dt;
    r.shape = p.shape;
    refs_.push_back(r);
    return refs_.back();
  };
  auto own_block = [&](const RefState& r) {
    View v;
    v.ref = r.name;
    IndexEntry e;
    e.kind = IndexEntry::Kind::Scalar;
    e.index = pid();
    v.entries = {e};
    return v;
  };
  if (pattern <= 2) {
    // A scratch buffer, initialised, then a DMA into it (0, 1) or out of it
    // (2), and an access the DMA forbids before its wait.
    RefState& scr = add_scratch(dt, shape);
    View whole;
    whole.ref = scr.name;
    whole.ellipsis = true;
    store_of(whole, expr(dt, shape, 1));
    scr.written = true;
    const std::string sem = add_sem(true);
    Stmt start;
    start.kind = Stmt::Kind::DmaStart;
    start.sem.name = sem;
    RefState* from = nullptr;
    if (pattern < 2) {
      start.dst = whole;
      if (!dma_source(dt, shape, false, start.view, &from)) return;
    } else {
      start.view = whole;
      start.dst = own_block(blocked_ref(Mode::Out));
    }
    emit(start);
    if (pattern == 0) {
      // Reads the destination before the wait.
      RefState& out = blocked_ref(Mode::Out);
      store_of(own_block(out), [&] {
        auto load = node(Expr::Kind::Load, dt, shape);
        load->view = whole;
        return load;
      }());
    } else {
      // Writes the destination (1) or the source (2) before the wait.
      store_of(whole, expr(dt, shape, 1));
    }
    Stmt wait;
    wait.kind = Stmt::Kind::DmaWait;
    wait.sem.name = sem;
    wait.view = start.dst;
    emit(wait);
    return;
  }
  // Two programs write the same elements of a @global ref (3), or each reads
  // the block its neighbour writes (4), with plain accesses.
  View v = own_block(blocked_ref(pattern == 3 ? Mode::Out : Mode::InOut));
  IndexEntry e;
  e.kind = IndexEntry::Kind::Scalar;
  if (pattern == 3) {
    e.index = int_lit(ch_.range(0, programs_ - 1), false);
    v.entries = {e};
    store_of(v, expr(dt, shape, 1));
    return;
  }
  store_of(v, expr(dt, shape, 1));
  // The neighbour's block, (pid + 1) % P: in any program order, the last of
  // the cycle to run reads a block another program wrote.
  auto next = node(Expr::Kind::Binary, DType::I32, {});
  next->binop = BinOp::Rem;
  auto plus = node(Expr::Kind::Binary, DType::I32, {});
  plus->binop = BinOp::Add;
  plus->operands = {pid(), int_lit(1, true)};
  next->operands = {plus, int_lit(programs_, true)};
  View neighbour = v;
  neighbour.entries[0].index = next;
  auto load = node(Expr::Kind::Load, dt, shape);
  load->view = neighbour;
  store_of(own_block(blocked_ref(Mode::Out)), load);
}

}  // namespace kdt::gen
