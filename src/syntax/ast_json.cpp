#include "kdt/syntax/ast_json.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

namespace kdt {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

class AstJson {
 public:
  explicit AstJson(const SourceManager& sources) : sources_(sources) {}

  ordered_json range(SourceRange r) const {
    if (!r.valid()) return nullptr;
    LineColumn a = sources_.position(r.file, r.begin);
    LineColumn b = sources_.position(r.file, r.end);
    return {{"file", sources_.file(r.file).path}, {"start", {a.line, a.column}}, {"end", {b.line, b.column}}};
  }

  ordered_json node(const char* kind, SourceRange r) const {
    ordered_json j = {{"kind", kind}, {"range", range(r)}};
    // An ordered_map's entries (pair<const string, json>) are copied, not
    // moved, when it grows: room for every key up front keeps a deep tree
    // from being copied once per level.
    j.get_ref<ordered_json::object_t&>().reserve(12);
    return j;
  }

  ordered_json name(const ast::Name& n) const { return {{"text", n.text.str()}, {"range", range(n.range)}}; }

  ordered_json tile_type(const ast::TileTypeExpr& t) const {
    ordered_json j = node("TileType", t.range);
    if (!t.type_name.text.empty()) j["typeName"] = name(t.type_name);
    else j["dtype"] = std::string(dtype_name(t.dtype));
    j["dims"] = exprs(t.dims);
    return j;
  }

  template <class List>  // std::vector or CompactVector of ExprPtr
  ordered_json exprs(const List& list) const {
    ordered_json out = ordered_json::array();
    for (const ast::ExprPtr& e : list) out.push_back(expr(*e));
    return out;
  }

  ordered_json expr(const ast::Expr& e) const {
    using K = ast::Expr::Kind;
    static const char* const kinds[] = {"IntLiteral", "FloatLiteral", "BoolLiteral", "Name", "Unary",
                                        "Binary",     "Ternary",      "Call",        "Index", "Asm",
                                        "DeviceCoords"};
    ordered_json j = node(kinds[static_cast<int>(e.kind)], e.range);
    switch (e.kind) {
      case K::IntLiteral:
      case K::FloatLiteral:
      case K::BoolLiteral: j["value"] = e.spelling.str(); break;
      case K::Name: j["name"] = e.spelling.str(); break;
      case K::Unary: j["op"] = ast::unary_op_spelling(e.unary_op); break;
      case K::Binary: j["op"] = ast::binary_op_spelling(e.binary_op); break;
      case K::DeviceCoords:
      case K::Call: {
        if (e.kind == K::Call) j["callee"] = e.spelling.str();
        ordered_json args = ordered_json::array();
        for (const ast::Arg& a : e.args) args.push_back(arg(a));
        j["args"] = std::move(args);
        break;
      }
      case K::Index: {
        ordered_json indices = ordered_json::array();
        for (const ast::IndexEntry& i : e.indices) indices.push_back(index(i));
        j["indices"] = std::move(indices);
        break;
      }
      case K::Asm: j["asm"] = asm_block(*e.asm_block); break;
      default: break;
    }
    if (e.parenthesized) j["parenthesized"] = true;
    if (!e.operands.empty()) j["operands"] = exprs(e.operands);
    if (!e.type.is_error()) j["type"] = type_string(e.type);
    return j;
  }

  ordered_json arg(const ast::Arg& a) const {
    static const char* const kinds[] = {"Positional", "Keyword", "TypeArg", "ShapeArg"};
    ordered_json j = node(kinds[static_cast<int>(a.kind)], a.range);
    if (a.kind == ast::Arg::Kind::Keyword) j["keyword"] = name(a.keyword);
    if (a.value) j["value"] = expr(*a.value);
    if (a.type) j["type"] = tile_type(*a.type);
    if (a.kind == ast::Arg::Kind::Shape) j["shape"] = exprs(a.shape);
    return j;
  }

  ordered_json index(const ast::IndexEntry& i) const {
    static const char* const kinds[] = {"ScalarIndex", "FullSlice", "StaticSlice", "DynamicSlice", "Ellipsis"};
    ordered_json j = node(kinds[static_cast<int>(i.kind)], i.range);
    if (i.first) j["first"] = expr(*i.first);
    if (i.second) j["second"] = expr(*i.second);
    return j;
  }

  ordered_json asm_block(const ast::AsmBlock& a) const {
    ordered_json j = node("AsmBlock", a.range);
    j["lang"] = a.lang.text.str();
    j["volatile"] = a.is_volatile;
    auto operands = [&](const std::vector<ast::AsmOperand>& list) {
      ordered_json out = ordered_json::array();
      for (const ast::AsmOperand& op : list) {
        ordered_json o = node("AsmOperand", op.range);
        o["name"] = name(op.name);
        o["dtype"] = std::string(dtype_name(op.dtype));
        if (op.value) o["value"] = expr(*op.value);
        out.push_back(std::move(o));
      }
      return out;
    };
    j["inputs"] = operands(a.inputs);
    j["outputs"] = operands(a.outputs);
    j["clobbers"] = a.clobbers;
    ordered_json strings = ordered_json::array();
    for (const ast::AsmString& s : a.strings) strings.push_back({{"text", s.text}, {"range", range(s.range)}});
    j["template"] = std::move(strings);
    if (a.fallback) j["fallback"] = block(*a.fallback);
    return j;
  }

  ordered_json block(const ast::Block& b) const {
    ordered_json j = node("Block", b.range);
    ordered_json stmts = ordered_json::array();
    for (const ast::StmtPtr& s : b.stmts) stmts.push_back(stmt(*s));
    j["stmts"] = std::move(stmts);
    return j;
  }

  ordered_json stmt(const ast::Stmt& s) const {
    using K = ast::Stmt::Kind;
    // In ast::Stmt::Kind's order.
    static const char* const kinds[] = {"Scratch", "Sem",    "Let",    "LetTuple", "Var",      "For",
                                        "While",   "If",     "Assert", "Assign",   "ExprStmt", "BlockStmt",
                                        "Return"};
    static_assert(std::size(kinds) == static_cast<size_t>(K::Return) + 1, "one name per statement kind");
    ordered_json j = node(kinds[static_cast<int>(s.kind)], s.range);
    switch (s.kind) {
      case K::Scratch:
        j["name"] = name(s.name);
        j["type"] = tile_type(*s.tile_type);
        j["space"] = name(s.mem_space);
        break;
      case K::Sem:
        j["name"] = name(s.name);
        j["semKind"] = name(s.sem_kind);
        if (s.sem_count) j["count"] = expr(*s.sem_count);
        if (s.sem_cols) j["cols"] = expr(*s.sem_cols);
        break;
      case K::Let:
      case K::Var:
        j["name"] = name(s.name);
        j["value"] = expr(*s.value);
        break;
      case K::LetTuple: {
        ordered_json names = ordered_json::array();
        for (const ast::Name& n : s.names) names.push_back(name(n));
        j["names"] = std::move(names);
        j["value"] = expr(*s.value);
        break;
      }
      case K::For:
        j["var"] = name(s.name);
        j["lo"] = expr(*s.lo);
        j["hi"] = expr(*s.hi);
        if (s.step) j["step"] = expr(*s.step);
        j["body"] = block(s.body);
        break;
      case K::While:
        j["cond"] = expr(*s.value);
        j["body"] = block(s.body);
        break;
      case K::If: {
        ordered_json clauses = ordered_json::array();
        for (const ast::IfClause& c : s.clauses) {
          ordered_json cj = node(c.cond ? "IfClause" : "ElseClause", c.range);
          if (c.cond) cj["cond"] = expr(*c.cond);
          cj["body"] = block(c.body);
          clauses.push_back(std::move(cj));
        }
        j["clauses"] = std::move(clauses);
        break;
      }
      case K::Assert:
        j["cond"] = expr(*s.value);
        if (s.message) j["message"] = *s.message;
        break;
      case K::Assign: {
        static const char* const ops[] = {"=", "+=", "-=", "*="};
        j["op"] = ops[static_cast<int>(s.assign_op)];
        j["target"] = expr(*s.target);
        j["value"] = expr(*s.value);
        break;
      }
      case K::Expr: j["expr"] = expr(*s.value); break;
      case K::Block: j["body"] = block(s.body); break;
      case K::Return:
        if (s.tuple) j["tuple"] = exprs(s.values);
        else if (!s.values.empty()) j["value"] = expr(*s.values[0]);
        break;
    }
    return j;
  }

  ordered_json function(const ast::Function& f) const {
    ordered_json j = node("Function", f.range);
    j["name"] = name(f.name);
    ordered_json generics = ordered_json::array();
    for (const ast::Generic& g : f.generics) {
      generics.push_back({{"name", name(g.name)}, {"kind", g.is_type ? "type" : "int"}});
    }
    j["generics"] = std::move(generics);
    ordered_json params = ordered_json::array();
    for (const ast::FnParam& p : f.params) {
      static const char* const kinds[] = {"value", "ref", "sem", "dma"};
      ordered_json pj = node("FnParam", p.range);
      pj["name"] = name(p.name);
      pj["paramKind"] = kinds[static_cast<int>(p.kind)];
      if (p.kind == ast::FnParam::Kind::Value || p.kind == ast::FnParam::Kind::Ref) pj["type"] = tile_type(*p.type);
      if (p.kind == ast::FnParam::Kind::Ref) {
        pj["space"] = name(p.mem_space);
        pj["in"] = p.readonly;
      }
      if (p.kind == ast::FnParam::Kind::Sem) {
        pj["semKind"] = name(p.sem_kind);
        if (p.sem_count) pj["count"] = expr(*p.sem_count);
      }
      params.push_back(std::move(pj));
    }
    j["params"] = std::move(params);
    ordered_json results = ordered_json::array();
    for (const auto& r : f.results) results.push_back(tile_type(*r));
    j["results"] = std::move(results);
    j["body"] = block(f.body);
    return j;
  }

  ordered_json kernel(const ast::Kernel& k) const {
    ordered_json j = node("Kernel", k.range);
    j["name"] = name(k.name);
    ordered_json params = ordered_json::array();
    for (const ast::Param& p : k.params) {
      static const char* const modes[] = {"in", "out", "inout", "scalar"};
      ordered_json pj = node("Param", p.range);
      pj["name"] = name(p.name);
      pj["mode"] = modes[static_cast<int>(p.mode)];
      if (p.tile_type) {
        pj["type"] = tile_type(*p.tile_type);
        pj["space"] = name(p.mem_space);
        if (p.block) {  // section 13
          ordered_json bj = node("BlockSpec", p.block->range);
          bj["shape"] = exprs(p.block->dims);
          bj["index"] = exprs(p.block->index);
          pj["block"] = std::move(bj);
        }
      } else {
        if (!p.scalar_type_name.text.empty()) pj["typeName"] = name(p.scalar_type_name);
        else pj["dtype"] = std::string(dtype_name(p.scalar_dtype));
      }
      params.push_back(std::move(pj));
    }
    j["params"] = std::move(params);
    ordered_json attrs = ordered_json::array();
    for (const ast::KernelAttr& a : k.attrs) {
      ordered_json aj = node("KernelAttr", a.range);
      aj["name"] = name(a.name);
      aj["args"] = exprs(a.args);
      if (std::any_of(a.arg_names.begin(), a.arg_names.end(), [](const ast::Name& n) { return !n.text.empty(); })) {
        ordered_json names = ordered_json::array();
        for (const ast::Name& n : a.arg_names) names.push_back(n.text.empty() ? ordered_json() : name(n));
        aj["argNames"] = std::move(names);
      }
      if (std::find(a.sequential.begin(), a.sequential.end(), true) != a.sequential.end()) {
        aj["sequential"] = a.sequential;  // section 13: per argument
      }
      attrs.push_back(std::move(aj));
    }
    j["attrs"] = std::move(attrs);
    j["body"] = block(k.body);
    return j;
  }

  ordered_json module(const ast::Module& m) const {
    ordered_json files = ordered_json::array();
    for (const ast::File& f : m.files) {
      ordered_json fj = {{"kind", "File"}, {"path", sources_.file(f.file).path}};
      ordered_json includes = ordered_json::array();
      for (const ast::Include& inc : f.includes) {
        includes.push_back({{"kind", "Include"}, {"range", range(inc.range)}, {"path", inc.path}});
      }
      fj["includes"] = std::move(includes);
      ordered_json decls = ordered_json::array();
      for (auto [kind, i] : f.order) {
        switch (kind) {
          case ast::File::ItemKind::Kernel: decls.push_back(kernel(f.kernels[i])); break;
          case ast::File::ItemKind::Function: decls.push_back(function(f.functions[i])); break;
          case ast::File::ItemKind::Const: {
            const ast::ConstDecl& c = f.consts[i];
            ordered_json cj = node("Const", c.range);
            cj["name"] = name(c.name);
            cj["value"] = expr(*c.value);
            decls.push_back(std::move(cj));
            break;
          }
          case ast::File::ItemKind::Type: {
            const ast::TypeDecl& t = f.types[i];
            ordered_json tj = node("Type", t.range);
            tj["name"] = name(t.name);
            if (!t.alias_of.text.empty()) tj["typeName"] = name(t.alias_of);
            else tj["dtype"] = std::string(dtype_name(t.dtype));
            decls.push_back(std::move(tj));
            break;
          }
        }
      }
      fj["decls"] = std::move(decls);
      files.push_back(std::move(fj));
    }
    return {{"kind", "Module"}, {"files", files}};
  }

 private:
  const SourceManager& sources_;
};

}  // namespace

namespace {

// nlohmann's dump(1) indents every level, which makes the output of a deep
// tree (a 100,000-term `a + a + ...`) quadratic in size. This writes the same
// text for the first kMaxIndentDepth levels and nests deeper subtrees compactly.
constexpr int kMaxIndentDepth = 64;

std::string compact(const ordered_json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

void write_json(const ordered_json& j, int depth, std::string& out) {
  if (!j.is_structured() || j.empty() || depth >= kMaxIndentDepth) {
    out += compact(j);
    return;
  }
  const std::string pad(static_cast<size_t>(depth) + 1, ' ');
  out += j.is_object() ? "{\n" : "[\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += pad;
    if (j.is_object()) out += compact(ordered_json(it.key())) + ": ";
    write_json(it.value(), depth + 1, out);
  }
  out += "\n" + std::string(static_cast<size_t>(depth), ' ') + (j.is_object() ? "}" : "]");
}

}  // namespace

std::string ast_to_json(const ast::Module& module, const SourceManager& sources) {
  std::string out;
  write_json(AstJson(sources).module(module), 0, out);
  return out + "\n";
}

}  // namespace kdt
