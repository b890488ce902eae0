// Multi-device phases for the builder (devices(N) > 1): a ring exchange of
// blocks with remote DMAs, a remote accumulation into one device, and a
// barrier of remote signals. Their waits are top-level statements after the
// sends, which the lockstep model evaluator relies on (eval.h).
#include "build_nodes.h"
#include "build_state.h"

namespace kdt::gen {

namespace {

ExprPtr device_id() { return launch_node(Expr::Kind::DeviceId); }
ExprPtr num_devices() { return launch_node(Expr::Kind::NumDevices); }

}  // namespace

void Builder::phase_ring() {
  // Every device sends a block to device (me + k) % N: a permutation, so
  // each receiving block has one writer; the receiver reads it after its wait.
  RefState& recv = add_block_out(pick_dtype());
  View src;
  RefState* from = nullptr;
  if (!dma_source(recv.dtype, recv.block_shape, false, src, &from)) return;
  const std::string recv_sem = add_sem(true), send_sem = add_sem(true);
  Stmt start = dma_start_stmt(src, block_view(recv), sem_named(recv_sem));
  start.src_sem = sem_named(send_sem);
  const int64_t k = ch_.range(0, k_.devices - 1);
  start.device = binary_node(BinOp::Rem, binary_node(BinOp::Add, device_id(), int_lit(k, true)), num_devices());
  emit(start);
  from->busy = recv.busy = true;
  emit(dma_wait_stmt(sem_named(send_sem), src));
  from->busy = false;
  emit(dma_wait_stmt(sem_named(recv_sem), block_view(recv)));
  recv.busy = false;
  recv.written = true;
}

void Builder::phase_remote_add() {
  // Every device adds into device t's accumulator (add=true, remote); t
  // retires one DMA per device.
  DType dt = pick_dtype();
  const int64_t terms = programs_ * k_.devices;
  if (is_float(dt) && terms > kExactFloatTerms) dt = DType::I64;
  RefState& acc = acc_for(dt, terms);
  Shape shape;
  const View dst = part_view(acc, 16, shape);
  View src;
  RefState* from = nullptr;
  if (!dma_source(dt, shape, true, src, &from)) return;
  const std::string recv_sem = add_sem(true), send_sem = add_sem(true);
  const int64_t t = ch_.range(0, k_.devices - 1);
  Stmt start = dma_start_stmt(src, dst, sem_named(recv_sem));
  start.src_sem = sem_named(send_sem);
  start.device = int_lit(t, false);
  start.add = true;
  emit(start);
  emit(dma_wait_stmt(sem_named(send_sem), src));
  Stmt loop;
  loop.kind = Stmt::Kind::For;
  loop.name = "_" + fresh("k");
  loop.expr = int_lit(0, false);
  loop.hi = num_devices();
  loop.body.push_back(dma_wait_stmt(sem_named(recv_sem), dst));
  Stmt only_t;
  only_t.kind = Stmt::Kind::If;
  only_t.expr = binary_node(BinOp::Eq, device_id(), int_lit(t, true));
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
  const ExprPtr dv = name_node(d);
  signal.device = dv;
  Stmt other;
  other.kind = Stmt::Kind::If;
  other.expr = binary_node(BinOp::Ne, dv, device_id());
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
  wait.expr = binary_node(BinOp::Sub, num_devices(), int_lit(1, true));
  emit(wait);
}

}  // namespace kdt::gen
