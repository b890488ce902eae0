// The PTX template reader (see ptx_reader.h).
#include "ptx_reader.h"

#include <cctype>

namespace kdt::ptx {
namespace {

struct Reader {
  const std::string& s;
  std::vector<size_t> line_starts{0};

  explicit Reader(const std::string& text) : s(text) {
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n') line_starts.push_back(i + 1);
    }
  }

  Pos pos_of(size_t i) const {
    size_t line = 0;
    while (line + 1 < line_starts.size() && line_starts[line + 1] <= i) ++line;
    return Pos{static_cast<int>(line + 1), static_cast<int>(i - line_starts[line] + 1)};
  }

  static bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

  // Skips blanks and comments from i.
  size_t skip(size_t i) const {
    for (;;) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (i + 1 < s.size() && s[i] == '/' && s[i + 1] == '/') {
        while (i < s.size() && s[i] != '\n') ++i;
        continue;
      }
      if (i + 1 < s.size() && s[i] == '/' && s[i + 1] == '*') {
        size_t e = s.find("*/", i + 2);
        i = e == std::string::npos ? s.size() : e + 2;
        continue;
      }
      return i;
    }
  }

  static std::string trim(const std::string& t) {
    size_t a = 0, b = t.size();
    while (a < b && std::isspace(static_cast<unsigned char>(t[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(t[b - 1]))) --b;
    return t.substr(a, b - a);
  }

  // A register spelling: `name` or `%%name` (the register `%name`).
  static bool reg_name(const std::string& t, std::string* out) {
    std::string body = t;
    std::string prefix;
    if (t.compare(0, 2, "%%") == 0) {
      body = t.substr(2);
      prefix = "%";
    }
    if (body.empty() || !ident_start(body[0])) return false;
    for (char c : body) {
      // Special registers carry components: `%%tid.x`.
      if (!ident_char(c) && !(c == '.' && !prefix.empty())) return false;
    }
    *out = prefix + body;
    return true;
  }

  Operand operand(const std::string& raw, size_t at) const {
    Operand o;
    o.pos = pos_of(at);
    std::string t = raw;
    if (!t.empty() && t[0] == '!') {
      o.negated = true;
      t = trim(t.substr(1));
    }
    size_t bar = t.find('|');
    if (bar != std::string::npos) {
      std::string second;
      if (!reg_name(trim(t.substr(bar + 1)), &second)) return o;
      o.second = second;
      t = trim(t.substr(0, bar));
    }
    o.text = t;
    if (t.size() >= 2 && t[0] == '%' && t[1] != '%') {
      bool ok = ident_start(t[1]);
      for (size_t k = 2; k < t.size(); ++k) ok = ok && ident_char(t[k]);
      if (ok) {
        o.kind = Operand::Kind::AsmOperand;
        o.text = t.substr(1);
      }
      return o;
    }
    std::string r;
    if (reg_name(t, &r)) {
      o.kind = Operand::Kind::Register;
      o.text = r;
      return o;
    }
    if (!t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-' || t[0] == '+' || t[0] == '.')) {
      o.kind = Operand::Kind::Immediate;
    }
    return o;
  }

  void statement(size_t begin, size_t end, ReadResult& out) {
    Statement st;
    st.pos = pos_of(begin);
    st.text = trim(s.substr(begin, end - begin));
    size_t i = begin;
    if (s[i] == '.') {
      size_t j = i + 1;
      while (j < end && ident_char(s[j])) ++j;
      std::string dir = s.substr(i + 1, j - i - 1);
      if (dir != "reg") {
        out.statements.push_back(st);
        return;
      }
      st.kind = Statement::Kind::RegDecl;
      j = skip(j);
      if (j >= end || s[j] != '.') {
        fail(out, j, "expected a register type after `.reg`");
        return;
      }
      size_t k = j + 1;
      while (k < end && ident_char(s[k])) ++k;
      st.reg_type = s.substr(j + 1, k - j - 1);
      std::string rest = s.substr(k, end - k);
      size_t p = 0;
      while (p <= rest.size()) {
        size_t c = rest.find(',', p);
        if (c == std::string::npos) c = rest.size();
        std::string name = trim(rest.substr(p, c - p));
        int count = -1;
        size_t lt = name.find('<');
        if (lt != std::string::npos && name.back() == '>') {
          count = std::atoi(name.substr(lt + 1, name.size() - lt - 2).c_str());
          name = trim(name.substr(0, lt));
        }
        std::string r;
        if (!reg_name(name, &r)) {
          fail(out, k + p, "expected a register name in `.reg`");
          return;
        }
        if (count < 0) {
          st.reg_names.push_back(r);
        } else {
          for (int n = 0; n < count; ++n) st.reg_names.push_back(r + std::to_string(n));
        }
        p = c + 1;
      }
      out.statements.push_back(st);
      return;
    }
    if (s[i] == '@') {
      ++i;
      if (i < end && s[i] == '!') {
        st.guard_negated = true;
        ++i;
      }
      size_t j = i;
      while (j < end && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      std::string g;
      if (!reg_name(s.substr(i, j - i), &g)) {
        fail(out, i, "expected a predicate register after `@`");
        return;
      }
      st.guard = g;
      i = skip(j);
    }
    // Opcode and modifiers.
    size_t j = i;
    while (j < end && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    std::string word = s.substr(i, j - i);
    if (!word.empty() && word.back() == ':') {  // a label
      out.statements.push_back(st);
      return;
    }
    st.kind = Statement::Kind::Instruction;
    st.pos = pos_of(i);
    size_t dot = word.find('.');
    st.opcode = word.substr(0, dot);
    while (dot != std::string::npos) {
      size_t next = word.find('.', dot + 1);
      st.modifiers.push_back(word.substr(dot + 1, next == std::string::npos ? std::string::npos : next - dot - 1));
      dot = next;
    }
    // Operands: split on commas outside braces and brackets.
    size_t p = skip(j);
    int depth = 0;
    size_t start = p;
    for (size_t k = p; k <= end; ++k) {
      if (k < end && (s[k] == '{' || s[k] == '[' || s[k] == '(')) ++depth;
      if (k < end && (s[k] == '}' || s[k] == ']' || s[k] == ')')) --depth;
      if (k == end || (s[k] == ',' && depth == 0)) {
        std::string raw = s.substr(start, k - start);
        size_t lead = 0;
        while (lead < raw.size() && std::isspace(static_cast<unsigned char>(raw[lead]))) ++lead;
        std::string t = trim(raw);
        if (!t.empty() || k != end || !st.operands.empty()) st.operands.push_back(operand(t, start + lead));
        start = k + 1;
      }
    }
    out.statements.push_back(st);
  }

  void fail(ReadResult& out, size_t at, const std::string& msg) {
    if (!out.ok) return;
    out.ok = false;
    out.error = msg;
    out.error_pos = pos_of(at);
  }

  ReadResult run() {
    ReadResult out;
    size_t i = skip(0);
    while (i < s.size() && out.ok) {
      if (s[i] == '{' || s[i] == '}') {
        Statement st;
        st.kind = s[i] == '{' ? Statement::Kind::OpenScope : Statement::Kind::CloseScope;
        st.pos = pos_of(i);
        st.text = std::string(1, s[i]);
        out.statements.push_back(st);
        i = skip(i + 1);
        continue;
      }
      size_t j = i;
      int depth = 0;
      while (j < s.size() && !(s[j] == ';' && depth == 0)) {
        if (s[j] == '{') ++depth;
        if (s[j] == '}') {
          if (depth == 0) break;
          --depth;
        }
        ++j;
      }
      if (j >= s.size() || s[j] != ';') {
        fail(out, i, "expected `;` after this statement");
        break;
      }
      statement(i, j, out);
      i = skip(j + 1);
    }
    return out;
  }
};

}  // namespace

ReadResult read_ptx(const std::string& text) { return Reader(text).run(); }

}  // namespace kdt::ptx
