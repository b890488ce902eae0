// KD text of the program model. Every compound sub-expression is
// parenthesised, so the printer never depends on precedence (and never
// writes a chained comparison).
#include "print.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace kdt::gen {

namespace {

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string type_text(DType t, const Shape& s) { return std::string(dtype_name(t)) + shape_text(s); }

std::string sem_text(const SemRef& s) { return s.index ? s.name + "[" + print_expr(*s.index) + "]" : s.name; }

std::string view_text(const View& v) {
  if (v.entries.empty()) return v.ellipsis ? v.ref + "[...]" : v.ref;
  std::string out = v.ref + "[";
  for (size_t i = 0; i < v.entries.size(); ++i) {
    const IndexEntry& e = v.entries[i];
    if (i) out += ", ";
    switch (e.kind) {
      case IndexEntry::Kind::Scalar: out += print_expr(*e.index); break;
      case IndexEntry::Kind::Full: out += ":"; break;
      case IndexEntry::Kind::Slice: out += std::to_string(e.start) + ":" + std::to_string(e.start + e.size); break;
      case IndexEntry::Kind::Ds: out += "ds(" + print_expr(*e.index) + ", " + std::to_string(e.size) + ")"; break;
    }
  }
  if (v.ellipsis) out += ", ...";
  return out + "]";
}

const char* unop_text(UnOp op) {
  switch (op) {
    case UnOp::Neg: return "-";
    case UnOp::Not: return "!";
    case UnOp::BitNot: return "~";
    case UnOp::Abs: return "abs";
    case UnOp::Floor: return "floor";
    case UnOp::Ceil: return "ceil";
    case UnOp::Sqrt: return "sqrt";
  }
  return "?";
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void print_block(const Block& b, int depth, std::string& out);

void print_stmt(const Stmt& s, int depth, std::string& out) {
  const std::string pad(static_cast<size_t>(depth) * 4, ' ');
  auto line = [&](const std::string& text) { out += pad + text + "\n"; };
  switch (s.kind) {
    case Stmt::Kind::Let: line("let " + s.name + " = " + print_expr(*s.expr) + ";"); break;
    case Stmt::Kind::Var: line("var " + s.name + " = " + print_expr(*s.expr) + ";"); break;
    case Stmt::Kind::Assign:
      line(s.name + (s.compound ? std::string(" ") + binop_spelling(s.op) + "= " : " = ") + print_expr(*s.expr) + ";");
      break;
    case Stmt::Kind::Store: {
      View target = s.view;
      if (target.entries.empty()) target.ellipsis = true;  // never a bare ref name on the left
      line(view_text(target) + (s.compound ? std::string(" ") + binop_spelling(s.op) + "= " : " = ") +
           print_expr(*s.expr) + ";");
      break;
    }
    case Stmt::Kind::MaskedStore:
      line("store(" + view_text(s.view) + ", " + print_expr(*s.expr) + ", mask=" + print_expr(*s.mask) + ");");
      break;
    case Stmt::Kind::DmaStart: {
      std::string text = "dma_start(" + view_text(s.view) + ", " + view_text(s.dst) + ", " + sem_text(s.sem);
      if (s.device) text += ", src_sem=" + sem_text(s.src_sem) + ", device=" + print_expr(*s.device);
      if (s.add) text += ", add=true";
      line(text + ");");
      break;
    }
    case Stmt::Kind::DmaWait: line("dma_wait(" + sem_text(s.sem) + ", " + view_text(s.view) + ");"); break;
    case Stmt::Kind::SemSignal: {
      std::string text = "sem_signal(" + sem_text(s.sem);
      if (s.expr || s.device) text += ", " + (s.expr ? print_expr(*s.expr) : std::string("1"));
      if (s.device) text += ", device=" + print_expr(*s.device);
      line(text + ");");
      break;
    }
    case Stmt::Kind::SemWait:
      line("sem_wait(" + sem_text(s.sem) + (s.expr ? ", " + print_expr(*s.expr) : std::string()) + ");");
      break;
    case Stmt::Kind::For:
      line("for " + s.name + " in " + print_expr(*s.expr) + ".." + print_expr(*s.hi) +
           (s.step != 1 ? " step " + std::to_string(s.step) : std::string()) + " {");
      print_block(s.body, depth + 1, out);
      line("}");
      break;
    case Stmt::Kind::If:
      line("if " + print_expr(*s.expr) + " {");
      print_block(s.body, depth + 1, out);
      if (!s.else_body.empty()) {
        line("} else {");
        print_block(s.else_body, depth + 1, out);
      }
      line("}");
      break;
    case Stmt::Kind::Assert: line("assert(" + print_expr(*s.expr) + ", \"model invariant\");"); break;
    case Stmt::Kind::Comment: line("// " + s.name); break;
  }
}

void print_block(const Block& b, int depth, std::string& out) {
  for (const Stmt& s : b) print_stmt(s, depth, out);
}

}  // namespace

std::string literal_text(DType t, uint64_t bits) {
  if (t == DType::Bool) return bits & 1 ? "true" : "false";
  if (is_int(t)) {
    return is_signed_int(t) ? std::to_string(as_i64(t, bits)) : std::to_string(as_u64(t, bits));
  }
  const double v = as_f64(t, bits);
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // The generator's float literals are short dyadic fractions: %.17g is exact.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string print_expr(const Expr& e) {
  using K = Expr::Kind;
  auto op = [&](size_t i) { return print_expr(*e.operands[i]); };
  switch (e.kind) {
    case K::Literal: {
      std::string text = literal_text(e.dtype, e.bits);
      const bool negative = text[0] == '-';
      if (e.weak || e.dtype == DType::Bool || (!negative && (e.dtype == DType::I32 || e.dtype == DType::F32))) {
        return negative ? "(" + text + ")" : text;
      }
      if (negative && (e.dtype == DType::I32 || e.dtype == DType::F32)) return "(" + text + ")";
      return std::string(dtype_name(e.dtype)) + "(" + text + ")";
    }
    case K::Name: return e.name;
    case K::Load: return view_text(e.view);
    case K::MaskedLoad: return "load(" + view_text(e.view) + ", mask=" + op(0) + ", other=" + op(1) + ")";
    case K::ProgramId: return "program_id(" + std::to_string(e.axis) + ")";
    case K::NumPrograms: return "num_programs(" + std::to_string(e.axis) + ")";
    case K::DeviceId: return "device_id()";
    case K::NumDevices: return "num_devices()";
    case K::SemRead: return "sem_read(" + e.name + ")";
    case K::Unary:
      if (e.unop == UnOp::Neg || e.unop == UnOp::Not || e.unop == UnOp::BitNot) {
        return std::string("(") + unop_text(e.unop) + op(0) + ")";
      }
      return std::string(unop_text(e.unop)) + "(" + op(0) + ")";
    case K::Binary:
      if (e.binop == BinOp::Max || e.binop == BinOp::Min) {
        return std::string(binop_spelling(e.binop)) + "(" + op(0) + ", " + op(1) + ")";
      }
      return "(" + op(0) + " " + binop_spelling(e.binop) + " " + op(1) + ")";
    case K::Where: return "where(" + op(0) + ", " + op(1) + ", " + op(2) + ")";
    case K::Cast: return std::string(dtype_name(e.dtype)) + "(" + op(0) + ")";
    case K::Iota: return "iota(" + type_text(e.dtype, e.shape) + ", " + std::to_string(e.axis) + ")";
    case K::Full:
      if (e.name == "full") return "full(" + type_text(e.dtype, e.shape) + ", " + op(0) + ")";
      return e.name + "(" + type_text(e.dtype, e.shape) + ")";
    case K::Reduce: {
      std::string text = e.name + "(" + op(0);
      if (e.axis >= 0) text += ", axis=" + std::to_string(e.axis);
      if (e.keepdims) text += ", keepdims=true";
      return text + ")";
    }
    case K::Dot: return "dot(" + op(0) + ", " + op(1) + ")";
    case K::Transpose: return "transpose(" + op(0) + ")";
    case K::Reshape: return "reshape(" + op(0) + ", " + shape_text(e.shape) + ")";
    case K::Broadcast: return "broadcast(" + op(0) + ", " + shape_text(e.shape) + ")";
    case K::TileSlice:
      return op(0) + "[" + std::to_string(e.start) + ":" + std::to_string(e.start + e.size) + "]";
    case K::Asm: {
      std::string text = "asm ptx (";
      for (size_t i = 0; i < e.asm_inputs.size(); ++i) {
        text += (i ? ", " : "") + e.asm_inputs[i] + ": " + dtype_name(e.asm_input_dtypes[i]) + " = " + op(i);
      }
      text += ") -> (" + e.asm_output + ": " + dtype_name(e.dtype) + ") {";
      for (const std::string& l : e.asm_lines) text += " " + quoted(l);
      text += " }";
      if (e.asm_fallback) text += " fallback { " + e.asm_output + " = " + print_expr(*e.asm_fallback) + "; }";
      return text;
    }
  }
  return "?";
}

std::string print_kernel(const Kernel& k) {
  std::string out;
  if (!k.comment.empty()) out += "// " + k.comment + "\n";
  out += "kernel " + k.name + "(\n";
  for (const Param& p : k.params) {
    out += "    " + p.name + ": ";
    switch (p.mode) {
      case Mode::In: out += "in "; break;
      case Mode::Out: out += "out "; break;
      case Mode::InOut: out += "inout "; break;
      case Mode::Scalar: break;
    }
    out += p.mode == Mode::Scalar ? std::string(dtype_name(p.dtype)) : type_text(p.dtype, p.shape) + " @global";
    out += ",\n";
  }
  out += ")\n    grid(";
  for (size_t i = 0; i < k.grid.size(); ++i) out += (i ? ", " : "") + std::to_string(k.grid[i]);
  out += ")";
  if (k.devices > 1) out += " devices(" + std::to_string(k.devices) + ")";
  out += "\n{\n";
  for (const Scratch& s : k.scratch) out += "    scratch " + s.name + ": " + type_text(s.dtype, s.shape) + " @shared;\n";
  for (const Sem& s : k.sems) {
    out += "    sem " + s.name + (s.count ? "[" + std::to_string(s.count) + "]" : std::string()) + ": " +
           (s.dma ? "dma" : "regular") + ";\n";
  }
  print_block(k.body, 1, out);
  out += "}\n";
  return out;
}

}  // namespace kdt::gen
