// Deliberately racy patterns (spec section 7 and section 1): `kdt run` with
// checks on must report `race` for these in every DMA mode and program order.
#include "build_nodes.h"
#include "build_state.h"

namespace kdt::gen {

void Builder::phase_racy() {
  racy_ = true;
  const DType dt = pick_dtype();
  const uint64_t pattern = ch_.below(programs_ >= 2 ? 5 : 3);
  Shape shape = random_shape(2, 12);
  if (shape.empty()) shape.push_back(ch_.range(1, 4));
  auto store_of = [&](const View& v, ExprPtr value) { emit(store_stmt(v, std::move(value))); };
  // A @global ref of P blocks of `shape`, one per program.
  auto blocked_ref = [&](Mode mode) -> RefState& {
    Param p;
    p.name = fresh("h");
    p.mode = mode;
    p.dtype = dt;
    p.shape = {programs_};
    p.shape.insert(p.shape.end(), shape.begin(), shape.end());
    if (mode == Mode::InOut) init_data(p, false);
    return add_param(p, Role::Shared);
  };
  auto own_block = [&](const RefState& r) {
    View v;
    v.ref = r.name;
    v.entries = {scalar_entry(pid())};
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
    Stmt start = dma_start_stmt({}, {}, sem_named(sem));
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
    emit(dma_wait_stmt(start.sem, start.dst));
    return;
  }
  // Two programs write the same elements of a @global ref (3), or each reads
  // the block its neighbour writes (4), with plain accesses.
  View v = own_block(blocked_ref(pattern == 3 ? Mode::Out : Mode::InOut));
  if (pattern == 3) {
    v.entries = {scalar_entry(int_lit(ch_.range(0, programs_ - 1), false))};
    store_of(v, expr(dt, shape, 1));
    return;
  }
  store_of(v, expr(dt, shape, 1));
  // The neighbour's block, (pid + 1) % P: in any program order, the last of
  // the cycle to run reads a block another program wrote.
  View neighbour = v;
  neighbour.entries[0].index =
      binary_node(BinOp::Rem, binary_node(BinOp::Add, pid(), int_lit(1, true)), int_lit(programs_, true));
  auto load = node(Expr::Kind::Load, dt, shape);
  load->view = neighbour;
  store_of(own_block(blocked_ref(Mode::Out)), load);
}

}  // namespace kdt::gen
