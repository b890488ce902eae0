// Lowers the checked AST to the kernel IR: names resolve to refs,
// semaphores and locals; literals get their final dtypes; views become
// explicit per-dimension element sets; built-in calls become IR nodes.
#include "kdt/ir/lower.h"

#include "block_specs.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

namespace kdt {

namespace {

using ir::ExprKind;
using ir::ExprPtr;

DType default_dtype(const Type& t) { return is_float(t.dtype) ? DType::F32 : t.dtype; }

class Lowerer {
 public:
  explicit Lowerer(const ast::Kernel& k) : ast_(k) {}

  ir::Kernel run() {
    k_.kd_name = ast_.name.text;
    k_.name = k_.kd_name;
    k_.range = ast_.range;
    k_.body_range = ast_.body.range;
    k_.devices = ast_.devices;
    k_.mesh = ast_.mesh;
    k_.mesh_axes = ast_.mesh_axes;
    k_.threads = ast_.threads;
    for (const ast::Param& p : ast_.params) {
      if (p.mode == ast::ParamMode::Scalar) {
        scalars_[p.symbol] = static_cast<int>(k_.scalars.size());
        k_.params.emplace_back(false, static_cast<int>(k_.scalars.size()));
        k_.scalars.push_back({unique_name(p.name.text), p.name.text, p.scalar_dtype});
        continue;
      }
      ir::Ref r;
      r.name = unique_name(p.name.text);
      r.kd_name = p.name.text;
      r.dtype = p.symbol->type.dtype;
      r.shape = p.block ? p.block->array_shape : p.symbol->type.shape;
      r.is_param = true;
      r.writable = p.mode != ast::ParamMode::In;
      r.is_output = p.mode != ast::ParamMode::In;
      r.starts_uninitialized = p.mode == ast::ParamMode::Out;
      refs_[p.symbol] = static_cast<int>(k_.refs.size());
      k_.params.emplace_back(true, static_cast<int>(k_.refs.size()));
      k_.refs.push_back(r);
    }
    current_ = &k_.body;
    lower_grid_axes();
    std::vector<ir::BlockSpecPlan> specs = plan_block_specs();
    ir::Block body;
    current_ = &body;
    for (const ast::StmtPtr& s : ast_.body.stmts) lower_stmt(*s);  // the kernel body is no scope
    if (sequence_.axes.empty() && specs.empty()) {
      for (ir::StmtPtr& s : body) k_.body.push_back(std::move(s));
    } else {
      lower_block_indices(specs);
      auto new_local = [&](const std::string& name, DType dtype, bool is_mutable) {
        return temp_local(name, Type::value(dtype), is_mutable);
      };
      for (ir::StmtPtr& s : ir::lower_block_specs(k_, sequence_, specs, std::move(body), new_local)) {
        k_.body.push_back(std::move(s));
      }
    }
    current_ = &k_.body;
    // Semaphores a `device=` DMA or signal names: peers may raise them, so a
    // scope's exit does not require them at 0.
    ir::for_each_stmt(k_.body, [&](const ir::Stmt& s) {
      if (s.device && (s.kind == ir::StmtKind::DmaStart || s.kind == ir::StmtKind::SemSignal)) {
        k_.sems[s.sem.sem].peer_raised = true;
      }
    });
    return std::move(k_);
  }

 private:
  // ----- grid axes and block specs (section 13; the pipeline is block_specs.cpp)

  // Parallel axes are the launch's grid; a named one is a `let` of its
  // program_id. Sequential axes are locals of the step loop.
  void lower_grid_axes() {
    const Type i32 = Type::value(DType::I32);
    for (const ast::GridAxis& axis : ast_.axes) {
      AxisBinding b;
      if (axis.sequential) {
        b.local = temp_local(axis.name, i32);
        sequence_.axes.push_back({b.local, temp_local(axis.name + "_next", i32), axis.extent});
        k_.steps.push_back(axis.extent);
        if (sequence_.axes.size() == 1) sequence_.range = axis_range(axis);
      } else {
        b.parallel = static_cast<int>(k_.grid.size());
        k_.grid.push_back(axis.extent);
        if (axis.symbol) {
          b.local = temp_local(axis.name, i32);
          auto id = make(ExprKind::ProgramId, i32, axis_range(axis));
          id->index = b.parallel;
          push_let(b.local, std::move(id), axis_range(axis));
        }
      }
      if (axis.symbol) locals_[axis.symbol] = b.local;
      axes_.push_back(b);
    }
    if (k_.grid.empty()) k_.grid = {1};  // every axis sequential: one program
    if (sequence_.axes.size() > 1) sequence_.step = temp_local("step", i32);
  }

  SourceRange axis_range(const ast::GridAxis& axis) const {
    return axis.symbol ? axis.symbol->range : ast_.range;
  }

  // Each block-spec parameter: its double buffer (scratch after every
  // parameter), one semaphore per buffer, and the name bound to the buffer
  // of the current step.
  std::vector<ir::BlockSpecPlan> plan_block_specs() {
    std::vector<ir::BlockSpecPlan> specs;
    const bool looped = !sequence_.axes.empty();
    const int64_t buffers = looped ? 2 : 1;
    for (const ast::Param& p : ast_.params) {
      if (!p.block || !p.symbol->block_spec) continue;
      ir::BlockSpecPlan plan;
      plan.name = p.name.text;
      plan.array = refs_.at(p.symbol);
      plan.block = p.block->shape;
      plan.copy_in = p.mode != ast::ParamMode::Out;
      plan.write_back = p.mode != ast::ParamMode::In;
      plan.range = p.block->range;
      const std::string array = k_.refs[plan.array].name;  // a copy: k_.refs grows below
      ir::Ref r;
      r.name = unique_name(array + "_blocks");
      r.kd_name = r.name;
      r.block_of = p.name.text;
      r.dtype = k_.refs[plan.array].dtype;
      r.shape = plan.block;
      r.shape.insert(r.shape.begin(), buffers);
      r.space = MemSpace::Shared;
      r.starts_uninitialized = true;
      plan.buffers = static_cast<int>(k_.refs.size());
      k_.refs.push_back(r);
      ir::Semaphore sem;
      sem.name = unique_name(array + "_sems");
      sem.kd_name = sem.name;
      sem.is_array = true;
      sem.count = buffers;
      plan.sems = static_cast<int>(k_.sems.size());
      k_.sems.push_back(sem);
      ir::View v;
      v.ref = plan.buffers;
      ir::ViewDim lead;
      lead.dropped = true;
      if (looped) {
        plan.slot = temp_local(array + "_slot", Type::value(DType::I32), true);
        lead.start = local_ref(plan.slot, plan.range);
      }
      v.dims.push_back(std::move(lead));
      for (int64_t b : plan.block) {
        ir::ViewDim dim;
        dim.size = b;
        v.dims.push_back(std::move(dim));
      }
      ref_args_[p.symbol] = std::move(v);
      specs.push_back(std::move(plan));
    }
    return specs;
  }

  // The block indices in the current step and, with a sequence, in the
  // next one (the axis names bound to the next step's values).
  void lower_block_indices(std::vector<ir::BlockSpecPlan>& specs) {
    size_t i = 0;
    for (const ast::Param& p : ast_.params) {
      if (!p.block || !p.symbol->block_spec) continue;
      ir::BlockSpecPlan& plan = specs[i++];
      for (const ast::ExprPtr& e : p.block->index) plan.index.push_back(lower_expr(*e, DType::I32));
      if (sequence_.axes.empty()) continue;
      rebind_sequence(true);
      for (const ast::ExprPtr& e : p.block->index) plan.next_index.push_back(lower_expr(*e, DType::I32));
      rebind_sequence(false);
    }
  }

  void rebind_sequence(bool next) {
    size_t s = 0;
    for (size_t a = 0; a < ast_.axes.size(); ++a) {
      if (!ast_.axes[a].sequential) continue;
      const ir::SequentialAxis& axis = sequence_.axes[s++];
      axes_[a].local = next ? axis.next_local : axis.local;
      if (ast_.axes[a].symbol) locals_[ast_.axes[a].symbol] = axes_[a].local;
    }
  }

  std::string unique_name(const std::string& spelled) {
    // KD's spelling, unique within the kernel (a shadowed name gets a
    // suffix); the emitters rename what C++ or CUDA cannot hold
    // (emit/target_names.h).
    std::string name = spelled;
    for (int n = 2; taken_.count(name); ++n) name = spelled + "_" + std::to_string(n);
    taken_.insert(name);
    return name;
  }

  int new_local(const Symbol* s, const Type& type, bool is_mutable) {
    int id = static_cast<int>(k_.locals.size());
    k_.locals.push_back({unique_name(s->name), type, is_mutable, false, s->name});
    locals_[s] = id;
    return id;
  }

  // A local that no KD binding declares: a call's bound argument or result.
  int temp_local(const std::string& name, const Type& type, bool is_mutable = false) {
    int id = static_cast<int>(k_.locals.size());
    k_.locals.push_back({unique_name(name), type, is_mutable, false, name});
    return id;
  }

  void push_let(int local, ExprPtr value, SourceRange range) {
    auto s = stmt(ir::StmtKind::Let, range);
    s->local = local;
    s->value = std::move(value);
    current_->push_back(std::move(s));
  }

  ir::StmtPtr stmt(ir::StmtKind kind, SourceRange range) {
    auto s = std::make_unique<ir::Stmt>();
    s->kind = kind;
    s->range = range;
    s->call = call_;
    return s;
  }

  // Every block but the kernel body is a scope for the scratch and
  // semaphores declared in it (section 17).
  void lower_block(const ast::Block& block) {
    open_scope();
    for (const ast::StmtPtr& s : block.stmts) lower_stmt(*s);
    close_scope(block.range);
  }

  void open_scope() { scopes_.emplace_back(); }

  // Ends the innermost scope where `block` ends: its checks, when it declared anything.
  void close_scope(SourceRange block) {
    Scope scope = std::move(scopes_.back());
    scopes_.pop_back();
    if (scope.refs.empty() && scope.sems.empty()) return;
    auto out = stmt(ir::StmtKind::ScopeExit, SourceRange{block.file, block.end - 1, block.end});
    out->scope_refs = std::move(scope.refs);
    out->scope_sems = std::move(scope.sems);
    current_->push_back(std::move(out));
  }

  ir::Block lower_nested(const ast::Block& block) {
    ir::Block out;
    ir::Block* saved = current_;
    current_ = &out;
    lower_block(block);
    current_ = saved;
    return out;
  }

  void lower_stmt(const ast::Stmt& s) {
    using K = ast::Stmt::Kind;
    switch (s.kind) {
      case K::Scratch: {
        const Symbol* sym = s.declared[0];
        ir::Ref r;
        r.name = unique_name(sym->name);
        r.kd_name = sym->name;
        r.dtype = sym->type.dtype;
        r.shape = sym->type.shape;
        r.space = MemSpace::Shared;
        r.starts_uninitialized = true;
        const int ref = static_cast<int>(k_.refs.size());
        refs_[sym] = ref;
        k_.refs.push_back(r);
        if (!scopes_.empty()) {
          // Scoped scratch: one buffer for every entry, uninitialised at each.
          scopes_.back().refs.push_back(ref);
          auto enter = stmt(ir::StmtKind::ScopeEnter, s.range);
          enter->scope_refs = {ref};
          current_->push_back(std::move(enter));
        }
        return;
      }
      case K::Sem: {
        const Symbol* sym = s.declared[0];
        ir::Semaphore sem;
        sem.name = unique_name(sym->name);
        sem.kd_name = sym->name;
        sem.kind = sym->type.sem_kind;
        sem.is_array = sym->type.detail().sem_count >= 0;
        sem.count = sem.is_array ? sym->type.detail().sem_count : 1;
        if (sym->type.detail().sem_cols >= 0) {
          sem.cols = sym->type.detail().sem_cols;
          sem.count *= sem.cols;
        }
        sems_[sym] = static_cast<int>(k_.sems.size());
        if (!scopes_.empty()) scopes_.back().sems.push_back(static_cast<int>(k_.sems.size()));
        k_.sems.push_back(sem);
        return;
      }
      case K::Let:
      case K::Var: {
        const Symbol* sym = s.declared[0];
        if (sym->type.kind == Type::Kind::Dma) {
          descriptors_[sym] = lower_bound_descriptor(*s.value);
          return;
        }
        ExprPtr value = lower_expr(*s.value, default_dtype(sym->type));
        auto out = stmt(ir::StmtKind::Let, s.range);
        out->local = new_local(sym, value->type, s.kind == K::Var);
        out->value = std::move(value);
        current_->push_back(std::move(out));
        return;
      }
      case K::LetTuple: {
        if (s.value->instance) {
          std::vector<Returned> results = lower_inline(*s.value);
          for (size_t i = 0; i < s.declared.size(); ++i) {
            if (results[i].descriptor) {
              descriptors_[s.declared[i]] = std::move(*results[i].descriptor);
              continue;
            }
            auto out = stmt(ir::StmtKind::Let, s.range);
            out->local = new_local(s.declared[i], k_.locals[results[i].local].type, false);
            out->value = local_ref(results[i].local, s.value->range);
            current_->push_back(std::move(out));
          }
          return;
        }
        int asm_id = lower_asm(*s.value);
        for (size_t i = 0; i < s.declared.size(); ++i) {
          auto out = stmt(ir::StmtKind::Let, s.range);
          auto value = asm_output(asm_id, static_cast<int>(i), s.value->range);
          out->local = new_local(s.declared[i], value->type, false);
          out->value = std::move(value);
          current_->push_back(std::move(out));
        }
        return;
      }
      case K::Assign: {
        const ast::Expr& target = *s.target;
        ir::StoreOp op = static_cast<ir::StoreOp>(static_cast<int>(s.assign_op));
        if (target.kind == ast::Expr::Kind::Name) {
          int local = locals_.at(target.symbol);
          // A copy: lowering the value may add locals (an asm's operands)
          // and reallocate k_.locals.
          const Type t = k_.locals[local].type;
          ExprPtr value = lower_expr(*s.value, t.dtype);
          if (op != ir::StoreOp::Assign) {
            static const ir::BinaryOp ops[] = {ir::BinaryOp::Add, ir::BinaryOp::Add, ir::BinaryOp::Sub,
                                               ir::BinaryOp::Mul};
            value = binary(ops[static_cast<int>(op)], local_ref(local, s.range), std::move(value), t, s.range);
          }
          auto out = stmt(ir::StmtKind::Assign, s.range);
          out->local = local;
          out->value = std::move(value);
          current_->push_back(std::move(out));
          return;
        }
        auto out = stmt(ir::StmtKind::Store, s.range);
        out->view = lower_view(target);
        out->value = lower_expr(*s.value, target.symbol->type.dtype);
        out->store_op = op;
        current_->push_back(std::move(out));
        return;
      }
      case K::For: {
        auto out = stmt(ir::StmtKind::For, s.range);
        out->lo = lower_expr(*s.lo, DType::I32);
        out->hi = lower_expr(*s.hi, DType::I32);
        out->step = s.step ? s.step->const_value.value_or(1) : 1;
        out->local = new_local(s.declared[0], Type::value(DType::I32), false);
        out->body = lower_nested(s.body);
        current_->push_back(std::move(out));
        return;
      }
      case K::While: {
        auto out = stmt(ir::StmtKind::While, s.range);
        ir::Block prelude;
        out->value = lower_with_prelude(*s.value, DType::Bool, prelude);
        if (prelude.empty()) {
          out->body = lower_nested(s.body);
          current_->push_back(std::move(out));
          return;
        }
        // The condition calls a function: `P; var go = c; while go { body; P; go = c; }`.
        for (ir::StmtPtr& p : prelude) current_->push_back(std::move(p));
        int go = temp_local("while_cond", Type::value(DType::Bool), true);
        push_let(go, std::move(out->value), s.value->range);
        out->value = local_ref(go, s.value->range);
        out->body = lower_nested(s.body);
        ir::Block* saved = current_;
        current_ = &out->body;
        auto again = stmt(ir::StmtKind::Assign, s.value->range);
        again->local = go;
        again->value = lower_expr(*s.value, DType::Bool);
        current_->push_back(std::move(again));
        current_ = saved;
        current_->push_back(std::move(out));
        return;
      }
      case K::If: lower_if(s, 0); return;
      case K::Assert: {
        auto out = stmt(ir::StmtKind::Assert, s.range);
        out->value = lower_expr(*s.value, DType::Bool);
        out->message = s.message.value_or("");
        current_->push_back(std::move(out));
        return;
      }
      case K::Expr: lower_effect(*s.value, s.range); return;
      case K::Block: lower_block(s.body); return;
      case K::Return: return;  // lower_inline binds a function's results
    }
  }

  // Calls (and asm blocks) in statement position.
  void lower_effect(const ast::Expr& e, SourceRange range) {
    if (e.kind == ast::Expr::Kind::Asm) {
      lower_asm(e);
      return;
    }
    if (e.instance) {
      lower_inline(e);  // a value it returns is discarded
      return;
    }
    const ResolvedCall& call = *e.call;
    auto positional = [&](size_t i) -> const ast::Expr& { return *call.positional[i]->value; };
    switch (call.id) {
      case BuiltinId::Store: {
        auto out = stmt(ir::StmtKind::Store, range);
        out->view = lower_view(positional(0));
        out->value = lower_expr(positional(1), positional(0).symbol->type.dtype);
        if (const ast::Expr* m = call.keyword(Keyword::Mask)) out->mask = lower_expr(*m, DType::Bool);
        current_->push_back(std::move(out));
        return;
      }
      case BuiltinId::DmaStart:
        if (call.positional.size() == 1) {
          start_descriptor(lower_descriptor(positional(0)), range);
          return;
        }
        [[fallthrough]];
      case BuiltinId::Dma: {
        if (call.id == BuiltinId::Dma) return;  // describes only: nothing moves
        auto out = stmt(ir::StmtKind::DmaStart, range);
        out->src = lower_view(positional(0));
        out->dst = lower_view(positional(1));
        out->sem = lower_sem(positional(2));
        if (call.keyword(Keyword::Add)) out->add = call.flag(Keyword::Add);
        if (const ast::Expr* d = call.keyword(Keyword::Device)) out->device = lower_expr(*d, DType::I32);
        if (const ast::Expr* s = call.keyword(Keyword::SrcSem)) out->src_sem = lower_sem(*s);
        out->bytes = bytes_of(*out->src);
        current_->push_back(std::move(out));
        return;
      }
      case BuiltinId::DmaWaitSend:
      case BuiltinId::DmaWaitRecv:
        wait_descriptor(lower_descriptor(positional(0)), call.id != BuiltinId::DmaWaitRecv,
                        call.id != BuiltinId::DmaWaitSend, range);
        return;
      case BuiltinId::DmaWait: {
        if (call.positional.size() == 1) {
          Descriptor d = lower_descriptor(positional(0));
          wait_descriptor(d, d.remote(), true, range);  // a remote one: its send, then its receive
          return;
        }
        auto out = stmt(ir::StmtKind::DmaWait, range);
        out->sem = lower_sem(positional(0));
        out->view = lower_view(positional(1));
        out->bytes = bytes_of(*out->view);
        current_->push_back(std::move(out));
        return;
      }
      case BuiltinId::SemSignal:
      case BuiltinId::SemWait: {
        auto out = stmt(call.id == BuiltinId::SemSignal ? ir::StmtKind::SemSignal : ir::StmtKind::SemWait, range);
        out->sem = lower_sem(positional(0));
        out->amount = call.positional.size() > 1 ? lower_expr(positional(1), DType::I32) : constant(DType::I32, 1, range);
        if (const ast::Expr* d = call.keyword(Keyword::Device)) out->device = lower_expr(*d, DType::I32);
        current_->push_back(std::move(out));
        return;
      }
      default: {
        // A value-producing call used as a statement: evaluate it for its checks.
        auto out = stmt(ir::StmtKind::Eval, range);
        out->value = lower_expr(e, default_dtype(e.type));
        current_->push_back(std::move(out));
        return;
      }
    }
  }

  int64_t bytes_of(const ir::View& v) {
    int64_t n = dtype_bytes(k_.refs[v.ref].dtype);
    for (int64_t d : v.shape()) n *= d;
    return n;
  }

  ir::SemRef lower_sem(const ast::Expr& e) {
    ir::SemRef r;
    ExprPtr first, second;
    if (e.kind == ast::Expr::Kind::Index) {
      first = lower_expr(*e.indices[0].first, DType::I32);
      if (e.indices.size() > 1) second = lower_expr(*e.indices[1].first, DType::I32);
    }
    auto bound = sem_args_.find(e.symbol);
    if (bound == sem_args_.end()) {
      r.sem = sems_.at(e.symbol);
      r.index = std::move(first);
      r.col = std::move(second);
      return r;
    }
    // A semaphore parameter: the argument's semaphore, indexed through it.
    const BoundSem& b = bound->second;
    r.sem = b.sem;
    if (b.index) r.index = copy_bound(*b.index);
    if (b.col) r.col = copy_bound(*b.col);
    if (b.row) r.col = std::move(first);  // a row of a 2-D array: the index picks the column
    else if (first) r.index = add_i32(std::move(r.index), std::move(first), e.range);
    return r;
  }

  ir::View lower_view(const ast::Expr& e) {
    auto bound = ref_args_.find(e.symbol);
    if (bound != ref_args_.end()) return compose_view(bound->second, e);
    ir::View v;
    v.ref = refs_.at(e.symbol);
    const Shape& shape = k_.refs[v.ref].shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      ir::ViewDim dim;
      dim.size = shape[d];
      const ast::IndexEntry* entry =
          e.kind == ast::Expr::Kind::Index && d < e.indices.size() ? &e.indices[d] : nullptr;
      if (entry && entry->kind == ast::IndexEntry::Kind::Ellipsis) entry = nullptr;
      if (entry) {
        switch (entry->kind) {
          case ast::IndexEntry::Kind::Scalar:
            dim.dropped = true;
            dim.size = 1;
            set_start(dim, *entry->first);
            break;
          case ast::IndexEntry::Kind::Slice:
            dim.static_start = entry->start;
            dim.size = entry->size;
            break;
          case ast::IndexEntry::Kind::DynSlice: {
            const ast::Expr& start = *entry->first->call->positional[0]->value;
            dim.size = entry->size;
            set_start(dim, start);
            break;
          }
          default: break;
        }
      }
      v.dims.push_back(std::move(dim));
    }
    return v;
  }

  void set_start(ir::ViewDim& dim, const ast::Expr& start) {
    if (start.const_value) dim.static_start = *start.const_value;
    else dim.start = lower_expr(start, DType::I32);
  }

  ExprPtr make(ExprKind kind, Type type, SourceRange range) {
    auto e = std::make_unique<ir::Expr>();
    e->kind = kind;
    e->type = std::move(type);
    e->type.weak = false;
    e->range = range;
    return e;
  }

  ExprPtr constant(DType dtype, int64_t value, SourceRange range) {
    auto e = make(ExprKind::Const, Type::value(dtype), range);
    e->int_value = value;
    e->float_value = static_cast<double>(value);
    return e;
  }

  ExprPtr local_ref(int local, SourceRange range) {
    auto e = make(ExprKind::Local, k_.locals[local].type, range);
    e->local = local;
    return e;
  }

  // This device's coordinate along mesh axis `axis` (section 15): the
  // linear id is row-major over the mesh.
  ExprPtr mesh_coordinate(size_t axis, SourceRange range) {
    const Type i32 = Type::value(DType::I32);
    int64_t stride = 1;
    for (size_t a = axis + 1; a < k_.mesh.size(); ++a) stride *= k_.mesh[a];
    ExprPtr id = make(ExprKind::DeviceId, i32, range);
    if (stride > 1) id = binary(ir::BinaryOp::Div, std::move(id), constant(DType::I32, stride, range), i32, range);
    if (axis > 0) id = binary(ir::BinaryOp::Rem, std::move(id), constant(DType::I32, k_.mesh[axis], range), i32, range);
    return id;
  }

  // `device=(d0, d1)` or `device=(y: e)`: one coordinate per axis, this
  // device's own where a named list leaves one out.
  ExprPtr mesh_device(const ast::Expr& coords) {
    std::vector<ExprPtr> per_axis(k_.mesh.size());
    for (size_t i = 0; i < coords.args.size(); ++i) {
      const ast::Arg& c = coords.args[i];
      size_t axis = i;
      if (c.kind == ast::Arg::Kind::Keyword) {
        axis = static_cast<size_t>(std::find(k_.mesh_axes.begin(), k_.mesh_axes.end(), c.keyword.text) -
                                   k_.mesh_axes.begin());
      }
      per_axis[axis] = lower_expr(*c.value, DType::I32);
    }
    auto x = make(ExprKind::MeshDevice, Type::value(DType::I32), coords.range);
    for (size_t a = 0; a < per_axis.size(); ++a) {
      x->operands.push_back(per_axis[a] ? std::move(per_axis[a]) : mesh_coordinate(a, coords.range));
    }
    return x;
  }

  ExprPtr binary(ir::BinaryOp op, ExprPtr a, ExprPtr b, const Type& type, SourceRange range) {
    auto e = make(ExprKind::Binary, type, range);
    e->binary = op;
    e->operands.push_back(std::move(a));
    e->operands.push_back(std::move(b));
    return e;
  }

  ExprPtr asm_output(int asm_id, int index, SourceRange range) {
    const ir::AsmBlock& a = k_.asms[asm_id];
    auto e = make(ExprKind::AsmOutput, Type::value(a.outputs[index].second, a.shape), range);
    e->asm_id = asm_id;
    e->index = index;
    return e;
  }

  // Lowers an asm block into an AsmStmt placed before the current statement.
  int lower_asm(const ast::Expr& e) {
    const ast::AsmBlock& a = *e.asm_block;
    ir::AsmBlock out;
    out.ptx = a.joined_template();
    out.is_volatile = a.is_volatile;
    out.clobbers = a.clobbers;
    out.range = e.range;
    Shape shape;
    for (const ast::AsmOperand& in : a.inputs) {
      ExprPtr v = lower_expr(*in.value, in.dtype);
      if (auto s = broadcast_shapes(shape, v->type.shape)) shape = *s;
      out.input_values.push_back(std::move(v));
      out.input_names.push_back(in.name.text);
    }
    out.shape = shape;
    for (const ast::AsmOperand& o : a.outputs) out.output_names.push_back(o.name.text);
    // Operand locals are scalars: the fallback runs once per element.
    for (size_t i = 0; i < a.inputs.size(); ++i) {
      int local = -1;
      if (i < a.input_symbols.size()) local = new_local(a.input_symbols[i], Type::value(a.inputs[i].dtype), false);
      out.inputs.emplace_back(local, a.inputs[i].dtype);
    }
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      int local = -1;
      if (i < a.output_symbols.size()) local = new_local(a.output_symbols[i], Type::value(a.outputs[i].dtype), true);
      out.outputs.emplace_back(local, a.outputs[i].dtype);
    }
    if (a.fallback) out.fallback = lower_nested(*a.fallback);
    int id = static_cast<int>(k_.asms.size());
    k_.asms.push_back(std::move(out));
    auto s = stmt(ir::StmtKind::AsmStmt, e.range);
    s->asm_id = id;
    current_->push_back(std::move(s));
    return id;
  }

  // Lowers `e`; the statements it needs first (the bodies of the functions
  // it calls) go to `prelude` instead of the current block.
  ExprPtr lower_with_prelude(const ast::Expr& e, DType hint, ir::Block& prelude) {
    ir::Block* saved = current_;
    current_ = &prelude;
    ExprPtr value = lower_expr(e, hint);
    current_ = saved;
    return value;
  }

  // `cond ? a : b` where a or b needs statements: a `var` set by an `if`.
  ExprPtr choose(ExprPtr cond, ir::Block then_prelude, ExprPtr a, ir::Block else_prelude, ExprPtr b, const Type& t,
                 SourceRange range) {
    int result = temp_local("choice", Type::value(t.dtype, t.shape), true);
    auto zero = make(ExprKind::Fill, Type::value(t.dtype, t.shape), range);
    zero->operands.push_back(constant(t.dtype, 0, range));
    push_let(result, std::move(zero), range);
    auto out = stmt(ir::StmtKind::If, range);
    ir::Block* branches[2] = {&then_prelude, &else_prelude};
    ExprPtr values[2] = {std::move(a), std::move(b)};
    for (int i = 0; i < 2; ++i) {
      ir::IfClause clause;
      if (i == 0) clause.cond = std::move(cond);
      clause.body = std::move(*branches[i]);
      auto set = stmt(ir::StmtKind::Assign, range);
      set->local = result;
      set->value = std::move(values[i]);
      clause.body.push_back(std::move(set));
      out->clauses.push_back(std::move(clause));
    }
    current_->push_back(std::move(out));
    return local_ref(result, range);
  }

  // The clauses of `s` from `first` on. A condition after the first that
  // calls a function is evaluated only when the clauses before it fail:
  // the rest of the chain moves into an `else`.
  void lower_if(const ast::Stmt& s, size_t first) {
    auto out = stmt(ir::StmtKind::If, s.range);
    for (size_t i = first; i < s.clauses.size(); ++i) {
      const ast::IfClause& c = s.clauses[i];
      ir::IfClause clause;
      if (c.cond) {
        ir::Block prelude;
        clause.cond = lower_with_prelude(*c.cond, DType::Bool, prelude);
        if (!prelude.empty() && i > first) {
          ir::IfClause rest;
          ir::Block* saved = current_;
          current_ = &rest.body;
          lower_if(s, i);
          current_ = saved;
          out->clauses.push_back(std::move(rest));
          break;
        }
        for (ir::StmtPtr& p : prelude) current_->push_back(std::move(p));
      }
      clause.body = lower_nested(c.body);
      out->clauses.push_back(std::move(clause));
    }
    current_->push_back(std::move(out));
  }

  ExprPtr add_i32(ExprPtr a, ExprPtr b, SourceRange range) {
    if (!a) return b;
    return binary(ir::BinaryOp::Add, std::move(a), std::move(b), Type::value(DType::I32), range);
  }

  // A copy of a bound start or index: a local or a constant.
  ExprPtr copy_bound(const ir::Expr& e) {
    if (e.kind == ExprKind::Local) return local_ref(e.local, e.range);
    return constant(e.type.dtype, e.int_value, e.range);
  }

  // Binds a dynamic start or index to a local, evaluated once at the call.
  ExprPtr bind_once(ExprPtr e, const std::string& name) {
    if (!e || e->kind == ExprKind::Const || e->kind == ExprKind::Local) return e;
    SourceRange r = e->range;
    int local = temp_local(name, e->type);
    push_let(local, std::move(e), r);
    return local_ref(local, r);
  }

  // The view `e` names through a ref parameter bound to `base`: its
  // indices apply to the dimensions `base` keeps.
  ir::View compose_view(const ir::View& base, const ast::Expr& e) {
    ir::View v = copy_view(base);
    size_t next = 0;
    for (ir::ViewDim& dim : v.dims) {
      if (dim.dropped) continue;
      const ast::IndexEntry* entry = e.kind == ast::Expr::Kind::Index && next < e.indices.size() ? &e.indices[next] : nullptr;
      ++next;
      if (!entry) continue;
      switch (entry->kind) {
        case ast::IndexEntry::Kind::Scalar:
          dim.dropped = true;
          dim.size = 1;
          offset_start(dim, *entry->first);
          break;
        case ast::IndexEntry::Kind::Slice:
          offset_start(dim, entry->start, entry->range);
          dim.size = entry->size;
          break;
        case ast::IndexEntry::Kind::DynSlice:
          offset_start(dim, *entry->first->call->positional[0]->value);
          dim.size = entry->size;
          break;
        default: break;
      }
    }
    return v;
  }

  void offset_start(ir::ViewDim& dim, int64_t by, SourceRange range) {
    if (!dim.start) dim.static_start += by;
    else if (by) dim.start = add_i32(std::move(dim.start), constant(DType::I32, by, range), range);
  }

  void offset_start(ir::ViewDim& dim, const ast::Expr& by) {
    if (by.const_value) return offset_start(dim, *by.const_value, by.range);
    ExprPtr x = lower_expr(by, DType::I32);
    if (!dim.start && dim.static_start) dim.start = constant(DType::I32, dim.static_start, by.range);
    dim.static_start = 0;
    dim.start = add_i32(std::move(dim.start), std::move(x), by.range);
  }

  // A DMA descriptor (section 16) as lowering holds it: the views,
  // semaphores and device of a `dma(...)`, their dynamic parts evaluated
  // once into locals; or, for `c ? a : b`, the condition and both.
  struct Descriptor {
    ir::View src, dst;
    ir::SemRef sem;
    std::optional<ir::SemRef> src_sem;
    ExprPtr device;
    bool add = false;
    int64_t bytes = 0;
    ExprPtr cond;
    std::unique_ptr<Descriptor> then_d, else_d;
    bool remote() const { return cond ? then_d->remote() : device != nullptr; }
  };

  ir::View copy_view(const ir::View& v) {
    ir::View out;
    out.ref = v.ref;
    for (const ir::ViewDim& d : v.dims) {
      ir::ViewDim c;
      c.static_start = d.static_start;
      c.size = d.size;
      c.dropped = d.dropped;
      if (d.start) c.start = copy_bound(*d.start);
      out.dims.push_back(std::move(c));
    }
    return out;
  }

  ir::SemRef copy_sem(const ir::SemRef& r) {
    ir::SemRef out;
    out.sem = r.sem;
    if (r.index) out.index = copy_bound(*r.index);
    if (r.col) out.col = copy_bound(*r.col);
    return out;
  }

  Descriptor copy_descriptor(const Descriptor& d) {
    Descriptor out;
    if (d.cond) {
      out.cond = copy_bound(*d.cond);
      out.then_d = std::make_unique<Descriptor>(copy_descriptor(*d.then_d));
      out.else_d = std::make_unique<Descriptor>(copy_descriptor(*d.else_d));
      return out;
    }
    out.src = copy_view(d.src);
    out.dst = copy_view(d.dst);
    out.sem = copy_sem(d.sem);
    if (d.src_sem) out.src_sem = copy_sem(*d.src_sem);
    if (d.device) out.device = copy_bound(*d.device);
    out.add = d.add;
    out.bytes = d.bytes;
    return out;
  }

  Descriptor lower_descriptor(const ast::Expr& e) {
    if (e.kind == ast::Expr::Kind::Name) return copy_descriptor(descriptors_.at(e.symbol));
    if (e.instance) return std::move(*lower_inline(e).at(0).descriptor);  // a function's `-> dma`
    Descriptor d;
    if (e.kind == ast::Expr::Kind::Ternary) {
      d.cond = bind_once(lower_expr(*e.operands[0], DType::Bool), "dma_choice");
      d.then_d = std::make_unique<Descriptor>(lower_descriptor(*e.operands[1]));
      d.else_d = std::make_unique<Descriptor>(lower_descriptor(*e.operands[2]));
      return d;
    }
    // dma(src, dst, sem, ...) or dma_start(src, dst, sem, ...): the
    // indices are evaluated here, once.
    const ResolvedCall& call = *e.call;
    auto bound_view = [&](const ast::Expr& v) {
      ir::View out = lower_view(v);
      for (ir::ViewDim& dim : out.dims) dim.start = bind_once(std::move(dim.start), "dma_start");
      return out;
    };
    auto bound_sem = [&](const ast::Expr& s) {
      ir::SemRef r = lower_sem(s);
      r.index = bind_once(std::move(r.index), "dma_sem");
      r.col = bind_once(std::move(r.col), "dma_sem_col");
      return r;
    };
    d.src = bound_view(*call.positional[0]->value);
    d.dst = bound_view(*call.positional[1]->value);
    d.sem = bound_sem(*call.positional[2]->value);
    if (const ast::Expr* s = call.keyword(Keyword::SrcSem)) d.src_sem = bound_sem(*s);
    if (const ast::Expr* dev = call.keyword(Keyword::Device)) d.device = bind_once(lower_expr(*dev, DType::I32), "dma_device");
    d.add = call.flag(Keyword::Add);
    d.bytes = bytes_of(d.src);
    return d;
  }

  // The descriptor a `let` or `return` binds: `dma(...)` describes,
  // `dma_start(...)` also starts.
  Descriptor lower_bound_descriptor(const ast::Expr& e) {
    Descriptor d = lower_descriptor(e);
    if (e.kind == ast::Expr::Kind::Call && e.call && e.call->id == BuiltinId::DmaStart) start_descriptor(d, e.range);
    return d;
  }

  // A chosen descriptor (`c ? a : b`) acts through an `if`.
  template <class Act>
  void on_descriptor(const Descriptor& d, SourceRange range, const Act& act) {
    if (!d.cond) return act(d);
    auto out = stmt(ir::StmtKind::If, range);
    const Descriptor* sides[2] = {d.then_d.get(), d.else_d.get()};
    for (int i = 0; i < 2; ++i) {
      ir::IfClause clause;
      if (i == 0) clause.cond = copy_bound(*d.cond);
      ir::Block* saved = current_;
      current_ = &clause.body;
      on_descriptor(*sides[i], range, act);
      current_ = saved;
      out->clauses.push_back(std::move(clause));
    }
    current_->push_back(std::move(out));
  }

  void start_descriptor(const Descriptor& desc, SourceRange range) {
    on_descriptor(desc, range, [&](const Descriptor& d) {
      auto out = stmt(ir::StmtKind::DmaStart, range);
      out->src = copy_view(d.src);
      out->dst = copy_view(d.dst);
      out->sem = copy_sem(d.sem);
      if (d.src_sem) out->src_sem = copy_sem(*d.src_sem);
      if (d.device) out->device = copy_bound(*d.device);
      out->add = d.add;
      out->bytes = d.bytes;
      current_->push_back(std::move(out));
    });
  }

  // `dma_wait_send` is the wait on the source semaphore for the source
  // view; `dma_wait_recv` the wait on the semaphore for the destination.
  void wait_descriptor(const Descriptor& desc, bool send, bool recv, SourceRange range) {
    on_descriptor(desc, range, [&](const Descriptor& d) {
      if (send && d.src_sem) {
        auto out = stmt(ir::StmtKind::DmaWait, range);
        out->sem = copy_sem(*d.src_sem);
        out->view = copy_view(d.src);
        out->bytes = d.bytes;
        current_->push_back(std::move(out));
      }
      if (recv) {
        auto out = stmt(ir::StmtKind::DmaWait, range);
        out->sem = copy_sem(d.sem);
        out->view = copy_view(d.dst);
        out->bytes = d.bytes;
        current_->push_back(std::move(out));
      }
    });
  }

  // One result of an expanded call: the local holding a value, or a
  // returned descriptor (`-> dma`).
  struct Returned {
    int local = -1;
    std::unique_ptr<Descriptor> descriptor;
  };

  // Expands a call of a KD function here (section 12): each argument
  // evaluated once, in order, into its parameter; then the instance's body
  // with the parameters bound. Returns its results.
  std::vector<Returned> lower_inline(const ast::Expr& e) {
    const FunctionInstance& inst = *e.instance;
    const ast::Function& fn = *inst.fn;
    const size_t first = current_->size();
    for (size_t i = 0; i < inst.params.size(); ++i) {
      const Symbol* p = inst.params[i];
      const ast::Expr& a = *e.args[i].value;
      switch (fn.params[i].kind) {
        case ast::FnParam::Kind::Value: {
          ExprPtr v = lower_expr(a, p->type.dtype);
          const int local = new_local(p, v->type, false);
          push_let(local, std::move(v), a.range);
          break;
        }
        case ast::FnParam::Kind::Ref: {
          ir::View v = lower_view(a);
          for (ir::ViewDim& d : v.dims) d.start = bind_once(std::move(d.start), p->name + "_start");
          ref_args_[p] = std::move(v);
          break;
        }
        case ast::FnParam::Kind::Sem: {
          ir::SemRef r = lower_sem(a);
          const bool row = k_.sems[r.sem].cols > 0 && !r.col;
          sem_args_[p] = {r.sem, bind_once(std::move(r.index), p->name + "_index"),
                          bind_once(std::move(r.col), p->name + "_col"), row};
          break;
        }
        case ast::FnParam::Kind::Dma: descriptors_[p] = lower_descriptor(a); break;
      }
    }
    std::vector<Returned> results;
    const int caller = call_;
    call_ = static_cast<int>(k_.calls.size());
    k_.calls.push_back({inst.name, e.range, caller});
    open_scope();  // the function body, left after its results are bound
    for (const ast::StmtPtr& s : inst.body.stmts) {
      if (s->kind != ast::Stmt::Kind::Return) {
        lower_stmt(*s);
        continue;
      }
      for (size_t i = 0; i < s->values.size(); ++i) {
        const Type& want = inst.results[i];
        Returned& r = results.emplace_back();
        if (want.kind == Type::Kind::Dma) {
          r.descriptor = std::make_unique<Descriptor>(lower_bound_descriptor(*s->values[i]));
          continue;
        }
        ExprPtr v = lower_expr(*s->values[i], want.dtype);
        if (v->type.shape != want.shape) {
          auto b = make(ExprKind::Broadcast, want, s->values[i]->range);
          b->operands.push_back(std::move(v));
          v = std::move(b);
        }
        r.local = temp_local(fn.name.text + "_result", want);
        push_let(r.local, std::move(v), s->values[i]->range);
      }
    }
    close_scope(inst.body.range);
    call_ = caller;
    // A comment on the expansion's first statement names the instance.
    if (current_->size() > first) {
      (*current_)[first]->inlined = inst.name;
      (*current_)[first]->inlined_at = e.range;
    }
    return results;
  }

  // `hint` is the dtype a still-weak (literal) expression takes.
  ExprPtr lower_expr(const ast::Expr& e, DType hint) {
    Type t = e.type;
    if (t.weak || t.is_error()) {
      t.dtype = hint;
      t.weak = false;
    }
    using K = ast::Expr::Kind;
    if (t.is_value() && !is_float(t.dtype) && t.dtype != DType::Bool && e.const_value &&
        e.kind != K::Call && t.shape.empty()) {
      return constant(t.dtype, *e.const_value, e.range);
    }
    switch (e.kind) {
      case K::IntLiteral: {
        auto c = constant(t.dtype, static_cast<int64_t>(e.int_value), e.range);
        c->float_value = static_cast<double>(e.int_value);
        return c;
      }
      case K::FloatLiteral: {
        auto c = make(ExprKind::Const, t, e.range);
        c->float_value = e.float_value;
        return c;
      }
      case K::BoolLiteral: return constant(DType::Bool, e.bool_value ? 1 : 0, e.range);
      case K::Name: {
        const Symbol* s = e.symbol;
        if (s->kind == Symbol::Kind::Const) return constant(t.dtype, s->const_value.value_or(0), e.range);
        if (auto it = scalars_.find(s); it != scalars_.end()) {
          auto x = make(ExprKind::ScalarParam, t, e.range);
          x->index = it->second;
          return x;
        }
        if (refs_.count(s) || ref_args_.count(s)) {
          auto load = make(ExprKind::Load, t, e.range);
          load->view = lower_view(e);
          return load;
        }
        return local_ref(locals_.at(s), e.range);
      }
      case K::Unary: {
        auto x = make(ExprKind::Unary, t, e.range);
        x->unary = static_cast<ir::UnaryOp>(static_cast<int>(e.unary_op));
        x->operands.push_back(lower_expr(*e.operands[0], t.dtype));
        return x;
      }
      case K::Binary: {
        DType operand = t.dtype;
        if (ast::is_comparison(e.binary_op) || e.binary_op == ast::BinaryOp::And || e.binary_op == ast::BinaryOp::Or) {
          const Type& a = e.operands[0]->type;
          const Type& b = e.operands[1]->type;
          operand = !a.weak ? a.dtype : !b.weak ? b.dtype : (is_float(a.dtype) || is_float(b.dtype) ? DType::F32 : a.dtype);
        }
        ExprPtr a = lower_expr(*e.operands[0], operand);
        ir::Block prelude;
        ExprPtr b = lower_with_prelude(*e.operands[1], operand, prelude);
        const bool and_or = e.binary_op == ast::BinaryOp::And || e.binary_op == ast::BinaryOp::Or;
        if (!prelude.empty() && and_or && t.shape.empty()) {
          // `a && f(x)`: f runs only when a does not decide.
          ExprPtr decided = constant(DType::Bool, e.binary_op == ast::BinaryOp::Or ? 1 : 0, e.range);
          if (e.binary_op == ast::BinaryOp::And) {
            return choose(std::move(a), std::move(prelude), std::move(b), {}, std::move(decided), t, e.range);
          }
          return choose(std::move(a), {}, std::move(decided), std::move(prelude), std::move(b), t, e.range);
        }
        for (ir::StmtPtr& p : prelude) current_->push_back(std::move(p));
        return binary(static_cast<ir::BinaryOp>(static_cast<int>(e.binary_op)), std::move(a), std::move(b), t, e.range);
      }
      case K::Ternary: {
        ExprPtr cond = lower_expr(*e.operands[0], DType::Bool);
        ir::Block then_prelude, else_prelude;
        ExprPtr a = lower_with_prelude(*e.operands[1], t.dtype, then_prelude);
        ExprPtr b = lower_with_prelude(*e.operands[2], t.dtype, else_prelude);
        if (then_prelude.empty() && else_prelude.empty()) {
          auto x = make(ExprKind::Select, t, e.range);
          x->operands.push_back(std::move(cond));
          x->operands.push_back(std::move(a));
          x->operands.push_back(std::move(b));
          return x;
        }
        // A branch calls a function: only the chosen one runs (section 9).
        return choose(std::move(cond), std::move(then_prelude), std::move(a), std::move(else_prelude), std::move(b), t,
                      e.range);
      }
      case K::Index: {
        const ast::Expr& base = *e.operands[0];
        // `r[...]` loads from the ref; `r[...][0:4]` slices the loaded tile.
        if (base.kind == ast::Expr::Kind::Name && base.symbol &&
            (refs_.count(base.symbol) || ref_args_.count(base.symbol))) {
          auto load = make(ExprKind::Load, t, e.range);
          load->view = lower_view(e);
          return load;
        }
        auto x = make(ExprKind::TileSlice, t, e.range);
        ExprPtr tile = lower_expr(base, t.dtype);
        for (size_t d = 0; d < tile->type.shape.size(); ++d) {
          ir::ViewDim dim;
          dim.size = tile->type.shape[d];
          if (d < e.indices.size() && e.indices[d].kind != ast::IndexEntry::Kind::Ellipsis &&
              e.indices[d].kind != ast::IndexEntry::Kind::Full) {
            dim.static_start = e.indices[d].start;
            dim.size = e.indices[d].size;
            dim.dropped = e.indices[d].kind == ast::IndexEntry::Kind::Scalar;
          }
          x->tile_dims.push_back(std::move(dim));
        }
        x->operands.push_back(std::move(tile));
        return x;
      }
      case K::Asm: return asm_output(lower_asm(e), 0, e.range);
      case K::DeviceCoords: return mesh_device(e);
      case K::Call:
        if (e.instance) return local_ref(lower_inline(e).at(0).local, e.range);
        return lower_call(e, t);
    }
    return constant(DType::I32, 0, e.range);
  }

  // One case per built-in: the checker resolved the call (e.call) and typed
  // its keyword arguments.
  ExprPtr lower_call(const ast::Expr& e, const Type& t) {
    const ResolvedCall& call = *e.call;
    const std::vector<const ast::Arg*>& pos = call.positional;
    auto operand = [&](size_t i, DType hint) { return lower_expr(*pos[i]->value, hint); };
    auto unary_node = [&](ExprKind kind, DType hint) {
      auto x = make(kind, t, e.range);
      x->operands.push_back(operand(0, hint));
      return x;
    };
    // Element-wise math keeps the built-in's name for the emitters.
    auto math = [&](size_t operands) {
      auto x = make(ExprKind::Math, t, e.range);
      x->name = call.spec->name;
      for (size_t i = 0; i < operands; ++i) x->operands.push_back(operand(i, t.dtype));
      return x;
    };
    switch (call.id) {
      case BuiltinId::Cast: {
        const ast::Expr& v = *pos[0]->value;
        return unary_node(ExprKind::Cast, default_dtype(v.type));
      }
      case BuiltinId::ProgramId: {
        // A sequential axis is the step loop's; a parallel one's index
        // counts the parallel axes only.
        const size_t axis = static_cast<size_t>(pos[0]->value->const_value.value_or(0));
        if (axis < axes_.size() && axes_[axis].parallel < 0) return local_ref(axes_[axis].local, e.range);
        auto x = make(ExprKind::ProgramId, t, e.range);
        x->index = axis < axes_.size() ? axes_[axis].parallel : static_cast<int>(axis);
        return x;
      }
      case BuiltinId::NumPrograms:
      case BuiltinId::NumDevices: return constant(DType::I32, e.const_value.value_or(1), e.range);
      case BuiltinId::DeviceId:
        if (pos.empty()) return make(ExprKind::DeviceId, t, e.range);
        return mesh_coordinate(static_cast<size_t>(pos[0]->value->const_value.value_or(0)), e.range);
      case BuiltinId::Cdiv: {
        // (a + b - 1) / b, in the operands' dtype.
        Type scalar = Type::value(t.dtype, t.shape);
        ExprPtr b_minus_1 = binary(ir::BinaryOp::Sub, operand(1, t.dtype), constant(t.dtype, 1, e.range), scalar, e.range);
        ExprPtr sum = binary(ir::BinaryOp::Add, operand(0, t.dtype), std::move(b_minus_1), scalar, e.range);
        return binary(ir::BinaryOp::Div, std::move(sum), operand(1, t.dtype), scalar, e.range);
      }
      case BuiltinId::Zeros:
      case BuiltinId::Ones: {
        auto x = make(ExprKind::Fill, t, e.range);
        x->operands.push_back(constant(t.dtype, call.id == BuiltinId::Ones ? 1 : 0, e.range));
        return x;
      }
      case BuiltinId::Full: {
        auto x = make(ExprKind::Fill, t, e.range);
        x->operands.push_back(operand(1, t.dtype));
        return x;
      }
      case BuiltinId::Iota: {
        auto x = make(ExprKind::Iota, t, e.range);
        x->index = static_cast<int>(pos[1]->value->const_value.value_or(0));
        return x;
      }
      case BuiltinId::Exp:
      case BuiltinId::Log:
      case BuiltinId::Sqrt:
      case BuiltinId::Rsqrt:
      case BuiltinId::Tanh:
      case BuiltinId::Sin:
      case BuiltinId::Cos:
      case BuiltinId::Abs:
      case BuiltinId::Floor:
      case BuiltinId::Ceil: return math(1);
      case BuiltinId::Maximum:
      case BuiltinId::Minimum: return math(2);
      case BuiltinId::Where: {
        auto x = make(ExprKind::Where, t, e.range);
        x->operands.push_back(operand(0, DType::Bool));
        x->operands.push_back(operand(1, t.dtype));
        x->operands.push_back(operand(2, t.dtype));
        return x;
      }
      case BuiltinId::Sum:
      case BuiltinId::Max:
      case BuiltinId::Min: {
        auto x = make(ExprKind::Reduce, t, e.range);
        x->name = call.spec->name;
        x->reduce = call.spec->id == BuiltinId::Sum   ? ir::ReduceOp::Sum
                    : call.spec->id == BuiltinId::Max ? ir::ReduceOp::Max
                                                      : ir::ReduceOp::Min;
        x->operands.push_back(operand(0, t.dtype));
        x->index = call.keyword(Keyword::Axis) ? static_cast<int>(call[Keyword::Axis].constant.value_or(0)) : -1;
        x->keepdims = call.flag(Keyword::Keepdims);
        return x;
      }
      case BuiltinId::Broadcast: return unary_node(ExprKind::Broadcast, t.dtype);
      case BuiltinId::Reshape: return unary_node(ExprKind::Reshape, t.dtype);
      case BuiltinId::Transpose: return unary_node(ExprKind::Transpose, t.dtype);
      case BuiltinId::Dot: {
        // The Dot node computes [M, K] x [K, N] in the accumulator dtype:
        // `trans_a`/`trans_b` become Transpose operands, `dtype=` a Cast of
        // the result.
        DType in = pos[0]->value->type.dtype;
        DType acc = dot_accumulator(in);
        auto x = make(ExprKind::Dot, Type::value(acc, t.shape), e.range);
        for (size_t i = 0; i < 2; ++i) {
          ExprPtr op = operand(i, in);
          if (call.flag(i == 0 ? Keyword::TransA : Keyword::TransB)) {
            const Shape& s = op->type.shape;
            auto tr = make(ExprKind::Transpose, Type::value(in, {s[1], s[0]}), pos[i]->range);
            tr->operands.push_back(std::move(op));
            op = std::move(tr);
          }
          x->operands.push_back(std::move(op));
        }
        if (t.dtype == acc) return x;
        auto cast = make(ExprKind::Cast, t, e.range);
        cast->operands.push_back(std::move(x));
        return cast;
      }
      case BuiltinId::Load: {
        auto x = make(ExprKind::Load, t, e.range);
        x->view = lower_view(*pos[0]->value);
        if (const ast::Expr* m = call.keyword(Keyword::Mask)) x->mask = lower_expr(*m, DType::Bool);
        if (const ast::Expr* o = call.keyword(Keyword::Other)) x->other = lower_expr(*o, t.dtype);
        return x;
      }
      case BuiltinId::SemRead: {
        auto x = make(ExprKind::SemRead, t, e.range);
        x->sem = lower_sem(*pos[0]->value);
        return x;
      }
      // Statements (lower_effect) and `ds` (an index, lower_view): never values.
      case BuiltinId::Ds:
      case BuiltinId::Store:
      case BuiltinId::DmaStart:
      case BuiltinId::DmaWait:
      case BuiltinId::Dma:
      case BuiltinId::DmaWaitSend:
      case BuiltinId::DmaWaitRecv:
      case BuiltinId::SemSignal:
      case BuiltinId::SemWait: break;
    }
    return constant(DType::I32, 0, e.range);
  }

  const ast::Kernel& ast_;
  ir::Kernel k_;
  ir::Block* current_ = nullptr;
  // The open blocks (innermost last) and what each declared.
  struct Scope {
    std::vector<int> refs, sems;
  };
  std::vector<Scope> scopes_;
  std::map<const Symbol*, int> refs_, sems_, locals_, scalars_;
  // The parameters of the functions being expanded: ref views and semaphores.
  struct BoundSem {
    int sem = -1;
    ExprPtr index, col;  // constants or locals (a 2-D array's row and column); null: 0
    bool row = false;    // a whole row of a 2-D array, for an array parameter
  };
  std::map<const Symbol*, ir::View> ref_args_;
  std::map<const Symbol*, Descriptor> descriptors_;
  int call_ = -1;  // the expansion being lowered (ir::Kernel::calls)
  std::map<const Symbol*, BoundSem> sem_args_;
  std::set<std::string> taken_;
  // Per grid axis: its index among the parallel axes (-1: sequential) and
  // the local its name (or a sequential axis's program_id) reads.
  struct AxisBinding {
    int parallel = -1;
    int local = -1;
  };
  std::vector<AxisBinding> axes_;
  ir::Sequence sequence_;
};

}  // namespace

ir::Module lower_program(const CheckedProgram& program, const std::string& kernel) {
  ir::Module m;
  for (const ast::Kernel* k : program.kernels) {
    if (!kernel.empty() && k->name.text != kernel) continue;
    m.kernels.push_back(lower_kernel(*k));
  }
  return m;
}

ir::Kernel lower_kernel(const ast::Kernel& kernel) { return Lowerer(kernel).run(); }

}  // namespace kdt
