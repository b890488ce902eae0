// Lowers the checked AST to the kernel IR: names resolve to refs,
// semaphores and locals; literals get their final dtypes; views become
// explicit per-dimension element sets; built-in calls become IR nodes.
#include "kdt/ir/lower.h"

#include <cctype>
#include <cstring>
#include <map>
#include <set>

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
    k_.name = reserved(k_.kd_name) ? "kd_" + k_.kd_name : k_.kd_name;
    k_.range = ast_.range;
    k_.grid = ast_.grid;
    k_.devices = ast_.devices;
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
      r.shape = p.symbol->type.shape;
      r.is_param = true;
      r.writable = p.mode != ast::ParamMode::In;
      r.is_output = p.mode != ast::ParamMode::In;
      r.starts_uninitialized = p.mode == ast::ParamMode::Out;
      refs_[p.symbol] = static_cast<int>(k_.refs.size());
      k_.params.emplace_back(true, static_cast<int>(k_.refs.size()));
      k_.refs.push_back(r);
    }
    current_ = &k_.body;
    lower_block(ast_.body);
    return std::move(k_);
  }

 private:
  // Names the emitters use for themselves (and C++ keywords, CUDA's
  // built-in variables) are taken from the start, so KD names keep their
  // spelling unless they collide.
  static bool reserved(const std::string& name) {
    static const std::set<std::string> words = {
        "p", "s", "L", "options", "std", "alignas", "alignof", "args", "argc", "argv", "error", "ms", "start", "main",
        "stream", "sync", "device", "peers", "group", "e", "d", "threadIdx", "blockIdx", "blockDim", "gridDim",
        "warpSize", "dim3", "uintptr_t", "memcpy", "assert", "char8_t", "char16_t", "char32_t", "concept",
        "consteval", "constinit", "co_await", "co_return", "co_yield", "requires",
        "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char", "class",
        "compl", "const", "constexpr", "const_cast", "continue", "decltype", "default", "delete", "do", "double",
        "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
        "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
        "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "return",
        "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template",
        "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned",
        "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "int8_t", "int16_t",
        "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "NAN", "INFINITY"};
    if (words.count(name)) return true;
    // The runtimes and emitted internals: kdt_rt, kdt_cu, kdt_kernels, kdt_tid, ...;
    // identifiers the C++ implementation reserves.
    if (name.compare(0, 3, "kdt") == 0 || name.find("__") != std::string::npos ||
        (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1])))) {
      return true;
    }
    // Emitter temporaries: t0, f1, i2_0, start3, dma4, asm5_x.
    for (const char* prefix : {"t", "f", "i", "start", "dma", "asm"}) {
      size_t n = std::strlen(prefix);
      if (name.size() > n && name.compare(0, n, prefix) == 0 && std::isdigit(static_cast<unsigned char>(name[n]))) return true;
    }
    // Emitter locals end in `_`; loop counters in `_it`.
    return (name.size() > 1 && name.back() == '_') ||
           (name.size() > 3 && name.compare(name.size() - 3, 3, "_it") == 0);
  }

  std::string unique_name(const std::string& spelled) {
    std::string base = reserved(spelled) ? "kd_" + spelled : spelled;
    std::string name = base;
    for (int n = 2; taken_.count(name); ++n) name = base + "_" + std::to_string(n);
    taken_.insert(name);
    return name;
  }

  int new_local(const Symbol* s, const Type& type, bool is_mutable) {
    int id = static_cast<int>(k_.locals.size());
    k_.locals.push_back({unique_name(s->name), type, is_mutable});
    locals_[s] = id;
    return id;
  }

  ir::StmtPtr stmt(ir::StmtKind kind, SourceRange range) {
    auto s = std::make_unique<ir::Stmt>();
    s->kind = kind;
    s->range = range;
    return s;
  }

  void lower_block(const ast::Block& block) {
    for (const ast::StmtPtr& s : block.stmts) lower_stmt(*s);
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
        refs_[sym] = static_cast<int>(k_.refs.size());
        k_.refs.push_back(r);
        return;
      }
      case K::Sem: {
        const Symbol* sym = s.declared[0];
        ir::Semaphore sem;
        sem.name = unique_name(sym->name);
        sem.kd_name = sym->name;
        sem.kind = sym->type.sem_kind;
        sem.is_array = sym->type.sem_count >= 0;
        sem.count = sem.is_array ? sym->type.sem_count : 1;
        sems_[sym] = static_cast<int>(k_.sems.size());
        k_.sems.push_back(sem);
        return;
      }
      case K::Let:
      case K::Var: {
        const Symbol* sym = s.declared[0];
        ExprPtr value = lower_expr(*s.value, default_dtype(sym->type));
        auto out = stmt(ir::StmtKind::Let, s.range);
        out->local = new_local(sym, value->type, s.kind == K::Var);
        out->value = std::move(value);
        current_->push_back(std::move(out));
        return;
      }
      case K::LetTuple: {
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
      case K::If: {
        auto out = stmt(ir::StmtKind::If, s.range);
        for (const ast::IfClause& c : s.clauses) {
          ir::IfClause clause;
          if (c.cond) clause.cond = lower_expr(*c.cond, DType::Bool);
          clause.body = lower_nested(c.body);
          out->clauses.push_back(std::move(clause));
        }
        current_->push_back(std::move(out));
        return;
      }
      case K::Assert: {
        auto out = stmt(ir::StmtKind::Assert, s.range);
        out->value = lower_expr(*s.value, DType::Bool);
        out->message = s.message.value_or("");
        current_->push_back(std::move(out));
        return;
      }
      case K::Expr: lower_effect(*s.value, s.range); return;
      case K::Block: lower_block(s.body); return;
    }
  }

  // Calls (and asm blocks) in statement position.
  void lower_effect(const ast::Expr& e, SourceRange range) {
    if (e.kind == ast::Expr::Kind::Asm) {
      lower_asm(e);
      return;
    }
    const std::string& f = e.spelling;
    auto positional = [&](size_t i) -> const ast::Expr& {
      size_t n = 0;
      for (const ast::Arg& a : e.args) {
        if (a.kind == ast::Arg::Kind::Keyword) continue;
        if (n++ == i) return *a.value;
      }
      return e;
    };
    auto keyword = [&](const char* name) -> const ast::Expr* {
      for (const ast::Arg& a : e.args) {
        if (a.kind == ast::Arg::Kind::Keyword && a.keyword.text == name) return a.value.get();
      }
      return nullptr;
    };
    if (f == "store") {
      auto out = stmt(ir::StmtKind::Store, range);
      out->view = lower_view(positional(0));
      out->value = lower_expr(positional(1), positional(0).symbol->type.dtype);
      if (const ast::Expr* m = keyword("mask")) out->mask = lower_expr(*m, DType::Bool);
      current_->push_back(std::move(out));
    } else if (f == "dma_start") {
      auto out = stmt(ir::StmtKind::DmaStart, range);
      out->src = lower_view(positional(0));
      out->dst = lower_view(positional(1));
      out->sem = lower_sem(positional(2));
      if (const ast::Expr* a = keyword("add")) out->add = a->bool_value;
      if (const ast::Expr* d = keyword("device")) out->device = lower_expr(*d, DType::I32);
      if (const ast::Expr* s = keyword("src_sem")) out->src_sem = lower_sem(*s);
      out->bytes = bytes_of(*out->src);
      current_->push_back(std::move(out));
    } else if (f == "dma_wait") {
      auto out = stmt(ir::StmtKind::DmaWait, range);
      out->sem = lower_sem(positional(0));
      out->view = lower_view(positional(1));
      out->bytes = bytes_of(*out->view);
      current_->push_back(std::move(out));
    } else if (f == "sem_signal" || f == "sem_wait") {
      auto out = stmt(f == "sem_signal" ? ir::StmtKind::SemSignal : ir::StmtKind::SemWait, range);
      out->sem = lower_sem(positional(0));
      size_t count = 0;
      for (const ast::Arg& a : e.args) count += a.kind != ast::Arg::Kind::Keyword;
      out->amount = count > 1 ? lower_expr(positional(1), DType::I32) : constant(DType::I32, 1, range);
      if (const ast::Expr* d = keyword("device")) out->device = lower_expr(*d, DType::I32);
      current_->push_back(std::move(out));
    } else {
      // A value-producing call used as a statement: evaluate it for its checks.
      auto out = stmt(ir::StmtKind::Eval, range);
      out->value = lower_expr(e, default_dtype(e.type));
      current_->push_back(std::move(out));
    }
  }

  int64_t bytes_of(const ir::View& v) {
    int64_t n = dtype_bytes(k_.refs[v.ref].dtype);
    for (int64_t d : v.shape()) n *= d;
    return n;
  }

  ir::SemRef lower_sem(const ast::Expr& e) {
    ir::SemRef r;
    r.sem = sems_.at(e.symbol);
    if (e.kind == ast::Expr::Kind::Index) r.index = lower_expr(*e.indices[0].first, DType::I32);
    return r;
  }

  ir::View lower_view(const ast::Expr& e) {
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
            const ast::Expr& start = *entry->first->args[0].value;
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
        if (refs_.count(s)) {
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
        return binary(static_cast<ir::BinaryOp>(static_cast<int>(e.binary_op)), lower_expr(*e.operands[0], operand),
                      lower_expr(*e.operands[1], operand), t, e.range);
      }
      case K::Ternary: {
        auto x = make(ExprKind::Select, t, e.range);
        x->operands.push_back(lower_expr(*e.operands[0], DType::Bool));
        x->operands.push_back(lower_expr(*e.operands[1], t.dtype));
        x->operands.push_back(lower_expr(*e.operands[2], t.dtype));
        return x;
      }
      case K::Index: {
        const ast::Expr& base = *e.operands[0];
        if (base.symbol && refs_.count(base.symbol)) {
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
      case K::Call: return lower_call(e, t);
    }
    return constant(DType::I32, 0, e.range);
  }

  ExprPtr lower_call(const ast::Expr& e, const Type& t) {
    const std::string& f = e.spelling;
    std::vector<const ast::Arg*> pos;
    std::map<std::string, const ast::Expr*> kw;
    for (const ast::Arg& a : e.args) {
      if (a.kind == ast::Arg::Kind::Keyword) kw[a.keyword.text] = a.value.get();
      else pos.push_back(&a);
    }
    auto operand = [&](size_t i, DType hint) { return lower_expr(*pos[i]->value, hint); };
    auto unary_node = [&](ExprKind kind, DType hint) {
      auto x = make(kind, t, e.range);
      x->operands.push_back(operand(0, hint));
      return x;
    };
    if (dtype_from_name(f)) {
      const ast::Expr& v = *pos[0]->value;
      return unary_node(ExprKind::Cast, default_dtype(v.type));
    }
    if (f == "program_id") {
      auto x = make(ExprKind::ProgramId, t, e.range);
      x->index = static_cast<int>(pos[0]->value->const_value.value_or(0));
      return x;
    }
    if (f == "num_programs" || f == "num_devices") return constant(DType::I32, e.const_value.value_or(1), e.range);
    if (f == "device_id") return make(ExprKind::DeviceId, t, e.range);
    if (f == "cdiv") {
      // (a + b - 1) / b, in the operands' dtype.
      Type scalar = Type::value(t.dtype, t.shape);
      ExprPtr b_minus_1 = binary(ir::BinaryOp::Sub, operand(1, t.dtype), constant(t.dtype, 1, e.range), scalar, e.range);
      ExprPtr sum = binary(ir::BinaryOp::Add, operand(0, t.dtype), std::move(b_minus_1), scalar, e.range);
      return binary(ir::BinaryOp::Div, std::move(sum), operand(1, t.dtype), scalar, e.range);
    }
    if (f == "zeros" || f == "ones") {
      auto x = make(ExprKind::Fill, t, e.range);
      auto c = constant(t.dtype, f == "ones" ? 1 : 0, e.range);
      x->operands.push_back(std::move(c));
      return x;
    }
    if (f == "full") {
      auto x = make(ExprKind::Fill, t, e.range);
      x->operands.push_back(operand(1, t.dtype));
      return x;
    }
    if (f == "iota") {
      auto x = make(ExprKind::Iota, t, e.range);
      x->index = static_cast<int>(pos[1]->value->const_value.value_or(0));
      return x;
    }
    if (f == "maximum" || f == "minimum") {
      auto x = make(ExprKind::Math, t, e.range);
      x->name = f;
      x->operands.push_back(operand(0, t.dtype));
      x->operands.push_back(operand(1, t.dtype));
      return x;
    }
    if (f == "where") {
      auto x = make(ExprKind::Where, t, e.range);
      x->operands.push_back(operand(0, DType::Bool));
      x->operands.push_back(operand(1, t.dtype));
      x->operands.push_back(operand(2, t.dtype));
      return x;
    }
    if (f == "sum" || f == "max" || f == "min") {
      auto x = make(ExprKind::Reduce, t, e.range);
      x->name = f;
      x->operands.push_back(operand(0, t.dtype));
      auto axis = kw.find("axis");
      x->index = axis == kw.end() ? -1 : static_cast<int>(axis->second->const_value.value_or(0));
      auto keep = kw.find("keepdims");
      x->keepdims = keep != kw.end() && keep->second->bool_value;
      return x;
    }
    if (f == "broadcast") return unary_node(ExprKind::Broadcast, t.dtype);
    if (f == "reshape") return unary_node(ExprKind::Reshape, t.dtype);
    if (f == "transpose") return unary_node(ExprKind::Transpose, t.dtype);
    if (f == "dot") {
      auto x = make(ExprKind::Dot, t, e.range);
      DType in = pos[0]->value->type.dtype;
      x->operands.push_back(operand(0, in));
      x->operands.push_back(operand(1, in));
      return x;
    }
    if (f == "load") {
      auto x = make(ExprKind::Load, t, e.range);
      x->view = lower_view(*pos[0]->value);
      if (auto m = kw.find("mask"); m != kw.end()) x->mask = lower_expr(*m->second, DType::Bool);
      if (auto o = kw.find("other"); o != kw.end()) x->other = lower_expr(*o->second, t.dtype);
      return x;
    }
    if (f == "sem_read") {
      auto x = make(ExprKind::SemRead, t, e.range);
      x->sem = lower_sem(*pos[0]->value);
      return x;
    }
    // Unary element-wise math.
    auto x = make(ExprKind::Math, t, e.range);
    x->name = f;
    x->operands.push_back(operand(0, t.dtype));
    return x;
  }

  const ast::Kernel& ast_;
  ir::Kernel k_;
  ir::Block* current_ = nullptr;
  std::map<const Symbol*, int> refs_, sems_, locals_, scalars_;
  std::set<std::string> taken_;
};

}  // namespace

ir::Module lower_program(const CheckedProgram& program, const std::string& kernel) {
  ir::Module m;
  for (const ast::Kernel* k : program.kernels) {
    if (!kernel.empty() && k->name.text != kernel) continue;
    m.kernels.push_back(Lowerer(*k).run());
  }
  return m;
}

}  // namespace kdt
