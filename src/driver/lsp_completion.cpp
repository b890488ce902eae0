#include "driver/lsp_completion.h"

#include <set>
#include <string>

#include "kdt/check/builtin_table.h"
#include "kdt/source/dtype.h"

namespace kdt {

using nlohmann::json;

namespace {

// LSP CompletionItemKind values.
constexpr int kFunction = 3, kKeyword = 14, kConstant = 21, kTypeParameter = 25, kEnumMember = 20;

// The grammar's keywords (grammar/KDLexer.g4) and contextual words
// (grammar/KDParser.g4), as a user types them.
constexpr const char* kKeywords[] = {"include", "const",  "kernel", "fn",      "type",    "in",       "out",
                                     "inout",   "scratch", "sem",    "let",     "var",     "for",      "while",
                                     "return",  "if",      "else",   "asm",     "ptx",     "volatile", "clobbers",
                                     "fallback", "assert", "true",   "false",   "inf",     "nan",      "grid",
                                     "devices", "threads", "step",   "sequential", "block", "at",      "dma",
                                     "regular"};
constexpr const char* kSpaces[] = {"@global", "@shared"};

}  // namespace

json lsp_completion_items(const Compilation* c) {
  json items = json::array();
  std::set<std::string> seen;
  auto add = [&](const std::string& label, int kind, const std::string& detail) {
    if (label.empty() || !seen.insert(label).second) return;
    items.push_back({{"label", label}, {"kind", kind}, {"detail", detail}});
  };
  for (const char* k : kKeywords) add(k, kKeyword, "keyword");
  for (int t = static_cast<int>(DType::Bool); t <= static_cast<int>(DType::F64); ++t) {
    add(std::string(dtype_name(static_cast<DType>(t))), kTypeParameter, "dtype");
  }
  for (const char* s : kSpaces) add(s, kEnumMember, "memory space");
  for (const BuiltinSpec& b : builtin_table()) add(b.name, kFunction, "built-in");
  if (c && c->parsed) {
    for (const ast::File& file : c->program.module.files) {
      for (const ast::ConstDecl& d : file.consts) add(d.name.text, kConstant, "const");
      for (const ast::TypeDecl& d : file.types) add(d.name.text, kTypeParameter, "type");
      for (const ast::Function& f : file.functions) add(f.name.text, kFunction, "fn");
      for (const ast::Kernel& k : file.kernels) add(k.name.text, kFunction, "kernel");
    }
  }
  return items;
}

}  // namespace kdt
