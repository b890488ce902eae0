// Calls to built-ins (spec sections 6, 7, 9), ref views and asm blocks.
#include <algorithm>
#include <cctype>
#include <map>

#include "checker.h"
#include "kdt/ptx_cross_thread.h"

namespace kdt::check {

namespace {

std::string dtype_str(DType t) { return std::string(dtype_name(t)); }

// Keywords that Pallas (jax.numpy) spells differently from KD.
const std::pair<std::string, std::string> kPallasKeywords[] = {{"preferred_element_type", "dtype"}};

// A keyword value that is a dtype name (`dtype=bf16`; the parser gives it as a Name).
bool is_dtype_name(const ast::Expr* e) {
  return e && e->kind == ast::Expr::Kind::Name && dtype_from_name(e->spelling.str()).has_value();
}

// `e` as constant + sum(coefficient x name) when it is linear in names that
// are not constants (`i*B`, `(i+1)*B`, `B + i - 1`); nullopt otherwise.
struct Linear {
  int64_t constant = 0;
  std::map<std::string, int64_t> terms;
};

std::optional<Linear> linear(Checker& c, const ast::Expr& e, int depth = 0) {
  if (depth > 32) return std::nullopt;
  if (auto v = c.eval_const(e, true)) return Linear{*v, {}};
  // Wrapping arithmetic: a wrong guess only loses the suggestion.
  auto add = [](int64_t x, int64_t y) { return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y)); };
  auto mul = [](int64_t x, int64_t y) { return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)); };
  switch (e.kind) {
    case ast::Expr::Kind::Name: return Linear{0, {{e.spelling, 1}}};
    case ast::Expr::Kind::Unary: {
      if (e.unary_op != ast::UnaryOp::Neg) return std::nullopt;
      auto x = linear(c, *e.operands[0], depth + 1);
      if (!x) return x;
      x->constant = mul(x->constant, -1);
      for (auto& [name, k] : x->terms) k = mul(k, -1);
      return x;
    }
    case ast::Expr::Kind::Binary: {
      auto x = linear(c, *e.operands[0], depth + 1);
      auto y = linear(c, *e.operands[1], depth + 1);
      if (!x || !y) return std::nullopt;
      if (e.binary_op == ast::BinaryOp::Add || e.binary_op == ast::BinaryOp::Sub) {
        int64_t sign = e.binary_op == ast::BinaryOp::Add ? 1 : -1;
        x->constant = add(x->constant, mul(sign, y->constant));
        for (const auto& [name, k] : y->terms) x->terms[name] = add(x->terms[name], mul(sign, k));
        return x;
      }
      if (e.binary_op == ast::BinaryOp::Mul && (x->terms.empty() || y->terms.empty())) {
        const Linear& k = x->terms.empty() ? *x : *y;
        Linear out = x->terms.empty() ? *y : *x;
        out.constant = mul(out.constant, k.constant);
        for (auto& [name, coefficient] : out.terms) coefficient = mul(coefficient, k.constant);
        return out;
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// Adds to the not-constant error of a slice `a:b` the KD form of a dynamic
// slice, with a fix-it when `b - a` is constant: `x[i*B:(i+1)*B]` is
// `x[ds(i*B, B)]` (Pallas's `pl.ds(i*B, B)`).
void dynamic_slice_hint(Checker& c, DiagnosticBuilder d, const ast::IndexEntry& entry, const SourceManager& sources) {
  d.note("the bounds of a slice `a:b` are constant expressions; a slice of constant size at a dynamic start is "
         "`ds(start, size)`, as Pallas's `pl.ds`");
  auto a = linear(c, *entry.first);
  auto b = linear(c, *entry.second);
  if (!a || !b) return;
  int64_t size = static_cast<int64_t>(static_cast<uint64_t>(b->constant) - static_cast<uint64_t>(a->constant));
  for (const auto& [name, k] : b->terms) {
    auto other = a->terms.find(name);
    if (k != (other == a->terms.end() ? 0 : other->second)) return;
  }
  for (const auto& [name, k] : a->terms) {
    if (k != 0 && !b->terms.count(name)) return;
  }
  if (size <= 0) return;
  const SourceRange& r = entry.first->range;
  std::string start = sources.file(r.file).text.substr(r.begin, r.end - r.begin);
  d.fixit(entry.range, "ds(" + start + ", " + std::to_string(size) + ")");
}

}  // namespace

namespace {

CallArgs split_args(ast::Expr& call, const BuiltinSpec& spec, DiagnosticEngine& diags) {
  CallArgs out;
  const std::string& name = call.spelling;
  const size_t min_positional = spec.min_positional;
  const size_t max_positional = spec.max_positional;
  for (ast::Arg& arg : call.args) {
    if (arg.kind == ast::Arg::Kind::Keyword) {
      const KeywordSpec* known = spec.keyword(arg.keyword.text.str());
      if (!known) {
        std::string list;
        for (const KeywordSpec& k : spec.keywords) list += std::string(list.empty() ? "" : ", ") + "`" + k.name + "`";
        DiagnosticBuilder d = diags.report(DiagCode::BadArgument, arg.keyword.range,
                                           "`" + name + "` has no keyword argument `" + arg.keyword.text + "`" +
                                               (list.empty() ? std::string() : "; allowed: " + list));
        // Pallas's spelling of a keyword KD has under another name.
        for (const auto& [pallas, kd] : kPallasKeywords) {
          if (arg.keyword.text == pallas && spec.keyword(kd)) {
            d.note("Pallas's `" + pallas + "=` is `" + kd + "=` in KD").fixit(arg.keyword.range, kd);
          }
        }
        out.ok = false;
      } else if (is_dtype_name(arg.value.get()) && known->type != KeywordType::DTypeName) {
        diags.report(DiagCode::BadArgument, arg.value->range,
                     "`" + arg.keyword.text + "=` takes a value, not the dtype `" + arg.value->spelling +
                         "`; a dtype is a value only after `dtype=`");
        out.ok = false;
      } else if (out.keyword(known->id)) {
        diags.report(DiagCode::BadArgument, arg.keyword.range, "keyword argument `" + arg.keyword.text + "` given twice");
        out.ok = false;
      } else {
        out.keywords[static_cast<size_t>(known->id)] = &arg;
      }
    } else {
      if (std::any_of(out.keywords.begin(), out.keywords.end(), [](const ast::Arg* k) { return k != nullptr; })) {
        diags.report(DiagCode::BadArgument, arg.range, "positional arguments must come before keyword arguments");
        out.ok = false;
      }
      out.positional.push_back(&arg);
    }
  }
  if (out.positional.size() < min_positional || out.positional.size() > max_positional) {
    std::string expected = min_positional == max_positional
                               ? std::to_string(min_positional)
                               : std::to_string(min_positional) + " to " + std::to_string(max_positional);
    diags.report(DiagCode::BadArgument, call.range,
                 "`" + name + "` takes " + expected + " positional argument" + (max_positional == 1 ? "" : "s") +
                     ", but " + std::to_string(out.positional.size()) + " " +
                     (out.positional.size() == 1 ? "was" : "were") + " given");
    out.ok = false;
  }
  return out;
}

}  // namespace

// Records what `call` resolved to: the row and its arguments by role. The
// typed keyword values (flags, axes, dtypes) are added where they are checked.
static ResolvedCall& record_call(CheckedProgram& program, ast::Expr& call, const BuiltinSpec& spec, const CallArgs& args) {
  ResolvedCall& r = program.calls.emplace_back();
  r.spec = &spec;
  r.id = spec.id;
  if (spec.id == BuiltinId::Cast) r.cast = dtype_from_name(call.spelling.str()).value_or(DType::F32);
  r.positional.assign(args.positional.begin(), args.positional.end());
  for (size_t k = 0; k < kKeywordCount; ++k) {
    if (args.keywords[k]) r[static_cast<Keyword>(k)].value = args.keywords[k]->value.get();
  }
  call.call = &r;
  return r;
}

// An argument that must be an ordinary expression (not a type or a shape list).
static ast::Expr* value_arg(ast::Arg* arg, DiagnosticEngine& diags) {
  if (arg->kind == ast::Arg::Kind::Type || arg->kind == ast::Arg::Kind::Shape) {
    diags.report(DiagCode::BadArgument, arg->range,
                 arg->kind == ast::Arg::Kind::Type
                     ? "a dtype-and-shape argument is allowed only in `zeros`, `ones`, `full` and `iota`"
                     : "a shape list is allowed only in `broadcast` and `reshape`");
    return nullptr;
  }
  return arg->value.get();
}

const Symbol* Checker::lookup_sem(ast::Expr& e, std::optional<SemKind> want, const char* call, bool array) {
  ast::Expr* base = &e;
  std::vector<ast::IndexEntry*> entries;
  if (e.kind == ast::Expr::Kind::Index) {
    base = e.operands[0].get();
    for (ast::IndexEntry& i : e.indices) entries.push_back(&i);
    if (entries.empty() || entries.size() > 2 ||
        std::any_of(entries.begin(), entries.end(),
                    [](const ast::IndexEntry* i) { return i->kind != ast::IndexEntry::Kind::Scalar; })) {
      diags_.report(DiagCode::TypeMismatch, e.range, "a semaphore array takes one scalar index per dimension");
      return nullptr;
    }
  }
  if (base->kind != ast::Expr::Kind::Name) {
    diags_.report(DiagCode::TypeMismatch, e.range, std::string("`") + call + "` expects a semaphore");
    return nullptr;
  }
  const Symbol* s = lookup(base->spelling);
  if (!s) {
    diags_.report(DiagCode::UndefinedName, base->range, "use of undeclared name `" + base->spelling + "`");
    return nullptr;
  }
  base->symbol = s;
  e.symbol = s;
  if (s->type.is_error()) return nullptr;
  if (s->type.kind != Type::Kind::Sem) {
    diags_.report(DiagCode::TypeMismatch, base->range,
                  std::string("`") + call + "` expects a semaphore, but `" + s->name + "` is " + type_string(s->type));
    return nullptr;
  }
  // Indices it takes: 0 for one semaphore, 1 or 2 for an array's element;
  // one fewer for a whole 1-D array or a row of a 2-D one (`array`).
  const size_t rank = s->type.detail().sem_count < 0 ? 0 : s->type.detail().sem_cols < 0 ? 1 : 2;
  const size_t wanted = array ? rank - (rank > 0 ? 1 : 0) : rank;
  if (array && rank == 0) {
    diags_.report(DiagCode::TypeMismatch, e.range,
                  std::string("`") + call + "` takes an array of semaphores here, but `" + s->name + "` is one semaphore");
    return nullptr;
  }
  if (entries.size() != wanted) {
    std::string what = rank == 0 ? "is a single semaphore, not an array"
                       : entries.size() < wanted
                           ? std::string("is ") + (rank == 2 ? "a 2-D" : "an") + " array of semaphores; index it" +
                                 (rank == 2 && !array ? " with `[i, j]`" : "")
                           : "has " + std::to_string(rank) + (rank == 1 ? " dimension" : " dimensions") +
                                 (array ? ", and an array is passed here" : "");
    auto d = diags_.report(DiagCode::TypeMismatch, e.range, "`" + s->name + "` " + what);
    if (rank == 1 && entries.empty() && !array) d.fixit(SourceRange{e.range.file, e.range.end, e.range.end}, "[0]");
    return nullptr;
  }
  for (size_t d = 0; d < entries.size(); ++d) {
    ast::IndexEntry* entry = entries[d];
    const int64_t length = d == 0 ? s->type.detail().sem_count : s->type.detail().sem_cols;
    expect_scalar(*entry->first, DType::I32, "a semaphore index");
    if (auto v = eval_const(*entry->first, true); v && (*v < 0 || *v >= length)) {
      diags_.report(DiagCode::StaticOutOfBounds, entry->range,
                    "index " + std::to_string(*v) + " is out of bounds for `" + s->name + "`" +
                        (rank == 2 ? (d == 0 ? " (rows)" : " (columns)") : "") + " of length " + std::to_string(length));
    }
  }
  if (want && s->type.sem_kind != *want) {
    diags_.report(DiagCode::SemaphoreKind, e.range,
                  std::string("`") + call + "` takes a " + (*want == SemKind::Dma ? "`dma`" : "`regular`") +
                      " semaphore, but `" + s->name + "` is " +
                      (s->type.sem_kind == SemKind::Dma ? "a `dma`" : "a `regular`") + " semaphore")
        .note("declared here", s->range);
    return nullptr;
  }
  e.type = Type::void_type();
  return s;
}

// What is being indexed: a tile value (static indices only), a view of a
// ref, or the view of a masked load/store, whose slices may reach past the
// ref (spec section 6: masked-off elements may lie outside it; masked-on
// ones are checked element by element at run time).
enum class Indexing { Tile, View, MaskedView };

// Shared by views of refs and static indexing of tile values: applies the
// index entries to `shape`, filling each entry's static start and size.
static std::optional<Shape> apply_indices(Checker& c, CompactVector<ast::IndexEntry>& indices, const Shape& shape,
                                          const std::string& what, SourceRange range, Indexing indexing) {
  DiagnosticEngine& diags = c.diags_;
  const bool dynamic_allowed = indexing != Indexing::Tile;
  const bool past_end_allowed = indexing == Indexing::MaskedView;
  size_t ellipsis_count = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i].kind != ast::IndexEntry::Kind::Ellipsis) continue;
    ++ellipsis_count;
    if (ellipsis_count > 1 || i + 1 != indices.size()) {
      diags.report(DiagCode::Syntax, indices[i].range, "`...` may appear once, as the last index");
      return std::nullopt;
    }
  }
  size_t explicit_count = indices.size() - ellipsis_count;
  if (explicit_count > shape.size()) {
    diags.report(DiagCode::ShapeMismatch, range,
                 std::to_string(explicit_count) + " indices for " + what + " of rank " + std::to_string(shape.size()));
    return std::nullopt;
  }
  Shape out;
  bool ok = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    ast::IndexEntry* entry = d < explicit_count ? &indices[d] : nullptr;
    int64_t dim = shape[d];
    if (!entry || entry->kind == ast::IndexEntry::Kind::Full || entry->kind == ast::IndexEntry::Kind::Ellipsis) {
      if (entry) {
        entry->start = 0;
        entry->size = dim;
      }
      out.push_back(dim);
      continue;
    }
    auto out_of_bounds = [&](SourceRange r, const std::string& message) {
      diags.report(DiagCode::StaticOutOfBounds, r, message + " for dimension " + std::to_string(d) + " of " + what +
                                                       ", which has size " + std::to_string(dim));
      ok = false;
    };
    switch (entry->kind) {
      case ast::IndexEntry::Kind::Scalar: {
        if (dynamic_allowed) {
          c.expect_scalar(*entry->first, DType::I32, "an index");
          if (auto v = c.eval_const(*entry->first, true); v && (*v < 0 || *v >= dim)) {
            out_of_bounds(entry->range, "index " + std::to_string(*v) + " is out of bounds");
          }
        } else {
          auto v = c.eval_const(*entry->first);
          if (!v) {
            ok = false;
          } else if (*v < 0 || *v >= dim) {
            out_of_bounds(entry->range, "index " + std::to_string(*v) + " is out of bounds");
          } else {
            entry->start = *v;
          }
        }
        entry->size = 1;
        break;
      }
      case ast::IndexEntry::Kind::Slice: {
        size_t reported = diags.diagnostics().size();
        auto a = c.eval_const(*entry->first);
        auto b = c.eval_const(*entry->second);
        if (!a || !b) {
          // Pallas's `x[i*B:(i+1)*B]`: KD's dynamic slice is ds(start, size).
          if (dynamic_allowed) dynamic_slice_hint(c, diags.amend(reported), *entry, diags.sources());
          ok = false;
          break;
        }
        if (*a >= *b || (!past_end_allowed && (*a < 0 || *b > dim))) {
          out_of_bounds(entry->range, "slice " + std::to_string(*a) + ":" + std::to_string(*b) +
                                          (*a >= *b ? " is empty" : " is out of bounds"));
          break;
        }
        entry->start = *a;
        entry->size = *b - *a;
        out.push_back(entry->size);
        break;
      }
      case ast::IndexEntry::Kind::DynSlice: {
        ast::Expr& call = *entry->first;
        if (!dynamic_allowed) {
          diags.report(DiagCode::NotConstant, entry->range, "tile values take only static indices and slices");
          ok = false;
          break;
        }
        const BuiltinSpec& ds = builtin(BuiltinId::Ds);
        CallArgs args = split_args(call, ds, diags);
        if (!args.ok) {
          ok = false;
          break;
        }
        record_call(c.program_, call, ds, args);
        ast::Expr* start = value_arg(args.positional[0], diags);
        ast::Expr* size = value_arg(args.positional[1], diags);
        if (!start || !size) {
          ok = false;
          break;
        }
        c.expect_scalar(*start, DType::I32, "the start of `ds`");
        auto n = c.eval_positive(*size, "the size of `ds`");
        if (!n) {
          ok = false;
          break;
        }
        if (*n > dim && !past_end_allowed) {
          out_of_bounds(size->range, "slice size " + std::to_string(*n) + " is too large");
          break;
        }
        if (auto s = c.eval_const(*start, true); s && !past_end_allowed && (*s < 0 || *s + *n > dim)) {
          out_of_bounds(entry->range, "slice " + std::to_string(*s) + ":" + std::to_string(*s + *n) + " is out of bounds");
          break;
        }
        entry->size = *n;
        call.type = Type::value(DType::I32);
        out.push_back(*n);
        break;
      }
      default: break;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

View Checker::check_view(ast::Expr& e, bool for_write, bool masked) {
  View view;
  ast::Expr* base = e.kind == ast::Expr::Kind::Index ? e.operands[0].get() : &e;
  if (base->kind != ast::Expr::Kind::Name) {
    diags_.report(DiagCode::TypeMismatch, e.range, "expected a ref or a view of a ref");
    if (base != &e) check_expr(*base);
    return view;
  }
  const Symbol* s = lookup(base->spelling);
  if (!s) {
    diags_.report(DiagCode::UndefinedName, base->range, "use of undeclared name `" + base->spelling + "`");
    return view;
  }
  const_cast<Symbol*>(s)->used = true;
  base->symbol = s;
  e.symbol = s;
  if (s->type.is_error()) return view;
  if (!s->type.is_ref()) {
    diags_.report(DiagCode::TypeMismatch, base->range,
                  "expected a ref, but `" + s->name + "` is " + type_string(s->type));
    return view;
  }
  if (for_write && s->kind == Symbol::Kind::Param && !s->first_write.valid()) {
    const_cast<Symbol*>(s)->first_write = e.range;
  }
  if (for_write && s->kind == Symbol::Kind::Param && s->mode == ast::ParamMode::In) {
    diags_.report(DiagCode::WriteToInput, e.range, "`" + s->name + "` is an `in` parameter and cannot be written")
        .note("declared `in` here; use `inout` to allow writes", s->range);
  }
  Shape shape = s->type.shape;
  if (e.kind == ast::Expr::Kind::Index) {
    auto out = apply_indices(*this, e.indices, s->type.shape, "`" + s->name + "`", e.range,
                             masked ? Indexing::MaskedView : Indexing::View);
    if (!out) return view;
    shape = *out;
  }
  view.ref = s;
  view.shape = shape;
  view.ok = true;
  e.type = Type::value(s->type.dtype, shape);
  return view;
}

Type Checker::check_index_value(ast::Expr& e) {
  ast::Expr& base = *e.operands[0];
  if (base.kind == ast::Expr::Kind::Name) {
    const Symbol* s = lookup(base.spelling);
    if (s && s->type.is_ref()) {
      View v = check_view(e, false);
      return v.ok ? e.type : Type::error();
    }
    if (s && s->type.kind == Type::Kind::Sem) {
      diags_.report(DiagCode::TypeMismatch, e.range, "a semaphore is not a value; pass it to `dma_wait`, `sem_wait`, ...");
      return Type::error();
    }
  }
  Type t = check_expr(base);
  if (t.is_error()) return t;
  if (!t.is_value() || t.shape.empty()) {
    diags_.report(DiagCode::TypeMismatch, e.range, "only refs and tiles can be indexed");
    return Type::error();
  }
  auto shape = apply_indices(*this, e.indices, t.shape, "the tile", e.range, Indexing::Tile);
  if (!shape) return Type::error();
  return Type::value(t.dtype, *shape, t.weak);
}

Type Checker::value_of(ast::Arg* arg) {
  ast::Expr* v = value_arg(arg, diags_);
  if (!v) return Type::error();
  Type t = check_expr(*v);
  if (!t.is_error() && !t.is_value()) {
    diags_.report(DiagCode::TypeMismatch, v->range, "expected a value, not " + type_string(t));
    return Type::error();
  }
  return t;
}

Type Checker::check_call(ast::Expr& e) {
  const std::string& f = e.spelling;
  // A KD function, or a type name used as a cast (`T(x)`, section 14).
  const Symbol* named = lookup(f);
  if (named && named->kind == Symbol::Kind::Function) {
    auto fn = functions_.find(f);
    if (fn != functions_.end()) return check_function_call(e, *fn->second);
  }
  std::optional<DType> alias;
  if (named && named->kind == Symbol::Kind::Type) {
    const_cast<Symbol*>(named)->used = true;
    if (named->type.is_error()) return Type::error();
    alias = named->type.dtype;
  }
  const BuiltinSpec* spec = alias ? &builtin(BuiltinId::Cast) : find_builtin(f);
  if (!spec) {
    diags_.report(DiagCode::UndefinedName, e.op_range, "unknown function `" + f + "`");
    for (ast::Arg& arg : e.args) {
      if (arg.value) check_expr(*arg.value);
    }
    return Type::error();
  }
  const BuiltinId id = spec->id;
  if (spec->result == ResultRule::IndexOnly) {
    diags_.report(DiagCode::BadArgument, e.range, "`ds(start, size)` is allowed only as an index");
    return Type::error();
  }
  types_as_args(e);
  // Split once; `call` is what lowering reads (only when every check passed).
  CallArgs a = split_args(e, *spec, diags_);
  if (!a.ok) return Type::error();
  ResolvedCall& call = record_call(program_, e, *spec, a);
  if (alias) call.cast = *alias;
  switch (spec->result) {
    case ResultRule::Cast: {
      // `f32(x)`: an element-wise cast.
      Type t = value_of(a.positional[0]);
      if (t.is_error()) return t;
      if (t.weak) materialize(*a.positional[0]->value, t);
      return Type::value(call.cast, t.shape);
    }
    case ResultRule::GridScalar: {
      if (id == BuiltinId::DeviceId || id == BuiltinId::NumDevices) {
        // No argument: the linear id and the total; `(a)`: mesh axis `a`.
        std::optional<int64_t> axis = -1;  // -1: none (the linear id, the total)
        if (!a.positional.empty()) {
          if (a.positional[0]->kind != ast::Arg::Kind::Positional) {
            diags_.report(DiagCode::BadArgument, a.positional[0]->range, "`" + e.spelling + "` takes a mesh axis");
            return Type::error();
          }
          axis = mesh_axis_arg(*a.positional[0]->value);
          if (!axis) return Type::error();
        }
        // Without a kernel (a function checked on its own) the sizes are
        // not known: each kernel's instance knows them.
        if (id == BuiltinId::NumDevices && kernel_) e.const_value = *axis >= 0 ? kernel_->mesh[*axis] : kernel_->devices;
        return Type::value(DType::I32);
      }
      ast::Expr* axis = value_arg(a.positional[0], diags_);
      if (!axis) return Type::error();
      auto k = grid_axis_arg(*axis);  // `program_id(k)` of a named axis (section 13)
      if (!k) k = eval_const(*axis);
      if (!k) return Type::error();
      axis->const_value = k;
      if (!kernel_) {
        if (*k >= 0) return Type::value(DType::I32);
        diags_.report(DiagCode::StaticOutOfBounds, axis->range, "grid axis " + std::to_string(*k) + " does not exist");
        return Type::error();
      }
      if (*k < 0 || *k >= static_cast<int64_t>(kernel_->grid.size())) {
        diags_.report(DiagCode::StaticOutOfBounds, axis->range,
                      "grid axis " + std::to_string(*k) + " does not exist; the grid has " +
                          std::to_string(kernel_->grid.size()) + (kernel_->grid.size() == 1 ? " axis" : " axes"));
        return Type::error();
      }
      if (id == BuiltinId::NumPrograms) e.const_value = kernel_->grid[*k];
      return Type::value(DType::I32);
    }
    case ResultRule::Operands: {
      Type ta = value_of(a.positional[0]);
      Type tb = value_of(a.positional[1]);
      if (ta.is_error() || tb.is_error()) return Type::error();
      Type t = unify(*a.positional[0]->value, *a.positional[1]->value, e.range, f.c_str());
      if (t.is_error()) return t;
      if (!is_integer(t.dtype)) {
        diags_.report(DiagCode::TypeMismatch, e.range, "`" + f + "` takes integers");
        return Type::error();
      }
      if (a.positional[0]->value->const_value && a.positional[1]->value->const_value) e.const_value = eval_const(e, true);
      return t;
    }
    case ResultRule::IndexOnly: break;  // reported above, before its arguments
    case ResultRule::Creation: {
      ast::Arg* type_arg = a.positional[0];
      if (type_arg->kind != ast::Arg::Kind::Type) {
        diags_.report(DiagCode::BadArgument, type_arg->range,
                      "the first argument of `" + f + "` is a dtype and shape, e.g. `f32[8, 128]`");
        return Type::error();
      }
      auto shape = eval_shape(type_arg->type->dims, type_arg->type->range);
      std::optional<DType> resolved = resolve_dtype(*type_arg->type);
      if (!shape || !resolved) return Type::error();
      DType dtype = type_arg->type->dtype = *resolved;
      if (id == BuiltinId::Full) {
        ast::Expr* v = value_arg(a.positional[1], diags_);
        if (!v) return Type::error();
        expect_scalar(*v, dtype, "the fill value");
      } else if (id == BuiltinId::Iota) {
        ast::Expr* axis = value_arg(a.positional[1], diags_);
        if (!axis) return Type::error();
        auto k = eval_const(*axis);
        if (!k) return Type::error();
        axis->const_value = k;
        if (*k < 0 || *k >= static_cast<int64_t>(shape->size())) {
          diags_.report(DiagCode::StaticOutOfBounds, axis->range,
                        "axis " + std::to_string(*k) + " does not exist in a tile of rank " + std::to_string(shape->size()));
          return Type::error();
        }
        if (dtype == DType::Bool) {
          diags_.report(DiagCode::TypeMismatch, type_arg->range, "`iota` needs a numeric dtype");
          return Type::error();
        }
      }
      return Type::value(dtype, *shape);
    }
    case ResultRule::FloatUnary: {
      Type t = value_of(a.positional[0]);
      if (t.is_error()) return t;
      if (t.weak) {
        if (!is_float(t.dtype)) {
          diags_.report(DiagCode::TypeMismatch, a.positional[0]->range,
                        "`" + f + "` takes a float; write a float literal or cast");
          return Type::error();
        }
        t.weak = false;
      }
      if (!is_float(t.dtype)) {
        diags_.report(DiagCode::TypeMismatch, a.positional[0]->range,
                      "`" + f + "` takes a float dtype, not `" + dtype_str(t.dtype) + "`");
        return Type::error();
      }
      return t;
    }
    case ResultRule::Elementwise: {
      // maximum(a, b), minimum(a, b); where(c, a, b) has a condition first.
      const bool where = id == BuiltinId::Where;
      size_t first = 0;
      Shape cond_shape;
      if (where) {
        Type c = value_of(a.positional[0]);
        if (c.is_error()) return c;
        if (c.dtype != DType::Bool) {
          diags_.report(DiagCode::TypeMismatch, a.positional[0]->range, "the condition of `where` must be `bool`");
          return Type::error();
        }
        cond_shape = c.shape;
        first = 1;
      }
      Type x = value_of(a.positional[first]);
      Type y = value_of(a.positional[first + 1]);
      if (x.is_error() || y.is_error()) return Type::error();
      Type t = unify(*a.positional[first]->value, *a.positional[first + 1]->value, e.range, f.c_str());
      if (t.is_error()) return t;
      if (!where && !is_numeric(t.dtype)) {
        diags_.report(DiagCode::TypeMismatch, e.range, "`" + f + "` takes numbers");
        return Type::error();
      }
      auto shape = broadcast_shapes(t.shape, cond_shape);
      if (!shape) {
        diags_.report(DiagCode::ShapeMismatch, e.range, "the condition of `where` does not broadcast with its values");
        return Type::error();
      }
      t.shape = *shape;
      return t;
    }
    case ResultRule::Reduction: {
      Type t = value_of(a.positional[0]);
      if (t.is_error()) return t;
      t = materialize(*a.positional[0]->value, t);
      if (!is_numeric(t.dtype)) {
        diags_.report(DiagCode::TypeMismatch, a.positional[0]->range, "`" + f + "` takes numbers");
        return Type::error();
      }
      bool keepdims = false;
      if (ast::Arg* k = a.keyword(Keyword::Keepdims)) {
        if (k->value->kind != ast::Expr::Kind::BoolLiteral) {
          diags_.report(DiagCode::NotConstant, k->value->range, "`keepdims` must be `true` or `false`");
          return Type::error();
        }
        keepdims = k->value->bool_value;
        k->value->type = Type::value(DType::Bool);
        call[Keyword::Keepdims].flag = keepdims;
      }
      ast::Arg* axis_arg = a.keyword(Keyword::Axis);
      if (!axis_arg) {
        return Type::value(t.dtype, keepdims ? Shape(t.shape.size(), 1) : Shape{});
      }
      auto axis = eval_const(*axis_arg->value);
      if (!axis) return Type::error();
      if (*axis < 0 || *axis >= static_cast<int64_t>(t.shape.size())) {
        diags_.report(DiagCode::StaticOutOfBounds, axis_arg->value->range,
                      "axis " + std::to_string(*axis) + " does not exist in " + type_string(t));
        return Type::error();
      }
      axis_arg->value->const_value = axis;
      call[Keyword::Axis].constant = axis;
      Shape shape = t.shape;
      if (keepdims) shape[*axis] = 1;
      else shape.erase(shape.begin() + *axis);
      return Type::value(t.dtype, shape);
    }
    case ResultRule::ShapeList: {
      Type t = value_of(a.positional[0]);
      if (t.is_error()) return t;
      t = materialize(*a.positional[0]->value, t);
      ast::Arg* shape_arg = a.positional[1];
      if (shape_arg->kind != ast::Arg::Kind::Shape) {
        diags_.report(DiagCode::BadArgument, shape_arg->range, "`" + f + "` takes a shape list such as `[8, 128]`");
        return Type::error();
      }
      auto shape = eval_shape(shape_arg->shape, shape_arg->range);
      if (!shape) return Type::error();
      if (id == BuiltinId::Broadcast) {
        auto b = broadcast_shapes(t.shape, *shape);
        if (!b || *b != *shape) {
          diags_.report(DiagCode::ShapeMismatch, e.range,
                        "cannot broadcast " + shape_string(t.shape) + " to " + shape_string(*shape));
          return Type::error();
        }
      } else if (Type::value(t.dtype, *shape).element_count() != t.element_count()) {
        diags_.report(DiagCode::ShapeMismatch, e.range,
                      "cannot reshape " + shape_string(t.shape) + " (" + std::to_string(t.element_count()) +
                          " elements) to " + shape_string(*shape));
        return Type::error();
      }
      return Type::value(t.dtype, *shape);
    }
    case ResultRule::Transposed: {
      Type t = value_of(a.positional[0]);
      if (t.is_error()) return t;
      if (t.shape.size() != 2) {
        diags_.report(DiagCode::ShapeMismatch, a.positional[0]->range, "`" + f + "` takes a 2-D tile, not " + type_string(t));
        return Type::error();
      }
      return Type::value(t.dtype, {t.shape[1], t.shape[0]});
    }
    case ResultRule::Dot: return check_dot(e, a, call);
    case ResultRule::ViewLoad:
    case ResultRule::Void:
    case ResultRule::Descriptor:
    case ResultRule::SemValue: return check_memory_call(e, a, call);
  }
  return Type::error();
}

// dot(a, b, dtype=T, trans_a=…, trans_b=…) (spec section 9; the accumulator
// for 64-bit inputs is kdt's decision, docs/language.md).
Type Checker::check_dot(ast::Expr& e, const CallArgs& a, ResolvedCall& call) {
  Type x = value_of(a.positional[0]);
  Type y = value_of(a.positional[1]);
  if (x.is_error() || y.is_error()) return Type::error();
  bool trans[2] = {false, false};
  bool flags_ok = true;
  for (int i = 0; i < 2; ++i) {
    const Keyword word = i == 0 ? Keyword::TransA : Keyword::TransB;
    if (ast::Arg* k = a.keyword(word)) {
      if (k->value->kind != ast::Expr::Kind::BoolLiteral) {
        diags_.report(DiagCode::NotConstant, k->value->range,
                      std::string("`") + keyword_name(word) + "` must be `true` or `false`");
        flags_ok = false;
      } else {
        trans[i] = k->value->bool_value;
        k->value->type = Type::value(DType::Bool);
        call[word].flag = trans[i];
      }
    }
  }
  std::optional<DType> result;
  if (ast::Arg* k = a.keyword(Keyword::Dtype)) {
    result = is_dtype_name(k->value.get()) ? dtype_from_name(k->value->spelling.str()) : std::nullopt;
    if (!result && k->value->kind == ast::Expr::Kind::Name && is_type_name(k->value->spelling)) {
      result = resolve_type_name({k->value->spelling, k->value->range});
    }
    if (!result) {
      diags_.report(DiagCode::BadArgument, k->value->range, "`dtype=` takes a dtype such as `f32` or `bf16`");
      flags_ok = false;
    } else if (*result == DType::Bool) {
      diags_.report(DiagCode::BadArgument, k->value->range, "the result of `dot` is numeric; `dtype=bool` is not allowed");
      flags_ok = false;
    }
    if (result) call[Keyword::Dtype].dtype = *result;
  }
  if (!flags_ok) return Type::error();
  // [M, K] x [K, N]; trans_a takes `a` as [K, M], trans_b `b` as [N, K].
  if (x.shape.size() != 2 || y.shape.size() != 2 || x.shape[trans[0] ? 0 : 1] != y.shape[trans[1] ? 1 : 0]) {
    std::string wanted = std::string(trans[0] ? "[K, M]" : "[M, K]") + " x " + (trans[1] ? "[N, K]" : "[K, N]");
    std::string with = trans[0] && trans[1] ? " with `trans_a=true, trans_b=true`"
                       : trans[0]           ? " with `trans_a=true`"
                       : trans[1]           ? " with `trans_b=true`"
                                            : "";
    diags_.report(DiagCode::ShapeMismatch, e.range,
                  "`dot`" + with + " takes " + wanted + ", not " + shape_string(x.shape) + " x " + shape_string(y.shape));
    return Type::error();
  }
  if (x.dtype != y.dtype || x.dtype == DType::Bool) {
    diags_.report(DiagCode::TypeMismatch, e.range,
                  "`dot` takes two operands of one numeric dtype, not `" + dtype_str(x.dtype) + "` and `" +
                      dtype_str(y.dtype) + "`");
    return Type::error();
  }
  // Then one rounding to `dtype=` when given.
  return Type::value(result.value_or(dot_accumulator(x.dtype)), {x.shape[trans[0] ? 1 : 0], y.shape[trans[1] ? 0 : 1]});
}

// load, store, the DMAs and the semaphore operations.
Type Checker::expect_descriptor(ast::Expr& e, const char* call) {
  Type t = check_expr(e);
  if (t.is_error() || t.kind == Type::Kind::Dma) return t;
  diags_.report(DiagCode::TypeMismatch, e.range,
                std::string("`") + call + "` expects a DMA descriptor (from `dma(...)` or `dma_start(...)`), not " +
                    type_string(t));
  return Type::error();
}

Type Checker::check_memory_call(ast::Expr& e, const CallArgs& a, ResolvedCall& call) {
  const std::string& f = e.spelling;
  switch (call.id) {
    case BuiltinId::Load:
    case BuiltinId::Store: {
      bool is_store = call.id == BuiltinId::Store;
      ast::Expr* view_expr = value_arg(a.positional[0], diags_);
      if (!view_expr) return Type::error();
      View v = check_view(*view_expr, is_store, a.keyword(Keyword::Mask) != nullptr);
      if (!v.ok) return Type::error();
      DType dtype = v.ref->type.dtype;
      if (ast::Arg* m = a.keyword(Keyword::Mask)) expect_value(*m->value, Type::value(DType::Bool, v.shape), "the mask");
      if (is_store) {
        ast::Expr* val = value_arg(a.positional[1], diags_);
        if (val) expect_value(*val, Type::value(dtype, v.shape), "the stored value");
        return Type::void_type();
      }
      if (ast::Arg* o = a.keyword(Keyword::Other)) expect_scalar(*o->value, dtype, "`other`");
      return Type::value(dtype, v.shape);
    }
    case BuiltinId::DmaStart:
      if (a.positional.size() == 1) {
        // `dma_start(c)`: the DMA a descriptor describes, with its own `add`,
        // `src_sem` and device (section 16).
        for (const ast::Arg* k : a.keywords) {
          if (k) {
            diags_.report(DiagCode::BadArgument, k->range,
                          "`dma_start` of a descriptor takes no `" + k->keyword.text +
                              "=`: the descriptor has its own; give it to `dma(...)`");
          }
        }
        ast::Expr* c = value_arg(a.positional[0], diags_);
        if (c) expect_descriptor(*c, f.c_str());
        return Type::void_type();
      }
      if (a.positional.size() == 2) {
        diags_.report(DiagCode::BadArgument, e.range,
                      "`dma_start` takes a descriptor, or a source, a destination and a semaphore");
        return Type::error();
      }
      [[fallthrough]];
    case BuiltinId::Dma: {
      ast::Expr* src = value_arg(a.positional[0], diags_);
      ast::Expr* dst = value_arg(a.positional[1], diags_);
      ast::Expr* sem = value_arg(a.positional[2], diags_);
      if (!src || !dst || !sem) return Type::error();
      View vs = check_view(*src, false);
      View vd = check_view(*dst, true);
      const Symbol* sem_symbol = lookup_sem(*sem, SemKind::Dma, f.c_str());
      bool add = false;
      if (ast::Arg* k = a.keyword(Keyword::Add)) {
        if (k->value->kind != ast::Expr::Kind::BoolLiteral) {
          diags_.report(DiagCode::NotConstant, k->value->range, "`add` must be `true` or `false`");
        } else {
          add = k->value->bool_value;
          k->value->type = Type::value(DType::Bool);
          call[Keyword::Add].flag = add;
        }
      }
      ast::Arg* device = a.keyword(Keyword::Device);
      ast::Arg* src_sem = a.keyword(Keyword::SrcSem);
      if (device) check_device_value(*device->value);
      const Symbol* src_sem_symbol = src_sem ? lookup_sem(*src_sem->value, SemKind::Dma, f.c_str()) : nullptr;
      if (device && !src_sem) {
        diags_.report(DiagCode::BadArgument, e.range, "a remote DMA (`device=`) needs `src_sem=`")
            .fixit(SourceRange{e.range.file, e.range.end - 1, e.range.end - 1}, ", src_sem=SEM");
      } else if (src_sem && !device) {
        diags_.report(DiagCode::BadArgument, src_sem->range, "`src_sem=` is only for remote DMAs (with `device=`)");
      }
      if (!vs.ok || !vd.ok) return Type::error();
      if (device && vd.ref->block_spec) {
        diags_.report(DiagCode::BlockSpec, dst->range,
                      "`" + vd.ref->name + "` has a block spec: its block is this program's step buffer, which no peer "
                      "may write")
            .note("DMA into a scratch buffer, or into the whole array without a block spec");
      }
      if (vs.shape != vd.shape) {
        diags_.report(DiagCode::DmaShapeMismatch, e.range,
                      "DMA from a view of shape " + shape_string(vs.shape) + " to a view of shape " +
                          shape_string(vd.shape))
            .label(src->range, "source " + shape_string(vs.shape))
            .label(dst->range, "destination " + shape_string(vd.shape));
      }
      if (vs.ref->type.dtype != vd.ref->type.dtype) {
        diags_.report(DiagCode::DmaDtypeMismatch, e.range,
                      "DMA from `" + dtype_str(vs.ref->type.dtype) + "` to `" + dtype_str(vd.ref->type.dtype) +
                          "`; DMAs do not convert")
            .label(src->range, "`" + dtype_str(vs.ref->type.dtype) + "`")
            .label(dst->range, "`" + dtype_str(vd.ref->type.dtype) + "`");
      }
      if (add && vd.ref->type.dtype == DType::Bool) {
        diags_.report(DiagCode::DmaAddDtype, a.keyword(Keyword::Add)->range, "`add=true` needs a numeric dtype, not `bool`")
            .label(dst->range, "`bool` destination");
      }
      Type descriptor;
      descriptor.kind = Type::Kind::Dma;
      descriptor.edit_detail().elements = {Type::ref(vs.ref->type.dtype, vs.shape, vs.ref->type.space),
                             Type::ref(vd.ref->type.dtype, vd.shape, vd.ref->type.space)};
      descriptor.dma_add = add;
      descriptor.dma_remote = device != nullptr;
      for (const Symbol* named : {vs.ref, vd.ref, sem_symbol, src_sem_symbol}) {
        if (named && named->function_local && !descriptor.detail().dma_local) descriptor.edit_detail().dma_local = named;
      }
      return descriptor;
    }
    case BuiltinId::DmaWaitSend:
    case BuiltinId::DmaWaitRecv: {
      ast::Expr* c = value_arg(a.positional[0], diags_);
      if (!c) return Type::error();
      Type t = expect_descriptor(*c, f.c_str());
      // A descriptor parameter checked on its own (no elements) may be either.
      if (call.id == BuiltinId::DmaWaitSend && t.kind == Type::Kind::Dma && !t.detail().elements.empty() && !t.dma_remote) {
        diags_.report(DiagCode::BadArgument, c->range,
                      "`dma_wait_send` of a local descriptor: only a remote DMA (`device=`) has a send side to wait "
                      "for; use `dma_wait` or `dma_wait_recv`");
      }
      return Type::void_type();
    }
    case BuiltinId::DmaWait: {
      if (a.positional.size() == 1) {
        if (ast::Expr* c = value_arg(a.positional[0], diags_)) expect_descriptor(*c, f.c_str());
        return Type::void_type();
      }
      ast::Expr* sem = value_arg(a.positional[0], diags_);
      ast::Expr* view = value_arg(a.positional[1], diags_);
      if (sem) lookup_sem(*sem, SemKind::Dma, f.c_str());
      if (view) check_view(*view, false);
      return Type::void_type();
    }
    case BuiltinId::SemSignal:
    case BuiltinId::SemWait:
    case BuiltinId::SemRead: {
      ast::Expr* sem = value_arg(a.positional[0], diags_);
      // sem_read reads either kind (section 7): a DMA semaphore's landed, not yet waited bytes.
      if (sem) lookup_sem(*sem, call.id == BuiltinId::SemRead ? std::nullopt : std::optional<SemKind>(SemKind::Regular), f.c_str());
      if (a.positional.size() > 1) {
        if (ast::Expr* n = value_arg(a.positional[1], diags_)) {
          expect_scalar(*n, DType::I32, "the amount");
          if (auto v = eval_const(*n, true); v && *v <= 0) {
            diags_.report(DiagCode::BadArgument, n->range, "the amount must be positive");
          }
        }
      }
      if (ast::Arg* d = a.keyword(Keyword::Device)) check_device_value(*d->value);
      return call.id == BuiltinId::SemRead ? Type::value(DType::I32) : Type::void_type();
    }
    default: break;
  }
  return Type::error();
}

namespace {

// `%name` references of one template string: longest identifier; `%%` is a
// literal percent sign.
struct OperandRef {
  std::string name;
  size_t begin, end;  // byte positions in the unescaped string
};

std::vector<OperandRef> operand_refs(const std::string& text) {
  std::vector<OperandRef> refs;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    if (i + 1 < text.size() && text[i + 1] == '%') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    refs.push_back({text.substr(i + 1, j - i - 1), i, j});
    i = j - 1;
  }
  return refs;
}

SourceRange string_range(const ast::AsmString& s, size_t begin, size_t end) {
  if (begin >= s.source_offsets.size()) return s.range;
  uint32_t last = s.source_offsets[std::min(end, s.source_offsets.size()) - 1];
  return {s.range.file, s.source_offsets[begin], last + 1};
}

// Whether `stmt` assigns `output` on every path (definite assignment).
bool assigns(const ast::Stmt& stmt, const Symbol* output) {
  if (stmt.kind == ast::Stmt::Kind::Assign) return stmt.target->symbol == output;
  if (stmt.kind == ast::Stmt::Kind::Block) {
    return std::any_of(stmt.body.stmts.begin(), stmt.body.stmts.end(),
                       [&](const ast::StmtPtr& s) { return assigns(*s, output); });
  }
  if (stmt.kind == ast::Stmt::Kind::If) {
    if (stmt.clauses.empty() || stmt.clauses.back().cond) return false;  // no final else
    return std::all_of(stmt.clauses.begin(), stmt.clauses.end(), [&](const ast::IfClause& c) {
      return std::any_of(c.body.stmts.begin(), c.body.stmts.end(),
                         [&](const ast::StmtPtr& s) { return assigns(*s, output); });
    });
  }
  return false;
}

}  // namespace

Type Checker::check_asm(ast::Expr& e) {
  ast::AsmBlock& a = *e.asm_block;
  Shape shape;
  bool ok = true;
  std::map<std::string, SourceRange> operand_names;
  auto note_name = [&](const ast::Name& n) {
    auto [it, inserted] = operand_names.emplace(n.text, n.range);
    if (!inserted) {
      diags_.report(DiagCode::Redefinition, n.range, "asm operand `" + n.text + "` is declared twice")
          .note("previous declaration is here", it->second);
      ok = false;
    }
  };
  for (ast::AsmOperand& in : a.inputs) {
    note_name(in.name);
    if (in.dtype == DType::Bool) {
      diags_.report(DiagCode::TypeMismatch, in.range, "asm operands cannot be `bool`; pass an integer (PTX `.pred` is set with `setp`)");
      ok = false;
    }
    Type t = check_expr(*in.value);
    if (t.is_error()) {
      ok = false;
      continue;
    }
    expect_value(*in.value, Type::value(in.dtype, t.shape), "the asm input");
    auto s = broadcast_shapes(shape, t.shape);
    if (!s) {
      diags_.report(DiagCode::ShapeMismatch, in.value->range,
                    "asm input of shape " + shape_string(t.shape) + " does not broadcast with " + shape_string(shape));
      ok = false;
    } else {
      shape = *s;
    }
  }
  for (ast::AsmOperand& out : a.outputs) {
    note_name(out.name);
    if (out.dtype == DType::Bool) {
      diags_.report(DiagCode::TypeMismatch, out.range, "asm operands cannot be `bool`");
      ok = false;
    }
  }
  for (const ast::AsmString& s : a.strings) {
    for (const OperandRef& ref : operand_refs(s.text)) {
      if (operand_names.count(ref.name)) continue;
      std::string known;
      for (const auto& [name, range] : operand_names) known += (known.empty() ? "`%" : ", `%") + name + "`";
      auto d = diags_.report(DiagCode::AsmUnknownOperand, string_range(s, ref.begin, ref.end),
                             ref.name.empty() ? "`%` must name an operand (write `%%` for a literal `%`)"
                                              : "asm template names `%" + ref.name + "`, which is not an operand");
      if (!known.empty()) d.note("the operands are " + known);
      ok = false;
    }
    // Warn about instructions that talk to other threads.
    size_t i = 0;
    const std::string& t = s.text;
    while (i < t.size()) {
      while (i < t.size() && (std::isspace(static_cast<unsigned char>(t[i])) || t[i] == '{' || t[i] == '}' || t[i] == ';')) ++i;
      if (i < t.size() && t[i] == '@') {
        while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i]))) ++i;
        while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
      }
      size_t start = i;
      while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
      std::string mnemonic = t.substr(start, i - start);
      const ptx::CrossThreadInstruction* cross = ptx::find_cross_thread(mnemonic);
      if (cross && cross->warned) {
        diags_.report(DiagCode::AsmCrossLane, string_range(s, start, i),
                      "`" + mnemonic + "` communicates between threads; it has no element-wise meaning")
            .note(a.fallback ? "the interpretation path runs the fallback instead"
                             : "the interpretation path can only run this asm through a `fallback`");
      }
      while (i < t.size() && t[i] != ';' && t[i] != '\n') ++i;
    }
  }
  if (a.fallback) {
    // An asm inside another asm's input is checked twice (check_expr, then
    // expect_value): the fallback's symbols must be those of the last check.
    a.input_symbols.clear();
    a.output_symbols.clear();
    scopes_.emplace_back();
    for (ast::AsmOperand& in : a.inputs) {
      Symbol& s = declare(Symbol::Kind::AsmInput, in.name, Type::value(in.dtype));
      s.used = true;
      a.input_symbols.push_back(&s);
    }
    for (ast::AsmOperand& out : a.outputs) {
      Symbol& s = declare(Symbol::Kind::AsmOutput, out.name, Type::value(out.dtype));
      s.used = true;
      a.output_symbols.push_back(&s);
    }
    ++block_depth_;
    ++fallback_depth_;  // no scratch or sem here: the fallback runs once per element
    check_block(*a.fallback);
    --fallback_depth_;
    --block_depth_;
    scopes_.pop_back();
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      const Symbol* out = a.output_symbols[i];
      bool assigned = std::any_of(a.fallback->stmts.begin(), a.fallback->stmts.end(),
                                  [&](const ast::StmtPtr& s) { return assigns(*s, out); });
      if (assigned) continue;
      DType t = a.outputs[i].dtype;
      std::string zero = is_float(t) ? "0.0" : "0";
      SourceRange close{a.fallback->range.file, a.fallback->range.end - 1, a.fallback->range.end - 1};
      diags_.report(DiagCode::AsmFallbackIncomplete, a.fallback->range,
                    "the fallback does not assign the output `" + out->name + "` on every path")
          .note("output declared here", a.outputs[i].name.range)
          .fixit(close, out->name + " = " + zero + "; ");
      ok = false;
    }
  }
  if (!ok) return Type::error();
  if (a.outputs.empty()) return Type::void_type();
  if (a.outputs.size() == 1) return Type::value(a.outputs[0].dtype, shape);
  Type tuple;
  tuple.kind = Type::Kind::Tuple;
  for (const ast::AsmOperand& out : a.outputs) tuple.edit_detail().elements.push_back(Type::value(out.dtype, shape));
  return tuple;
}

}  // namespace kdt::check
