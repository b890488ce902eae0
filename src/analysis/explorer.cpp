// The path explorer of the DMA-protocol analysis. Every path is followed
// in step with the others through the same statement; a condition the
// analysis cannot decide splits a path in two, and paths that agree on
// everything they know are joined again after the `if`. A path keeps only
// the errors certain on it, and a join keeps only those both sides have,
// so what is left at the end happened on every execution.
#include "explorer.h"

#include <algorithm>

namespace kdt::analysis {

using ir::StmtKind;

bool certainly_overlap(const ViewValue& a, const ViewValue& b) {
  if (a.ref != b.ref || a.ref < 0 || a.starts.size() != b.starts.size()) return false;
  for (size_t d = 0; d < a.starts.size(); ++d) {
    const Value& x = a.starts[d];
    const Value& y = b.starts[d];
    if (a.sizes[d] <= 0 || b.sizes[d] <= 0) return false;
    if (x.known() && y.known()) {
      const __int128 xs = x.bits, ys = y.bits;
      if (!(xs < ys + b.sizes[d] && ys < xs + a.sizes[d])) return false;
    } else if (!(x.kind == Value::Kind::Term && x == y)) {
      return false;  // not known to overlap in this dimension
    }
  }
  return true;
}

namespace {

std::vector<Finding> intersect(const std::vector<Finding>& a, const std::vector<Finding>& b) {
  std::vector<Finding> out;
  for (const Finding& f : a) {
    if (std::find(b.begin(), b.end(), f) != b.end()) out.push_back(f);
  }
  return out;
}

void untrack(SemState& s) {
  s.tracked = false;
  s.slots.clear();
}

bool any_in_flight(const State& st) {
  for (const SemState& s : st.sems) {
    for (const SemSlot& slot : s.slots) {
      if (!slot.queue.empty()) return true;
    }
  }
  return false;
}

void pop_frame(State& st, const ir::Stmt& s) {
  if (!st.ctx.empty() && st.ctx.back().stmt == &s) st.ctx.pop_back();
}

}  // namespace

std::optional<std::vector<Finding>> Explorer::run() {
  State init;
  init.locals.assign(k_.locals.size(), Value::unknown());
  for (const ir::Semaphore& sem : k_.sems) {
    SemState s;
    // A semaphore a peer can raise is the run-time checks' to judge.
    s.tracked = !sem.peer_raised;
    if (s.tracked) s.slots.resize(static_cast<size_t>(std::max<int64_t>(sem.count, 1)));
    init.sems.push_back(std::move(s));
  }
  States states;
  states.push_back(std::move(init));
  block(k_.body, states);
  if (gave_up_) return std::nullopt;
  for (State& st : states) {
    end_of_program(st);
    finished_.push_back(std::move(st));
  }
  if (finished_.empty()) return std::vector<Finding>{};
  std::vector<Finding> certain = finished_[0].findings;
  for (size_t i = 1; i < finished_.size() && !certain.empty(); ++i) certain = intersect(certain, finished_[i].findings);
  return certain;
}

void Explorer::retire_stopped(States& states) {
  auto stopped = std::stable_partition(states.begin(), states.end(), [](const State& st) { return !st.stopped; });
  for (auto it = stopped; it != states.end(); ++it) finished_.push_back(std::move(*it));
  states.erase(stopped, states.end());
}

void Explorer::block(const ir::Block& b, States& states) {
  for (const ir::StmtPtr& s : b) {
    retire_stopped(states);
    if (states.empty() || gave_up_) return;
    work_ += static_cast<int64_t>(states.size());
    if (work_ > kMaxWork) {
      gave_up_ = true;
      return;
    }
    switch (s->kind) {
      case StmtKind::If: if_stmt(*s, states); break;
      case StmtKind::For: for_stmt(*s, states); break;
      case StmtKind::While:
        // The trip count is not known: whatever the body touches is lost.
        for (State& st : states) {
          reads(s->value.get(), *s, st);
          Value v = eval_.eval(*s->value, st.locals);
          if (!(v.known() && v.bits == 0)) havoc(s->body, st);
        }
        break;
      default:
        for (State& st : states) {
          if (!simple(*s, st)) st.stopped = true;
        }
    }
  }
  retire_stopped(states);
}

void Explorer::if_stmt(const ir::Stmt& s, States& states) {
  States undecided = std::move(states), out;
  // Per undecided path: every earlier clause's condition was known (false).
  std::vector<bool> known(undecided.size(), true);
  for (size_t c = 0; c < s.clauses.size(); ++c) {
    const ir::IfClause& clause = s.clauses[c];
    States enter, rest;
    std::vector<bool> rest_known;
    for (size_t i = 0; i < undecided.size(); ++i) {
      State& st = undecided[i];
      Value v = Value::constant(1);
      if (clause.cond) {
        reads(clause.cond.get(), s, st);
        v = eval_.eval(*clause.cond, st.locals);
      }
      if (v.known() && v.bits == 0) {
        rest.push_back(std::move(st));
        rest_known.push_back(known[i]);
      } else if (v.known()) {
        if (known[i]) st.ctx.push_back({&s, static_cast<int64_t>(c)});
        enter.push_back(std::move(st));
      } else {
        enter.push_back(st);
        rest.push_back(std::move(st));
        rest_known.push_back(false);
      }
    }
    block(clause.body, enter);
    for (State& st : enter) {
      pop_frame(st, s);
      out.push_back(std::move(st));
    }
    undecided = std::move(rest);
    known = std::move(rest_known);
  }
  for (State& st : undecided) out.push_back(std::move(st));
  states = join(std::move(out));
}

void Explorer::for_stmt(const ir::Stmt& s, States& states) {
  // Paths with the same constant bounds run the loop together.
  std::vector<std::pair<std::pair<int64_t, int64_t>, States>> groups;
  States out;
  for (State& st : states) {
    reads(s.lo.get(), s, st);
    reads(s.hi.get(), s, st);
    Value lo = eval_.eval(*s.lo, st.locals), hi = eval_.eval(*s.hi, st.locals);
    if (!lo.known() || !hi.known() || s.step <= 0) {
      havoc(s.body, st);
      out.push_back(std::move(st));
      continue;
    }
    auto bounds = std::make_pair(lo.bits, hi.bits);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == bounds; });
    if (it == groups.end()) {
      groups.emplace_back(bounds, States{});
      it = groups.end() - 1;
    }
    it->second.push_back(std::move(st));
  }
  const Effects& fx = effects(s.body);
  for (auto& [bounds, group] : groups) {
    const auto [lo, hi] = bounds;
    // (In 128 bits: the bounds may be any i64.)
    if (hi > lo && (static_cast<__int128>(hi) - lo) / s.step > kMaxWork) {
      gave_up_ = true;
      return;
    }
    const bool quiet = !fx.protocol && std::none_of(group.begin(), group.end(), any_in_flight);
    if (quiet) {
      // Nothing in the body can change a semaphore or meet a DMA in flight.
      for (State& st : group) havoc(s.body, st);
    } else {
      for (int64_t v = lo; v < hi && !group.empty(); v += s.step) {
        for (State& st : group) {
          st.locals[s.local] = Value::constant(v);
          st.ctx.push_back({&s, v});
        }
        block(s.body, group);
        if (gave_up_) return;
        for (State& st : group) pop_frame(st, s);
        group = join(std::move(group));
      }
    }
    for (State& st : group) out.push_back(std::move(st));
  }
  states = join(std::move(out));
}

bool Explorer::simple(const ir::Stmt& s, State& st) {
  switch (s.kind) {
    case StmtKind::Let:
    case StmtKind::Assign:
      reads(s.value.get(), s, st);
      if (s.local >= 0) st.locals[s.local] = eval_.eval(*s.value, st.locals);
      return true;
    case StmtKind::Store:
      reads(s.value.get(), s, st);
      reads(s.mask.get(), s, st);
      for (const ir::ViewDim& d : s.view->dims) reads(d.start.get(), s, st);
      // A masked store may write nothing.
      if (!s.mask && any_in_flight(st)) write_view(view(*s.view, st), s, false, false, st);
      return true;
    case StmtKind::Eval: reads(s.value.get(), s, st); return true;
    case StmtKind::Assert: {
      reads(s.value.get(), s, st);
      Value v = eval_.eval(*s.value, st.locals);
      return !(v.known() && v.bits == 0);  // a failed assert ends the program
    }
    case StmtKind::AsmStmt:
      if (s.asm_id >= 0) {
        for (const ir::ExprPtr& e : k_.asms[s.asm_id].input_values) reads(e.get(), s, st);
      }
      return true;
    case StmtKind::DmaStart: return dma_start(s, st);
    case StmtKind::DmaWait: return dma_wait(s, st);
    case StmtKind::SemSignal:
    case StmtKind::SemWait: return sem_op(s, st);
    case StmtKind::ScopeExit: scope_exit(s, st); return true;
    default: return true;
  }
}

bool Explorer::dma_start(const ir::Stmt& s, State& st) {
  for (const std::optional<ir::View>* v : {&s.src, &s.dst}) {
    for (const ir::ViewDim& d : (*v)->dims) reads(d.start.get(), s, st);
  }
  reads(s.device.get(), s, st);
  Flight f;
  f.start = {&s, st.ctx};
  f.bytes = s.bytes;
  f.receive = !s.device;
  f.add = s.add;
  f.src = view(*s.src, st);
  f.dst = view(*s.dst, st);
  if (any_in_flight(st)) {
    read_view(f.src, s, s.range, st);
    // A remote DMA's destination is on the device it names.
    if (f.receive) write_view(f.dst, s, true, s.add, st);
  }
  SemSlot* slot = nullptr;
  // The queue this start joins on the starting device: its semaphore's, or
  // for a remote DMA its `src_sem`'s (the destination's is on the peer).
  const ir::SemRef* queue = !s.device ? &s.sem : s.src_sem ? &*s.src_sem : nullptr;
  if (queue) slot = this->slot(*queue, st);
  if (slot) {
    slot->queue.push_back(std::move(f));
    int64_t& most = most_in_flight_[queue->sem];
    most = std::max<int64_t>(most, static_cast<int64_t>(slot->queue.size()));
  } else if (queue) {
    unbounded_.insert(queue->sem);
  }
  return true;
}

void Explorer::forget(State& st, int sem) {
  untrack(st.sems[static_cast<size_t>(sem)]);
  // What was in flight, or is started later, is no longer counted.
  unbounded_.insert(sem);
}

std::optional<int64_t> Explorer::in_flight_bound(int sem) const {
  if (gave_up_ || unbounded_.count(sem)) return std::nullopt;
  auto it = most_in_flight_.find(sem);
  return it == most_in_flight_.end() ? 0 : it->second;
}

bool Explorer::dma_wait(const ir::Stmt& s, State& st) {
  int64_t index = 0;
  SemSlot* slot = this->slot(s.sem, st, &index);
  if (!slot) return true;
  Site here{&s, st.ctx};
  if (slot->queue.empty()) {
    Finding f = make_finding(Problem::NothingToRetire, here, s.range, s.sem.sem, index);
    f.other = slot->last_wait;
    add(st, std::move(f));
    return false;  // it waits for ever
  }
  Flight oldest = std::move(slot->queue.front());
  slot->queue.erase(slot->queue.begin());
  slot->last_wait = here;
  if (oldest.bytes != s.bytes) {
    Finding f = make_finding(Problem::WaitMismatch, here, s.range, s.sem.sem, index);
    f.other = oldest.start;
    f.a = s.bytes;
    f.b = oldest.bytes;
    add(st, std::move(f));
  }
  return true;
}

bool Explorer::sem_op(const ir::Stmt& s, State& st) {
  reads(s.amount.get(), s, st);
  int64_t index = 0;
  SemSlot* slot = this->slot(s.sem, st, &index);
  if (!slot) return true;
  Value amount = s.amount ? eval_.eval(*s.amount, st.locals) : Value::constant(1);
  if (!amount.known()) {
    forget(st, s.sem.sem);
    return true;
  }
  if (s.kind == StmtKind::SemSignal) {
    slot->count += amount.bits;
    slot->last_signal = {&s, st.ctx};
    return true;
  }
  if (slot->count < amount.bits) {
    Finding f = make_finding(Problem::RegularBlocked, {&s, st.ctx}, s.range, s.sem.sem, index);
    f.other = slot->last_signal;
    f.a = slot->count;
    f.b = amount.bits;
    add(st, std::move(f));
    return false;
  }
  slot->count -= amount.bits;
  return true;
}

void Explorer::scope_exit(const ir::Stmt& s, State& st) {
  Site here{&s, st.ctx};
  auto leak = [&](Flight& flight, int sem, int64_t index, int ref) {
    flight.reported = true;
    Finding f = make_finding(Problem::ScopeLeak, flight.start, flight.start.stmt->range, sem, index);
    f.other = here;
    f.ref = ref;
    add(st, std::move(f));
  };
  for (int sem : s.scope_sems) {
    SemState& ss = st.sems[sem];
    for (size_t i = 0; i < ss.slots.size(); ++i) {
      SemSlot& slot = ss.slots[i];
      for (Flight& flight : slot.queue) {
        if (!flight.reported) leak(flight, sem, static_cast<int64_t>(i), -1);
      }
      if (slot.count != 0) {
        const Site& at = slot.last_signal.stmt ? slot.last_signal : here;
        Finding f = make_finding(Problem::RegularScopeLeak, at, at.stmt->range, sem, static_cast<int64_t>(i));
        f.other = here;
        f.a = slot.count;
        add(st, std::move(f));
      }
    }
  }
  for (size_t sem = 0; sem < st.sems.size(); ++sem) {
    for (size_t i = 0; i < st.sems[sem].slots.size(); ++i) {
      for (Flight& flight : st.sems[sem].slots[i].queue) {
        for (int ref : s.scope_refs) {
          const bool touches = (flight.receive && flight.dst.ref == ref) || flight.src.ref == ref;
          if (touches && !flight.reported) leak(flight, static_cast<int>(sem), static_cast<int64_t>(i), ref);
        }
      }
    }
  }
}

void Explorer::end_of_program(State& st) {
  for (size_t sem = 0; sem < st.sems.size(); ++sem) {
    for (size_t i = 0; i < st.sems[sem].slots.size(); ++i) {
      SemSlot& slot = st.sems[sem].slots[i];
      for (Flight& flight : slot.queue) {
        if (flight.reported) continue;
        Finding f = make_finding(Problem::Leak, flight.start, flight.start.stmt->range, static_cast<int>(sem),
                                 static_cast<int64_t>(i));
        f.b = flight.receive;
        add(st, std::move(f));
      }
      if (slot.count != 0 && slot.last_signal.stmt) {
        Finding f = make_finding(Problem::RegularLeak, slot.last_signal, slot.last_signal.stmt->range,
                                 static_cast<int>(sem), static_cast<int64_t>(i));
        f.a = slot.count;
        add(st, std::move(f));
      }
    }
  }
}

void Explorer::reads(const ir::Expr* e, const ir::Stmt& s, State& st) {
  if (!e) return;
  for (const ir::ExprPtr& o : e->operands) reads(o.get(), s, st);
  reads(e->mask.get(), s, st);
  reads(e->other.get(), s, st);
  if (e->kind != ir::ExprKind::Load || !e->view) return;
  for (const ir::ViewDim& d : e->view->dims) reads(d.start.get(), s, st);
  // A masked load may read nothing.
  if (!e->mask && any_in_flight(st)) read_view(view(*e->view, st), s, e->range, st);
}

void Explorer::read_view(const ViewValue& v, const ir::Stmt& s, SourceRange range, State& st) {
  for (size_t sem = 0; sem < st.sems.size(); ++sem) {
    for (const SemSlot& slot : st.sems[sem].slots) {
      for (const Flight& flight : slot.queue) {
        if (!flight.receive || !certainly_overlap(flight.dst, v)) continue;
        Finding f = make_finding(Problem::ReadInFlight, {&s, st.ctx}, range, static_cast<int>(sem),
                                 &slot - st.sems[sem].slots.data());
        f.other = flight.start;
        f.ref = v.ref;
        add(st, std::move(f));
        return;
      }
    }
  }
}

void Explorer::write_view(const ViewValue& v, const ir::Stmt& s, bool dma, bool add_dma, State& st) {
  for (size_t sem = 0; sem < st.sems.size(); ++sem) {
    for (const SemSlot& slot : st.sems[sem].slots) {
      for (const Flight& flight : slot.queue) {
        Problem problem;
        if (flight.receive && certainly_overlap(flight.dst, v) && !(dma && add_dma && flight.add)) {
          problem = dma ? Problem::DmaOverlap : Problem::WriteInFlight;
        } else if (certainly_overlap(flight.src, v)) {
          problem = Problem::WriteSource;
        } else {
          continue;
        }
        Finding f = make_finding(problem, {&s, st.ctx}, s.range, static_cast<int>(sem),
                                 &slot - st.sems[sem].slots.data());
        f.other = flight.start;
        f.ref = v.ref;
        add(st, std::move(f));
        return;
      }
    }
  }
}

ViewValue Explorer::view(const ir::View& v, const State& st) {
  ViewValue out;
  out.ref = v.ref;
  for (const ir::ViewDim& d : v.dims) {
    out.starts.push_back(d.start ? eval_.eval(*d.start, st.locals) : Value::constant(d.static_start));
    out.sizes.push_back(d.dropped ? 1 : d.size);
  }
  return out;
}

SemSlot* Explorer::slot(const ir::SemRef& r, State& st, int64_t* index) {
  if (r.sem < 0 || static_cast<size_t>(r.sem) >= st.sems.size()) return nullptr;
  SemState& s = st.sems[r.sem];
  if (!s.tracked) return nullptr;
  Value row = r.index ? eval_.eval(*r.index, st.locals) : Value::constant(0);
  Value col = r.col ? eval_.eval(*r.col, st.locals) : Value::constant(0);
  const int64_t cols = k_.sems[r.sem].cols;
  if (!row.known() || !col.known()) {
    forget(st, r.sem);
    return nullptr;
  }
  const int64_t count = static_cast<int64_t>(s.slots.size());
  const int64_t rows = cols > 0 ? count / cols : count;
  const bool inside = row.bits >= 0 && row.bits < rows && (cols == 0 || (col.bits >= 0 && col.bits < cols));
  const int64_t element = !inside ? -1 : cols > 0 ? row.bits * cols + col.bits : row.bits;
  if (element < 0 || element >= count) {
    forget(st, r.sem);  // out of bounds: the run-time check reports it
    return nullptr;
  }
  if (index) *index = element;
  return &s.slots[static_cast<size_t>(element)];
}

const Explorer::Effects& Explorer::effects(const ir::Block& body) {
  auto it = effects_.find(&body);
  if (it != effects_.end()) return it->second;
  Effects fx;
  ir::for_each_stmt(body, [&](const ir::Stmt& s) {
    switch (s.kind) {
      case StmtKind::Let:
      case StmtKind::Assign:
      case StmtKind::For:
        if (s.local >= 0) fx.locals.push_back(s.local);
        break;
      case StmtKind::DmaStart:
      case StmtKind::DmaWait:
      case StmtKind::SemSignal:
      case StmtKind::SemWait:
        fx.protocol = true;
        fx.sems.push_back(s.sem.sem);
        if (s.src_sem) fx.sems.push_back(s.src_sem->sem);
        break;
      case StmtKind::ScopeExit:
        fx.protocol = true;
        fx.sems.insert(fx.sems.end(), s.scope_sems.begin(), s.scope_sems.end());
        break;
      case StmtKind::Assert: fx.protocol = true; break;
      default: break;
    }
  });
  return effects_.emplace(&body, std::move(fx)).first->second;
}

void Explorer::havoc(const ir::Block& body, State& st) {
  const Effects& fx = effects(body);
  for (int l : fx.locals) st.locals[l] = Value::unknown();
  for (int sem : fx.sems) {
    if (sem >= 0 && static_cast<size_t>(sem) < st.sems.size()) forget(st, sem);
  }
}

void Explorer::add(State& st, Finding f) {
  if (std::find(st.findings.begin(), st.findings.end(), f) == st.findings.end()) st.findings.push_back(std::move(f));
  st.stopped = true;
}

Explorer::States Explorer::join(States states) {
  retire_stopped(states);
  States out;
  for (State& st : states) {
    auto same = std::find_if(out.begin(), out.end(), [&](const State& o) { return o.same_facts(st); });
    if (same == out.end()) out.push_back(std::move(st));
    else same->findings = intersect(same->findings, st.findings);
  }
  if (out.size() <= kMaxPaths) return out;
  // Too many paths: one that keeps what they all agree on.
  State merged = std::move(out[0]);
  for (size_t i = 1; i < out.size(); ++i) {
    const State& o = out[i];
    for (size_t l = 0; l < merged.locals.size(); ++l) {
      if (merged.locals[l] != o.locals[l]) merged.locals[l] = Value::unknown();
    }
    for (size_t s = 0; s < merged.sems.size(); ++s) {
      if (!(merged.sems[s] == o.sems[s])) forget(merged, static_cast<int>(s));
    }
    merged.findings = intersect(merged.findings, o.findings);
  }
  out.clear();
  out.push_back(std::move(merged));
  return out;
}

}  // namespace kdt::analysis
