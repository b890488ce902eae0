// Functions, type aliases and generics (spec sections 12 and 14). Every
// call is checked against an instance of its function: per calling kernel
// and generic values, a copy of the body checked with the parameters
// bound, which IR lowering then inlines. A non-generic function is also
// checked on its own (no kernel), so that a function nobody calls is
// still checked; its instances report nothing new twice.
#include <algorithm>
#include <functional>
#include <iterator>

#include "checker.h"
#include "kdt/syntax/ast_walk.h"

namespace kdt::check {

namespace {

int generic_index(const ast::Function& fn, const std::string& name) {
  for (size_t i = 0; i < fn.generics.size(); ++i) {
    if (fn.generics[i].name.text == name) return static_cast<int>(i);
  }
  return -1;
}

// The generic a dimension names when it is written as that bare name.
int dim_generic(const ast::Function& fn, const ast::Expr& dim) {
  if (dim.kind != ast::Expr::Kind::Name || dim.parenthesized) return -1;
  int g = generic_index(fn, dim.spelling);
  return g >= 0 && !fn.generics[static_cast<size_t>(g)].is_type ? g : -1;
}

bool mentions(const ast::TileTypeExpr* t, const std::string& name) {
  if (!t) return false;
  if (t->type_name.text == name) return true;
  bool found = false;
  for (const ast::ExprPtr& d : t->dims) {
    ast::for_each_expr(*d, [&](const ast::Expr& e) { found = found || (e.kind == ast::Expr::Kind::Name && e.spelling == name); });
  }
  return found;
}

std::string arg_ordinal(size_t i) { return "argument " + std::to_string(i + 1); }

}  // namespace

bool Checker::is_type_name(const std::string& name) const {
  const Symbol* s = lookup(name);
  return s && s->kind == Symbol::Kind::Type;
}

void Checker::types_as_args(ast::Expr& call) {
  for (ast::Arg& a : call.args) {
    if (a.kind != ast::Arg::Kind::Positional || a.value->kind != ast::Expr::Kind::Index) continue;
    ast::Expr& base = *a.value->operands[0];
    if (base.kind != ast::Expr::Kind::Name || !is_type_name(base.spelling)) continue;
    CompactVector<ast::IndexEntry>& indices = a.value->indices;
    if (!std::all_of(indices.begin(), indices.end(),
                     [](const ast::IndexEntry& i) { return i.kind == ast::IndexEntry::Kind::Scalar; })) {
      continue;  // checked as an index, which reports it
    }
    auto type = std::make_unique<ast::TileTypeExpr>();
    type->type_name = {base.spelling, base.range};
    type->range = a.value->range;
    for (ast::IndexEntry& i : indices) type->dims.push_back(std::move(i.first));
    a.kind = ast::Arg::Kind::Type;
    a.type = std::move(type);
    a.value.reset();
  }
}

std::optional<DType> Checker::resolve_type_name(const ast::Name& name) {
  const Symbol* s = lookup(name.text);
  if (!s) {
    diags_.report(DiagCode::UndefinedName, name.range, "unknown type `" + name.text + "`");
    return std::nullopt;
  }
  const_cast<Symbol*>(s)->used = true;
  if (s->kind != Symbol::Kind::Type) {
    diags_.report(DiagCode::TypeMismatch, name.range, "`" + name.text + "` is not a type")
        .note("`" + name.text + "` is declared here", s->range);
    return std::nullopt;
  }
  if (s->type.is_error()) return std::nullopt;
  return s->type.dtype;
}

std::optional<DType> Checker::resolve_dtype(const ast::TileTypeExpr& t) {
  if (t.type_name.text.empty()) return t.dtype;
  return resolve_type_name(t.type_name);
}

void Checker::check_type_decl(ast::TypeDecl& t) {
  std::optional<DType> dtype;
  if (t.name.text == "dma" || t.name.text == "regular") {
    diags_.report(DiagCode::InvalidDeclaration, t.name.range,
                  "`" + t.name.text + "` cannot name a type (it names a kind of semaphore or parameter)");
  }
  auto define = options_.type_defines.find(t.name.text);
  if (define != options_.type_defines.end()) dtype = define->second;
  else if (!t.alias_of.text.empty()) dtype = resolve_type_name(t.alias_of);
  else dtype = t.dtype;
  Symbol& s = declare(Symbol::Kind::Type, t.name, dtype ? Type::value(*dtype) : Type::error());
  s.used = true;
  t.symbol = &s;
}

void Checker::declare_functions() {
  std::vector<const ast::Function*> order;
  for (ast::File& file : program_.module.files) {
    for (const ast::Function& fn : file.functions) {
      if (find_builtin(fn.name.text.str())) {
        diags_.report(DiagCode::Redefinition, fn.name.range,
                      "`" + fn.name.text + "` is a built-in function; a function may not be named like one");
        continue;
      }
      Symbol& s = declare(Symbol::Kind::Function, fn.name, Type::void_type());
      s.used = true;
      if (scopes_.front().at(fn.name.text) == &s) {
        functions_[fn.name.text] = &fn;
        order.push_back(&fn);
      }
    }
  }
  // Recursion, direct or indirect, over the calls written in the bodies.
  struct Edge {
    const ast::Function* caller;
    const ast::Function* callee;
    SourceRange at;
  };
  std::map<const ast::Function*, std::vector<Edge>> calls;
  for (const ast::Function* fn : order) {
    ast::for_each_expr(fn->body, [&](const ast::Expr& e) {
      if (e.kind != ast::Expr::Kind::Call) return;
      auto callee = functions_.find(e.spelling);
      if (callee != functions_.end()) calls[fn].push_back({fn, callee->second, e.op_range});
    });
  }
  std::map<const ast::Function*, int> state;  // 1: on the path, 2: done
  std::vector<Edge> path;
  std::function<void(const ast::Function*)> visit = [&](const ast::Function* fn) {
    state[fn] = 1;
    for (const Edge& edge : calls[fn]) {
      if (state[edge.callee] == 1) {
        auto first = std::find_if(path.begin(), path.end(), [&](const Edge& e) { return e.caller == edge.callee; });
        std::vector<Edge> cycle(first, path.end());
        cycle.push_back(edge);
        std::string chain = "`" + edge.callee->name.text + "`";
        for (const Edge& e : cycle) chain += " -> `" + e.callee->name.text + "`";
        auto d = diags_.report(DiagCode::RecursiveCall, edge.at,
                               cycle.size() == 1 ? "`" + fn->name.text + "` calls itself; functions may not recurse"
                                                 : "recursive calls " + chain + "; functions may not recurse");
        for (const Edge& e : cycle) {
          recursive_.insert(e.caller);
          if (&e != &cycle.back()) d.note("`" + e.caller->name.text + "` calls `" + e.callee->name.text + "` here", e.at);
        }
      } else if (state[edge.callee] == 0) {
        path.push_back(edge);
        visit(edge.callee);
        path.pop_back();
      }
    }
    state[fn] = 2;
  };
  for (const ast::Function* fn : order) {
    if (state[fn] == 0) visit(fn);
  }
}

void Checker::check_function_decl(const ast::Function& fn) {
  for (const ast::Generic& g : fn.generics) {
    bool deducible = std::any_of(fn.params.begin(), fn.params.end(), [&](const ast::FnParam& p) {
      return mentions(p.type.get(), g.name.text) ||
             (p.sem_count && p.sem_count->kind == ast::Expr::Kind::Name && p.sem_count->spelling == g.name.text);
    });
    if (!deducible) {
      diags_.report(DiagCode::InvalidDeclaration, g.name.range,
                    "generic `" + g.name.text + "` appears in no parameter type, so no call can deduce it");
    }
  }
  if (fn.generics.empty() && functions_.count(fn.name.text) && functions_.at(fn.name.text) == &fn) {
    instantiate(fn, {}, {}, nullptr);
  }
}

// The parameter types and the body of one instance, checked in a scope of
// the top-level names, the generics' values and the parameters.
FunctionInstance* Checker::instantiate(const ast::Function& fn, const std::vector<GenericValue>& values,
                                       const std::vector<Type>& args, const ast::Expr* call) {
  std::string key;
  for (size_t i = 0; i < fn.generics.size(); ++i) {
    key += (i ? ", " : "") + fn.generics[i].name.text + " = " + values[i].spelling();
  }
  // A descriptor parameter takes the argument's type (local or remote,
  // shapes, `add`): instances differ by it too, though it is not a generic.
  std::string descriptors;
  for (size_t i = 0; i < fn.params.size() && i < args.size(); ++i) {
    if (fn.params[i].kind == ast::FnParam::Kind::Dma) descriptors += "; " + type_string(args[i]);
  }
  auto known = instances_.find({kernel_, &fn, key + descriptors});
  if (known != instances_.end()) return known->second;
  // Hostile input can multiply instances; past --max-function-instances the checker stops.
  const int64_t max_instances = options_.limits.max_function_instances;
  if (static_cast<int64_t>(program_.instances.size()) >= max_instances) {
    // Reported once, wherever the limit is met first (a call, or checking
    // an uncalled function's body at its declaration): every later null
    // instance then has an error behind it, and nothing lowers a call
    // that has none.
    if (!instances_reported_) {
      diags_.report(DiagCode::LimitExceeded, call ? call->range : fn.name.range,
                    std::string(call ? "this call" : "checking this function") + " would make function instance " +
                        std::to_string(max_instances + 1) + " of the program; the limit is --max-function-instances=" +
                        std::to_string(max_instances))
          .note("raise the limit with --max-function-instances=N");
    }
    instances_reported_ = true;
    return nullptr;
  }
  FunctionInstance& inst = program_.instances.emplace_back();
  instances_[{kernel_, &fn, key + descriptors}] = &inst;
  inst.fn = &fn;
  inst.name = fn.name.text + (key.empty() ? "" : "<" + key + ">");
  inst.body = ast::clone(fn.body);

  // The caller's state, restored below. The body sees the global scope
  // (shared, not copied: it holds every top-level name) and none of the
  // caller's locals.
  std::vector<std::unordered_map<std::string, Symbol*>> caller_scopes(std::make_move_iterator(scopes_.begin() + 1),
                                                                       std::make_move_iterator(scopes_.end()));
  scopes_.resize(1);
  const int caller_depth = block_depth_;
  const ast::Function* caller_function = function_;
  std::vector<Type>* caller_results = results_;
  const ast::Stmt* caller_last = last_stmt_;
  const bool caller_once = diags_.report_once();
  block_depth_ = 0;
  if (call) {
    diags_.push_context(key.empty() ? "in the call of `" + fn.name.text + "` here"
                                    : "in `" + inst.name + "`, called here",
                        call->range);
  }
  diags_.set_report_once(fn.generics.empty());
  checking_.push_back(&fn);
  const size_t errors = diags_.error_count();

  scopes_.emplace_back();
  for (size_t i = 0; i < fn.generics.size(); ++i) {
    const ast::Generic& g = fn.generics[i];
    Symbol& s = declare(g.is_type ? Symbol::Kind::Type : Symbol::Kind::Const, g.name,
                        g.is_type ? Type::value(values[i].dtype.value_or(DType::F32))
                                  : Type::value(DType::I32, {}, true));
    if (!g.is_type) s.const_value = values[i].value;
    s.used = true;
  }
  scopes_.emplace_back();
  bool header_ok = true;
  for (const ast::FnParam& p : fn.params) {
    Type t = Type::error();
    ast::ParamMode mode = ast::ParamMode::Scalar;
    if (p.kind == ast::FnParam::Kind::Value || p.kind == ast::FnParam::Kind::Ref) {
      std::optional<DType> dtype = resolve_dtype(*p.type);
      std::optional<Shape> shape = eval_shape(p.type->dims, p.type->range);
      if (dtype && shape) {
        if (p.kind == ast::FnParam::Kind::Value) {
          t = Type::value(*dtype, *shape);
        } else if (p.mem_space.text != "global" && p.mem_space.text != "shared") {
          diags_.report(DiagCode::InvalidDeclaration, p.mem_space.range,
                        "unknown memory space `@" + p.mem_space.text + "`; expected `@global` or `@shared`");
        } else {
          t = Type::ref(*dtype, *shape, p.mem_space.text == "global" ? MemSpace::Global : MemSpace::Shared);
          mode = p.readonly ? ast::ParamMode::In : ast::ParamMode::InOut;
        }
      }
    } else if (p.kind == ast::FnParam::Kind::Sem) {
      t = sem_type(p.sem_kind, p.sem_count.get(), nullptr);
    } else if (p.kind == ast::FnParam::Kind::Dma) {
      // The argument's descriptor type; checked on its own, any descriptor.
      const size_t i = inst.params.size();
      if (i < args.size()) t = args[i];
      else t.kind = Type::Kind::Dma;
      if (t.detail().dma_local) t.edit_detail().dma_local = nullptr;  // the caller's scratch, not this body's
    }
    if (t.is_error()) header_ok = false;
    Symbol& s = declare(p.kind == ast::FnParam::Kind::Sem ? Symbol::Kind::Sem : Symbol::Kind::Param, p.name, t);
    s.mode = mode;
    s.used = true;
    inst.params.push_back(&s);
  }
  for (const auto& r : fn.results) {
    if (ast::is_descriptor_type(*r)) {
      // `-> dma`: the returned descriptor's type, set by its `return`.
      Type t;
      t.kind = Type::Kind::Dma;
      inst.results.push_back(t);
      continue;
    }
    std::optional<DType> dtype = resolve_dtype(*r);
    std::optional<Shape> shape = eval_shape(r->dims, r->range);
    if (!dtype || !shape) header_ok = false;
    inst.results.push_back(dtype && shape ? Type::value(*dtype, *shape) : Type::error());
  }
  if (header_ok) {
    function_ = &fn;
    results_ = &inst.results;
    last_stmt_ = inst.body.stmts.empty() ? nullptr : inst.body.stmts.back().get();
    check_block(inst.body, false);
    report_unused(scopes_.back());
    if (!fn.results.empty() && (!last_stmt_ || last_stmt_->kind != ast::Stmt::Kind::Return)) {
      SourceRange end{fn.body.range.file, fn.body.range.end - 1, fn.body.range.end};
      diags_.report(DiagCode::InvalidDeclaration, end,
                    "`" + fn.name.text + "` returns a value, but its body does not end with `return`");
    }
  }
  inst.ok = header_ok && diags_.error_count() == errors;

  checking_.pop_back();
  diags_.set_report_once(caller_once);
  if (call) diags_.pop_context();
  scopes_.resize(1);
  scopes_.insert(scopes_.end(), std::make_move_iterator(caller_scopes.begin()),
                 std::make_move_iterator(caller_scopes.end()));
  block_depth_ = caller_depth;
  function_ = caller_function;
  results_ = caller_results;
  last_stmt_ = caller_last;
  return &inst;
}

void Checker::check_return(ast::Stmt& s) {
  if (!function_) {
    diags_.report(DiagCode::InvalidDeclaration, s.range, "`return` is allowed only in a function body");
    for (ast::ExprPtr& v : s.values) check_expr(*v);
    return;
  }
  if (&s != last_stmt_ || block_depth_ > 0) {
    diags_.report(DiagCode::InvalidDeclaration, s.range,
                  "`return` may appear only as the last statement of a function body");
  }
  std::vector<Type>& want = *results_;
  const std::string name = "`" + function_->name.text + "`";
  if (want.empty()) {
    if (!s.values.empty()) {
      diags_.report(DiagCode::TypeMismatch, s.values[0]->range,
                    name + " returns nothing; declare its result type (`-> TYPE`) to return a value");
    }
    for (ast::ExprPtr& v : s.values) check_expr(*v);
    return;
  }
  if (s.values.size() != want.size()) {
    diags_.report(DiagCode::TypeMismatch, s.range,
                  name + " returns " + std::to_string(want.size()) + (want.size() == 1 ? " value" : " values") +
                      ", not " + std::to_string(s.values.size()));
    for (ast::ExprPtr& v : s.values) check_expr(*v);
    return;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i].kind != Type::Kind::Dma) {
      expect_value(*s.values[i], want[i], "the returned value");
      continue;
    }
    Type t = expect_descriptor(*s.values[i], "return");
    if (t.kind != Type::Kind::Dma) continue;
    if (t.detail().dma_local) {
      diags_.report(DiagCode::TypeMismatch, s.values[i]->range,
                    name + " returns a descriptor that names `" + t.detail().dma_local->name +
                        "`, declared in its body; it would outlive it (pass the scratch buffer or semaphore in)");
      continue;
    }
    want[i] = t;  // each instance returns its descriptor's type
  }
}

Type Checker::check_function_call(ast::Expr& e, const ast::Function& fn) {
  const std::string name = "`" + fn.name.text + "`";
  std::vector<ast::Expr*> args;
  bool ok = true;
  for (ast::Arg& a : e.args) {
    if (a.kind != ast::Arg::Kind::Positional) {
      diags_.report(DiagCode::BadArgument, a.range, name + " takes positional arguments only")
          .note(name + " is declared here", fn.name.range);
      if (a.value) check_expr(*a.value);
      ok = false;
      continue;
    }
    args.push_back(a.value.get());
  }
  if (!ok) return Type::error();
  if (args.size() != fn.params.size()) {
    diags_.report(DiagCode::BadArgument, e.range,
                  name + " takes " + std::to_string(fn.params.size()) +
                      (fn.params.size() == 1 ? " argument" : " arguments") + ", not " + std::to_string(args.size()))
        .note(name + " is declared here", fn.name.range);
    return Type::error();
  }

  // The arguments, in the caller's scope.
  std::vector<Type> actual(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ast::FnParam& p = fn.params[i];
    ast::Expr& a = *args[i];
    switch (p.kind) {
      case ast::FnParam::Kind::Value: {
        Type t = check_expr(a);
        if (!t.is_error() && !t.is_value()) {
          diags_.report(DiagCode::TypeMismatch, a.range,
                        arg_ordinal(i) + " of " + name + " must be a value, not " + type_string(t));
          t = Type::error();
        }
        actual[i] = t;
        break;
      }
      case ast::FnParam::Kind::Ref: {
        View v = check_view(a, false);
        if (v.ok) actual[i] = Type::ref(v.ref->type.dtype, v.shape, v.ref->type.space);
        break;
      }
      case ast::FnParam::Kind::Sem: {
        SemKind kind = p.sem_kind.text == "regular" ? SemKind::Regular : SemKind::Dma;
        if (!p.sem_count) {
          if (const Symbol* s = lookup_sem(a, kind, fn.name.text.c_str())) {
            actual[i] = s->type;
            actual[i].edit_detail().sem_count = -1;
            actual[i].edit_detail().sem_cols = -1;
          }
          break;
        }
        if (const Symbol* s = lookup_sem(a, kind, fn.name.text.c_str(), true)) {
          // A 1-D array, or one row of a 2-D array.
          actual[i] = s->type;
          if (s->type.detail().sem_cols >= 0) actual[i].edit_detail().sem_count = s->type.detail().sem_cols;
          actual[i].edit_detail().sem_cols = -1;
        }
        break;
      }
      case ast::FnParam::Kind::Dma: actual[i] = expect_descriptor(a, fn.name.text.c_str()); break;
    }
    if (actual[i].is_error()) ok = false;
  }
  if (!ok || recursive_.count(&fn) || std::count(checking_.begin(), checking_.end(), &fn)) return Type::error();

  // Deduce the generics from the argument types, left to right; a
  // conflicting second deduction shows below as a mismatched argument.
  std::vector<GenericValue> values(fn.generics.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ast::FnParam& p = fn.params[i];
    if (p.type) {
      int g = generic_index(fn, p.type->type_name.text);
      if (g >= 0 && fn.generics[static_cast<size_t>(g)].is_type && !values[static_cast<size_t>(g)].bound()) {
        values[static_cast<size_t>(g)].dtype = actual[i].weak && is_float(actual[i].dtype) ? DType::F32 : actual[i].dtype;
      }
      if (p.type->dims.size() == actual[i].shape.size()) {
        for (size_t d = 0; d < p.type->dims.size(); ++d) {
          int dg = dim_generic(fn, *p.type->dims[d]);
          if (dg >= 0 && !values[static_cast<size_t>(dg)].bound()) values[static_cast<size_t>(dg)].value = actual[i].shape[d];
        }
      }
    }
    if (p.sem_count) {
      int dg = dim_generic(fn, *p.sem_count);
      if (dg >= 0 && !values[static_cast<size_t>(dg)].bound()) values[static_cast<size_t>(dg)].value = actual[i].detail().sem_count;
    }
  }
  for (const GenericValue& v : values) {
    if (!v.bound()) return Type::error();  // invalid-declaration at the function
  }
  FunctionInstance* inst = instantiate(fn, values, actual, &e);
  if (!inst) return Type::error();

  // Each argument against its parameter's type in this instance.
  for (size_t i = 0; i < args.size(); ++i) {
    const ast::FnParam& p = fn.params[i];
    ast::Expr& a = *args[i];
    const Type& want = inst->params[i]->type;
    if (want.is_error()) {
      ok = false;
      continue;
    }
    Type got = actual[i];
    const std::string which = arg_ordinal(i) + " of " + name;
    const std::string param = "parameter `" + p.name.text + "` is " + type_string(want);
    if (p.kind == ast::FnParam::Kind::Dma) continue;  // the instance took its type
    if (p.kind == ast::FnParam::Kind::Sem) {
      if (got.sem_kind != want.sem_kind) {
        diags_.report(DiagCode::SemaphoreKind, a.range, which + " is a " + type_string(got) + ", but " + param);
        ok = false;
      } else if (got.detail().sem_count != want.detail().sem_count) {
        diags_.report(DiagCode::ShapeMismatch, a.range, which + " is " + type_string(got) + ", but " + param);
        ok = false;
      }
      continue;
    }
    if (got.weak && got.shape.empty()) {
      if (is_float(got.dtype) && !is_float(want.dtype)) {
        diags_.report(DiagCode::TypeMismatch, a.range, which + " is a float literal, but " + param);
        ok = false;
        continue;
      }
      materialize(a, Type::value(want.dtype));
      got.dtype = want.dtype;
    }
    if (got.dtype != want.dtype || (p.kind == ast::FnParam::Kind::Ref && got.space != want.space)) {
      diags_.report(DiagCode::TypeMismatch, a.range, which + " is " + type_string(got) + ", but " + param)
          .note(name + " is declared here", fn.name.range);
      ok = false;
    } else if (got.shape != want.shape) {
      diags_.report(DiagCode::ShapeMismatch, a.range, which + " is " + type_string(got) + ", but " + param)
          .note(name + " is declared here", fn.name.range);
      ok = false;
    }
    // A write through a parameter without `in` into an `in` argument.
    const Symbol* ps = inst->params[i];
    if (p.kind == ast::FnParam::Kind::Ref && !p.readonly && ps->first_write.valid() && a.symbol) {
      Symbol* target = const_cast<Symbol*>(a.symbol);
      if (target->kind == Symbol::Kind::Param && target->mode == ast::ParamMode::In) {
        diags_.report(DiagCode::WriteToInput, ps->first_write,
                      name + " writes its parameter `" + p.name.text + "`, but the argument `" + target->name +
                          "` is an `in` ref")
            .note("`" + target->name + "` is passed here", a.range)
            .note("`" + target->name + "` is declared `in` here", target->range);
        ok = false;
      } else if (!target->first_write.valid()) {
        target->first_write = ps->first_write;
      }
    }
  }
  if (!ok) return Type::error();
  e.instance = inst;
  if (inst->results.empty()) return Type::void_type();
  if (fn.tuple_result) {
    Type t;
    t.kind = Type::Kind::Tuple;
    t.edit_detail().elements = inst->results;
    return t;
  }
  return inst->results[0];
}

}  // namespace kdt::check
