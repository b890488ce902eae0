// Parameters, statements and phases for the builder (see build_state.h).
// Each phase is a small pattern of KD statements (a store, a loop, DMAs on
// one semaphore, an accumulation, a remote exchange, ...) that keeps the
// kernel race-free: programs write only their own blocks, shared elements
// are reached only by accumulating DMAs, and everything a DMA touches is
// left alone until its wait.
#include "build_nodes.h"
#include "build_state.h"

namespace kdt::gen {

RefState* find_ref(std::deque<RefState>& refs, const std::string& name) {
  for (RefState& r : refs) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

Built build_kernel(Choices& choices) { return Builder(choices).build(); }

std::string Builder::fresh(const char* prefix) { return prefix + std::to_string(counter_++); }

void Builder::emit(Stmt s) { out_->push_back(std::move(s)); }

void Builder::init_data(Param& p, bool small_ints) {
  const int64_t n = element_count(p.shape) * k_.devices;
  p.init.clear();
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = 0;
    switch (p.dtype) {
      case DType::Bool: bits = ch_.coin(); break;
      // Short dyadic fractions, so that sums of a few dozen stay exact.
      case DType::F16: bits = from_f64(p.dtype, static_cast<double>(ch_.range(-32, 32)) / 4.0); break;
      case DType::BF16: bits = from_f64(p.dtype, static_cast<double>(ch_.range(-8, 8)) / 2.0); break;
      case DType::F32:
      case DType::F64: bits = from_f64(p.dtype, static_cast<double>(ch_.range(-64, 64)) / 8.0); break;
      default:
        if (!small_ints && ch_.chance(20)) {
          // Anywhere in the dtype's range, so that arithmetic wraps.
          bits = from_int(p.dtype, ch_.below(~uint64_t{0}) ^ (ch_.below(~uint64_t{0}) << 1));
        } else {
          bits = from_int(p.dtype, static_cast<uint64_t>(is_signed_int(p.dtype) ? ch_.range(-20, 20) : ch_.range(0, 40)));
        }
    }
    p.init.push_back(bits);
  }
}

RefState& Builder::add_input(DType dt, const Shape& shape) {
  Param p;
  p.name = fresh("x");
  p.mode = Mode::In;
  p.dtype = dt;
  p.shape = shape;
  init_data(p, false);
  RefState& r = add_param(p, Role::Input);
  r.written = true;
  r.exact = true;
  return r;
}

RefState& Builder::add_param(const Param& p, Role role) {
  k_.params.push_back(p);
  RefState r;
  r.name = p.name;
  r.role = role;
  r.dtype = p.dtype;
  r.shape = p.shape;
  refs_.push_back(r);
  return refs_.back();
}

RefState& Builder::add_block_out(DType dt) {
  // The program's block: o[pid, ...], o[ds(pid * R, R), ...] or, on a 2-D
  // grid, o[program_id(0), program_id(1), ...].
  RefState r;
  r.role = Role::Block;
  r.dtype = dt;
  Shape tail = random_shape(2, 12);
  const uint64_t style = ch_.below(k_.grid.size() == 2 ? 3 : 2);
  if (style == 0) {
    r.shape = {programs_};
    r.block = {scalar_entry(pid())};
    r.block_shape = tail;
  } else if (style == 1) {
    const int64_t R = ch_.range(1, 3);
    r.shape = {programs_ * R};
    IndexEntry e;
    e.kind = IndexEntry::Kind::Ds;
    e.size = R;
    e.index = R == 1 ? pid() : binary_node(BinOp::Mul, pid(), int_lit(R, true));
    r.block = {e};
    r.block_shape = {R};
    r.block_shape.insert(r.block_shape.end(), tail.begin(), tail.end());
  } else {
    r.shape = {k_.grid[0], k_.grid[1]};
    for (int axis = 0; axis < 2; ++axis) r.block.push_back(scalar_entry(launch_node(Expr::Kind::ProgramId, axis)));
    r.block_shape = tail;
  }
  r.shape.insert(r.shape.end(), tail.begin(), tail.end());
  Param p;
  // Sometimes inout: the block starts initialised with the input data.
  const bool inout = ch_.chance(20);
  p.name = r.name = fresh(inout ? "io" : "o");
  p.mode = inout ? Mode::InOut : Mode::Out;
  p.dtype = dt;
  p.shape = r.shape;
  if (inout) init_data(p, false);
  r.written = inout;
  k_.params.push_back(p);
  refs_.push_back(r);
  return refs_.back();
}

RefState& Builder::add_scratch(DType dt, const Shape& shape) {
  RefState r;
  r.name = fresh("s");
  r.dtype = dt;
  r.shape = shape;
  r.role = Role::Scratch;
  k_.scratch.push_back({r.name, dt, shape});
  refs_.push_back(r);
  return refs_.back();
}

std::string Builder::add_sem(bool dma, int64_t count) {
  Sem s;
  s.name = fresh(dma ? "d" : "g");
  s.dma = dma;
  s.count = count;
  k_.sems.push_back(s);
  return s.name;
}

SemRef Builder::sem_ref(const std::string& name, int64_t count) {
  SemRef r;
  r.name = name;
  if (count > 0) r.index = ch_.coin() ? int_lit(ch_.range(0, count - 1), false) : index_expr(count);
  return r;
}

View Builder::full_view(const RefState& r) {
  View v;
  v.ref = r.name;
  v.ellipsis = ch_.coin();
  return v;
}

View Builder::block_view(const RefState& r) {
  View v;
  v.ref = r.name;
  v.entries = r.block;
  if (!r.block_shape.empty() && ch_.coin()) v.ellipsis = true;
  return v;
}

bool Builder::dma_source(DType dt, const Shape& shape, bool need_exact, View& out, RefState** from) {
  std::vector<RefState*> candidates;
  for (RefState& r : refs_) {
    if (r.dtype != dt || r.busy || !r.written) continue;
    if (need_exact && is_float(dt) && !r.exact) continue;
    if (r.role == Role::Input || r.role == Role::Scratch) candidates.push_back(&r);
  }
  for (int attempt = 0; attempt < 3 && !candidates.empty(); ++attempt) {
    RefState& r = *candidates[ch_.below(candidates.size())];
    out = View{};
    out.ref = r.name;
    if (view_entries(r.shape, shape, out.entries, true)) {
      *from = &r;
      return true;
    }
  }
  // A new input with room around the view.
  Shape big = shape;
  for (int64_t& d : big) d += ch_.range(0, 2);
  if (big.size() < 3 && ch_.coin()) big.insert(big.begin() + static_cast<int64_t>(ch_.below(big.size() + 1)), ch_.range(1, 3));
  if (big.empty()) big.push_back(ch_.range(1, 4));
  RefState& r = add_input(dt, big);
  out = View{};
  out.ref = r.name;
  *from = &r;
  return view_entries(r.shape, shape, out.entries, true);
}

void Builder::let_binding(int depth) {
  const DType dt = ch_.chance(10) ? DType::Bool : pick_dtype();
  const Shape shape = random_shape(2, 16);
  Stmt s;
  s.kind = Stmt::Kind::Let;
  s.name = fresh("v");
  s.expr = expr(dt, shape, depth);
  scopes_.back().push_back({s.name, dt, shape});
  emit(s);
}

RefState& Builder::acc_for(DType dt, int64_t terms) {
  std::vector<RefState*> accs;
  for (RefState& r : refs_) {
    if (r.role == Role::Acc && r.dtype == dt && (!is_float(dt) || r.terms + terms <= kExactFloatTerms)) accs.push_back(&r);
  }
  if (!accs.empty() && ch_.coin()) {
    RefState& r = *accs[ch_.below(accs.size())];
    r.terms += terms;
    return r;
  }
  Param p;
  p.name = fresh("acc");
  p.mode = Mode::InOut;
  p.dtype = dt;
  p.shape = random_shape(2, 16);
  if (p.shape.empty()) p.shape.push_back(ch_.range(1, 6));
  init_data(p, false);
  RefState& r = add_param(p, Role::Acc);
  r.terms = terms;
  return r;
}

View Builder::part_view(const RefState& r, int64_t max_elems, Shape& shape_out) {
  View v;
  v.ref = r.name;
  shape_out = random_shape(static_cast<int>(r.shape.size()), max_elems);
  if (!view_entries(r.shape, shape_out, v.entries, true)) {
    shape_out = r.shape;
    v.entries.clear();
  }
  return v;
}

std::vector<RefState*> Builder::idle_written_blocks() {
  std::vector<RefState*> out;
  for (RefState& r : refs_) {
    if (r.role == Role::Block && r.written && !r.busy) out.push_back(&r);
  }
  return out;
}

void Builder::make_compound(Stmt& s) {
  s.compound = true;
  const BinOp ops[] = {BinOp::Add, BinOp::Sub, BinOp::Mul};
  s.op = ops[ch_.below(3)];
}

void Builder::dma_then_wait(const View& src, const View& dst, bool add, const std::vector<RefState*>& busy,
                            int let_depth) {
  Stmt start = dma_start_stmt(src, dst, sem_ref(add_sem(true), 0));
  start.add = add;
  emit(start);
  for (RefState* r : busy) r->busy = true;
  if (ch_.coin()) let_binding(let_depth);
  emit(dma_wait_stmt(start.sem, ch_.coin() ? dst : src));
  for (RefState* r : busy) r->busy = false;
}

// --- phases -----------------------------------------------------------------

void Builder::phase_store() {
  std::vector<RefState*> written = idle_written_blocks();
  Stmt s;
  s.kind = Stmt::Kind::Store;
  if (written.empty() || ch_.chance(40)) {
    RefState& r = add_block_out(pick_dtype());
    s.view = block_view(r);
    s.expr = expr(r.dtype, r.block_shape, 3);
    emit(s);
    r.written = true;
    return;
  }
  RefState& r = *written[ch_.below(written.size())];
  Shape shape;
  s.view = sub_view(r, shape);
  s.expr = expr(r.dtype, shape, 3);
  if (ch_.chance(40)) make_compound(s);
  emit(s);
}

void Builder::phase_masked_store() {
  std::vector<RefState*> targets;
  for (RefState& r : refs_) {
    if (r.role == Role::Block && r.written && !r.busy && r.block_shape.size() == 1 &&
        r.block.back().kind == IndexEntry::Kind::Scalar) {
      targets.push_back(&r);
    }
  }
  if (targets.empty()) return phase_store();
  RefState& r = *targets[ch_.below(targets.size())];
  // store(o[pid, ds(start, n)], v, mask=iota + start < len): the slice may
  // run past the end; masked-off elements are neither read nor written.
  const int64_t len = r.block_shape[0], n = ch_.range(1, len);
  Stmt s;
  s.kind = Stmt::Kind::MaskedStore;
  s.view.ref = r.name;
  s.view.entries = r.block;
  s.view.entries.push_back(masked_ds(len, n, s.mask));
  s.expr = expr(r.dtype, {n}, 2);
  emit(s);
}

void Builder::phase_loop() {
  RefState& target = add_block_out(pick_dtype());
  const DType dt = target.dtype;
  const Shape shape = target.block_shape;
  Stmt var;
  var.kind = Stmt::Kind::Var;
  var.name = fresh("acc");
  var.expr = ch_.coin() ? static_cast<ExprPtr>([&] {
    auto z = node(Expr::Kind::Full, dt, shape);
    z->name = "zeros";
    return z;
  }())
                        : expr(dt, shape, 1);
  emit(var);
  Stmt loop;
  loop.kind = Stmt::Kind::For;
  loop.name = fresh("it");
  const int64_t lo = ch_.range(0, 2);
  loop.step = ch_.chance(30) ? ch_.range(2, 3) : 1;
  loop.expr = int_lit(lo, false);
  // At least one iteration; sometimes a bound read from the grid.
  int64_t hi;
  if (ch_.chance(30)) {
    loop.hi = binary_node(BinOp::Add, launch_node(Expr::Kind::NumPrograms, 0), int_lit(lo + 1, true));
    hi = k_.grid[0] + lo + 1;
  } else {
    hi = lo + ch_.range(1, 4);
    loop.hi = int_lit(hi, false);
  }
  const int64_t iterations = (hi - lo + loop.step - 1) / loop.step;
  repeat_ *= iterations;
  Block* outer = out_;
  const std::string outer_loop = loop_var_;
  out_ = &loop.body;
  scopes_.emplace_back();
  scopes_.back().push_back({loop.name, DType::I32, {}});
  loop_var_ = loop.name;
  ++loop_depth_;
  if (ch_.coin()) let_binding(2);
  if (ch_.chance(30)) phase_accumulate();
  if (ch_.chance(20)) phase_store();
  Stmt update;
  update.kind = Stmt::Kind::Assign;
  update.name = var.name;
  update.expr = expr(dt, shape, 2);
  if (ch_.coin()) make_compound(update);
  emit(update);
  --loop_depth_;
  repeat_ /= iterations;
  loop_var_ = outer_loop;
  scopes_.pop_back();
  out_ = outer;
  emit(loop);
  Stmt store;
  store.kind = Stmt::Kind::Store;
  store.view = block_view(target);
  store.expr = name_node(var.name, dt, shape);
  emit(store);
  target.written = true;
  // The var is readable afterwards too.
  scopes_.back().push_back({var.name, dt, shape});
}

void Builder::phase_if() {
  RefState& target = add_block_out(pick_dtype());
  Stmt s;
  s.kind = Stmt::Kind::If;
  if (ch_.coin()) {
    s.expr = binary_node(BinOp::Eq, binary_node(BinOp::Rem, pid(), int_lit(2, true)), int_lit(0, true));
  } else {
    s.expr = bool_expr({}, 2);
  }
  for (Block* branch : {&s.body, &s.else_body}) {
    Block* outer = out_;
    out_ = branch;
    scopes_.emplace_back();
    if (ch_.coin()) let_binding(2);
    Stmt store;
    store.kind = Stmt::Kind::Store;
    store.view = block_view(target);
    store.expr = expr(target.dtype, target.block_shape, 3);
    emit(store);
    scopes_.pop_back();
    out_ = outer;
  }
  emit(s);
  target.written = true;
}

void Builder::phase_dma_in() {
  const DType dt = pick_dtype();
  Shape shape = random_shape(3, 24);
  if (shape.empty()) shape.push_back(ch_.range(1, 5));
  RefState& scr = add_scratch(dt, shape);
  View dst;
  dst.ref = scr.name;
  Shape moved = shape;
  if (ch_.coin()) {
    dst.ellipsis = ch_.coin();
  } else {
    // A partial view of the scratch: initialise it all first.
    Stmt init;
    init.kind = Stmt::Kind::Store;
    init.view = full_view(scr);
    init.expr = expr(dt, shape, 2);
    emit(init);
    scr.written = true;
    dst = part_view(scr, 24, moved);
  }
  const bool partial = scr.written;
  View src;
  RefState* from = nullptr;
  // Never the scratch itself: a DMA whose source and destination overlap
  // is a race (spec section 7), reported at run time.
  scr.busy = true;
  if (!dma_source(dt, moved, false, src, &from)) {
    scr.busy = false;
    return;
  }
  dma_then_wait(src, dst, false, {&scr}, 2);
  // Exact (a source for float accumulation) only when filled from inputs alone.
  scr.exact = !partial && from->exact;
  scr.written = true;
}

void Builder::phase_dma_out() {
  std::vector<RefState*> written = idle_written_blocks();
  RefState* target;
  View dst;
  Shape shape;
  if (written.empty() || ch_.coin()) {
    target = &add_block_out(pick_dtype());
    dst = block_view(*target);
    shape = target->block_shape;
  } else {
    target = written[ch_.below(written.size())];
    dst = sub_view(*target, shape);
  }
  View src;
  RefState* from = nullptr;
  if (!dma_source(target->dtype, shape, false, src, &from)) return;
  dma_then_wait(src, dst, false, {target, from}, 2);
  target->written = true;
}

void Builder::phase_dma_group() {
  // Several DMAs in flight on one semaphore, of different sizes, retired in
  // start order; every destination is fresh (or an accumulation).
  const int64_t count = ch_.range(2, 4);
  const int64_t sem_count = ch_.coin() ? ch_.range(2, 3) : 0;
  const std::string sem = add_sem(true, sem_count);
  const SemRef ref = sem_ref(sem, sem_count);
  std::vector<Stmt> waits;
  std::vector<RefState*> busy;
  for (int64_t i = 0; i < count; ++i) {
    const DType dt = ch_.coin() && !dtypes_.empty() ? pick_dtype() : pick_any_dtype();
    Stmt start;
    start.kind = Stmt::Kind::DmaStart;
    start.sem = ref;
    RefState* target = nullptr;
    Shape shape;
    const uint64_t kind = ch_.below(3);
    if (kind == 0) {
      shape = random_shape(3, 24);
      if (shape.empty()) shape.push_back(ch_.range(1, 4));
      target = &add_scratch(dt, shape);
      start.dst = full_view(*target);
    } else if (kind == 1) {
      target = &add_block_out(dt);
      shape = target->block_shape;
      start.dst = block_view(*target);
    } else {
      // An accumulation into a shared inout ref.
      RefState* acc = &acc_for(dt, programs_);
      start.dst = part_view(*acc, 16, shape);
      start.add = true;
      target = acc;
    }
    RefState* from = nullptr;
    if (!dma_source(dt, shape, start.add, start.view, &from)) continue;
    emit(start);
    if (target->role != Role::Acc) {
      target->busy = true;
      busy.push_back(target);
    }
    from->busy = true;
    busy.push_back(from);
    waits.push_back(dma_wait_stmt(ref, ch_.coin() ? start.dst : start.view));
    if (target->role != Role::Acc) target->written = true;
  }
  if (ch_.coin()) let_binding(2);
  for (Stmt& w : waits) emit(w);
  for (RefState* r : busy) r->busy = false;
}

void Builder::phase_accumulate() {
  // dma_start(src, acc[view], s, add=true): programs (and devices) may add
  // into the same elements; float sources are exact so any order agrees.
  DType dt = pick_dtype();
  if (is_float(dt) && programs_ * repeat_ > kExactFloatTerms) dt = DType::I32;
  RefState* acc = &acc_for(dt, programs_ * repeat_);
  Shape shape;
  const View dst = part_view(*acc, 16, shape);
  View src;
  RefState* from = nullptr;
  if (!dma_source(dt, shape, true, src, &from)) return;
  dma_then_wait(src, dst, true, {from}, 1);
}

void Builder::phase_regular_sem() {
  // A regular semaphore of this program: signals, a read of its value (known
  // to the model), and waits that bring it back to 0.
  const std::string sem = add_sem(false);
  int64_t total = 0;
  const int64_t signals = ch_.range(1, 3);
  for (int64_t i = 0; i < signals; ++i) {
    Stmt s;
    s.kind = Stmt::Kind::SemSignal;
    s.sem.name = sem;
    const int64_t amount = ch_.range(1, 3);
    if (amount != 1 || ch_.coin()) s.expr = int_lit(amount, false);
    total += amount;
    emit(s);
  }
  auto read = node(Expr::Kind::SemRead, DType::I32, {});
  read->name = sem;
  Stmt let;
  let.kind = Stmt::Kind::Let;
  let.name = fresh("v");
  let.expr = binary_node(BinOp::Add, read, int_lit(0, true));
  emit(let);
  scopes_.back().push_back({let.name, DType::I32, {}});
  Stmt check;
  check.kind = Stmt::Kind::Assert;
  check.expr = binary_node(BinOp::Eq, read, int_lit(total, true));
  emit(check);
  while (total > 0) {
    const int64_t amount = ch_.range(1, total);
    Stmt w;
    w.kind = Stmt::Kind::SemWait;
    w.sem.name = sem;
    if (amount != 1 || ch_.coin()) w.expr = int_lit(amount, false);
    emit(w);
    total -= amount;
  }
}

}  // namespace kdt::gen

namespace kdt::gen {

void Builder::ensure_outputs() {
  for (const RefState& r : refs_) {
    if (r.role == Role::Block || r.role == Role::Acc || r.role == Role::Shared) return;
  }
  phase_store();
}

Built Builder::build() {
  k_.name = "generated";
  k_.devices = ch_.chance(20) ? static_cast<int>(ch_.range(2, 3)) : 1;
  if (ch_.chance(30)) {
    k_.grid = {ch_.range(1, 3), ch_.range(1, 3)};
  } else {
    k_.grid = {ch_.range(1, 4)};
  }
  programs_ = element_count(k_.grid);
  // A few working dtypes, integers more often (their results are exact).
  const DType ints[] = {DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64};
  const DType floats[] = {DType::F16, DType::BF16, DType::F32, DType::F64};
  const int64_t ndt = ch_.range(1, 3);
  for (int64_t i = 0; i < ndt; ++i) {
    dtypes_.push_back(ch_.chance(65) ? ints[ch_.below(8)] : floats[ch_.below(4)]);
  }
  out_ = &k_.body;
  const int64_t inputs = ch_.range(1, 3);
  for (int64_t i = 0; i < inputs; ++i) {
    Shape s = random_shape(3, 48);
    if (s.empty()) s.push_back(ch_.range(1, 6));
    add_input(pick_dtype(), s);
  }
  // let pid = the program's flat index.
  Stmt let;
  let.kind = Stmt::Kind::Let;
  let.name = "pid";
  ExprPtr p0 = launch_node(Expr::Kind::ProgramId, 0);
  if (k_.grid.size() == 2) {
    let.expr = binary_node(BinOp::Add, binary_node(BinOp::Mul, p0, int_lit(k_.grid[1], true)),
                           launch_node(Expr::Kind::ProgramId, 1));
  } else {
    let.expr = p0;
  }
  emit(let);
  scopes_.back().push_back({"pid", DType::I32, {}});

  const bool racy = ch_.chance(8);
  const int64_t phases = ch_.range(2, 6);
  const int64_t racy_at = racy ? ch_.range(0, phases - 1) : -1;
  // A deliberate protocol bug in some kernels that are not racy already.
  const int64_t bug_at = !racy && ch_.chance(8) ? ch_.range(0, phases - 1) : -1;
  for (int64_t i = 0; i < phases; ++i) {
    if (i == racy_at) phase_racy();
    if (i == bug_at) phase_protocol_bug();
    const uint64_t kind = ch_.below(k_.devices > 1 ? 15 : 12);
    switch (kind) {
      case 0: case 1: phase_store(); break;
      case 2: phase_loop(); break;
      case 3: phase_if(); break;
      case 4: phase_dma_in(); break;
      case 5: phase_dma_out(); break;
      case 6: phase_dma_group(); break;
      case 7: phase_accumulate(); break;
      case 8: phase_regular_sem(); break;
      case 9: phase_masked_store(); break;
      case 10: let_binding(3); break;
      case 11: phase_dma_in(); phase_store(); break;
      case 12: phase_ring(); break;
      case 13: phase_remote_add(); break;
      default: phase_barrier(); break;
    }
  }
  ensure_outputs();
  Built b;
  b.kernel = std::move(k_);
  b.racy = racy_;
  b.bug = bug_;
  return b;
}

}  // namespace kdt::gen
