// Deliberate DMA-protocol bugs (spec sections 7, 17 and 18): a DMA never
// waited, a wait with nothing to retire, a wait of the wrong size, and a
// regular semaphore left above 0 or waited for more than it gets. Each
// happens on every run, so `kdt run` must report its run-time code
// (semaphore-leak, deadlock, dma-wait-mismatch) in every DMA mode and
// order; whether the static checks see it depends on the guard around it:
// none, `if pid == 0` (unknown to them unless there is one program) or a
// loop of constant bounds (unrolled). tests/gen/difftest_main.cpp checks
// that whatever the static checks report, the run confirms.
#include "build_nodes.h"
#include "build_state.h"

namespace kdt::gen {

void Builder::phase_protocol_bug() {
  const uint64_t kind = ch_.below(5);
  const uint64_t guard = ch_.below(3);
  Stmt wrapper;
  Block* outer = out_;
  if (guard == 1) {
    wrapper.kind = Stmt::Kind::If;
    wrapper.expr = binary_node(BinOp::Eq, pid(), int_lit(0, true));
    out_ = &wrapper.body;
  } else if (guard == 2) {
    wrapper.kind = Stmt::Kind::For;
    wrapper.name = fresh("it");
    wrapper.expr = int_lit(0, false);
    wrapper.hi = int_lit(ch_.range(1, 3), false);
    out_ = &wrapper.body;
  }
  scopes_.emplace_back();
  if (kind <= 2) {
    const DType dt = pick_dtype();
    Shape shape = random_shape(2, 12);
    if (shape.empty()) shape.push_back(ch_.range(2, 6));
    RefState& scr = add_scratch(dt, shape);
    View src;
    RefState* from = nullptr;
    scr.busy = true;  // for ever: nothing may read or write it after this
    if (!dma_source(dt, shape, false, src, &from)) {
      scopes_.pop_back();
      out_ = outer;
      return;
    }
    from->busy = true;  // the source of a DMA that may stay in flight
    const SemRef sem = sem_named(add_sem(true));
    Stmt start = dma_start_stmt(src, full_view(scr), sem);
    if (kind == 0 && guard == 2) {
      // Only the last iteration leaks: two would overlap in flight (a race).
      Stmt last;
      last.kind = Stmt::Kind::If;
      last.expr = binary_node(BinOp::Eq, name_node(wrapper.name, DType::I32),
                              binary_node(BinOp::Sub, wrapper.hi, int_lit(1, true)));
      last.body.push_back(std::move(start));
      emit(std::move(last));
    } else {
      emit(std::move(start));
    }
    if (kind == 0) {
      bug_ = "semaphore-leak";
    } else if (kind == 1) {
      emit(dma_wait_stmt(sem, full_view(scr)));
      emit(dma_wait_stmt(sem, full_view(scr)));
      bug_ = "deadlock";
    } else {
      // The wait names a buffer of another size: only its byte count matters.
      Shape other = shape;
      other.back() += 1;
      emit(dma_wait_stmt(sem, full_view(add_scratch(dt, other))));
      bug_ = "dma-wait-mismatch";
    }
  } else {
    const std::string sem = add_sem(false);
    const int64_t signals = ch_.range(2, 3);
    for (int64_t i = 0; i < signals; ++i) {
      Stmt s;
      s.kind = Stmt::Kind::SemSignal;
      s.sem.name = sem;
      emit(s);
    }
    Stmt w;
    w.kind = Stmt::Kind::SemWait;
    w.sem.name = sem;
    const bool leak = kind == 3;
    w.expr = int_lit(leak ? signals - 1 : signals + 1, false);
    emit(w);
    bug_ = leak ? "semaphore-leak" : "deadlock";
  }
  scopes_.pop_back();
  out_ = outer;
  if (guard != 0) emit(std::move(wrapper));
}

}  // namespace kdt::gen
