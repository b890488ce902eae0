// Multi-device phases for the builder (devices(N) > 1): a ring exchange of
// blocks with remote DMAs, a remote accumulation into one device, and a
// barrier of remote signals. Their waits are top-level statements after the
// sends, which the lockstep model evaluator relies on (eval.h).
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

ExprPtr bin(BinOp op, ExprPtr a, ExprPtr b) {
  auto e = node(Expr::Kind::Binary, is_comparison(op) ? DType::Bool : a->dtype, a->shape);
  e->binop = op;
  e->operands = {std::move(a), std::move(b)};
  return e;
}

ExprPtr int_lit(int64_t v, bool weak) {
  auto e = node(Expr::Kind::Literal, DType::I32, {});
  e->bits = from_int(DType::I32, static_cast<uint64_t>(v));
  e->weak = weak;
  return e;
}

ExprPtr device_id() { return node(Expr::Kind::DeviceId, DType::I32, {}); }
ExprPtr num_devices() { return node(Expr::Kind::NumDevices, DType::I32, {}); }

}  // namespace

void Builder::phase_ring() {
  // Every device sends a block to device (me + k) % N: a permutation, so
  // each receiving block has one writer; the receiver reads it after its wait.
  RefState& recv = add_block_out(pick_dtype());
  View src;
  RefState* from = nullptr;
  if (!dma_source(recv.dtype, recv.block_shape, false, src, &from)) return;
  const std::string recv_sem = add_sem(true), send_sem = add_sem(true);
  Stmt start;
  start.kind = Stmt::Kind::DmaStart;
  start.view = src;
  start.dst = block_view(recv);
  start.sem.name = recv_sem;
  start.src_sem.name = send_sem;
  const int64_t k = ch_.range(0, k_.devices - 1);
  start.device = bin(BinOp::Rem, bin(BinOp::Add, device_id(), int_lit(k, true)), num_devices());
  emit(start);
  from->busy = recv.busy = true;
  Stmt sent;
  sent.kind = Stmt::Kind::DmaWait;
  sent.sem.name = send_sem;
  sent.view = src;
  emit(sent);
  from->busy = false;
  Stmt landed;
  landed.kind = Stmt::Kind::DmaWait;
  landed.sem.name = recv_sem;
  landed.view = block_view(recv);
  emit(landed);
  recv.busy = false;
  recv.written = true;
}

void Builder::phase_remote_add() {
  // Every device adds into device t's accumulator (add=true, remote); t
  // retires one DMA per device.
  DType dt = pick_dtype();
  const int64_t terms = programs_ * k_.devices;
  if (is_float(dt) && terms > 24) dt = DType::I64;
  RefState& acc = acc_for(dt, terms);
  Shape shape = random_shape(static_cast<int>(acc.shape.size()), 16);
  View dst;
  dst.ref = acc.name;
  if (!view_entries(acc.shape, shape, dst.entries, true)) {
    shape = acc.shape;
    dst.entries.clear();
  }
  View src;
  RefState* from = nullptr;
  if (!dma_source(dt, shape, true, src, &from)) return;
  const std::string recv_sem = add_sem(true), send_sem = add_sem(true);
  const int64_t t = ch_.range(0, k_.devices - 1);
  Stmt start;
  start.kind = Stmt::Kind::DmaStart;
  start.view = src;
  start.dst = dst;
  start.sem.name = recv_sem;
  start.src_sem.name = send_sem;
  start.device = int_lit(t, false);
  start.add = true;
  emit(start);
  Stmt sent;
  sent.kind = Stmt::Kind::DmaWait;
  sent.sem.name = send_sem;
  sent.view = src;
  emit(sent);
  Stmt loop;
  loop.kind = Stmt::Kind::For;
  loop.name = "_" + fresh("k");
  loop.expr = int_lit(0, false);
  loop.hi = num_devices();
  Stmt landed;
  landed.kind = Stmt::Kind::DmaWait;
  landed.sem.name = recv_sem;
  landed.view = dst;
  loop.body.push_back(landed);
  Stmt only_t;
  only_t.kind = Stmt::Kind::If;
  only_t.expr = bin(BinOp::Eq, device_id(), int_lit(t, true));
  only_t.body.push_back(loop);
  emit(only_t);
}

void Builder::phase_barrier() {
  // Signal every other device once, then wait for all of them.
  const std::string sem = add_sem(false);
  Stmt signal;
  signal.kind = Stmt::Kind::SemSignal;
  signal.sem.name = sem;
  const std::string d = fresh("dv");
  auto dv = node(Expr::Kind::Name, DType::I32, {});
  dv->name = d;
  signal.device = dv;
  Stmt other;
  other.kind = Stmt::Kind::If;
  other.expr = bin(BinOp::Ne, dv, device_id());
  other.body.push_back(signal);
  Stmt loop;
  loop.kind = Stmt::Kind::For;
  loop.name = d;
  loop.expr = int_lit(0, false);
  loop.hi = num_devices();
  loop.body.push_back(other);
  emit(loop);
  Stmt wait;
  wait.kind = Stmt::Kind::SemWait;
  wait.sem.name = sem;
  wait.expr = bin(BinOp::Sub, num_devices(), int_lit(1, true));
  emit(wait);
}

}  // namespace kdt::gen
