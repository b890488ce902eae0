// Translation of PTX templates into discharged IR (see ptx_translate.h and
// docs/ptx.md). Registers are SSA locals of their raw bits (bool, u16, u32,
// u64); each instruction becomes `Let fresh = ptx.NAME(operands)`; a guard
// `@p` selects between the new and the previous value.
#include "ptx_translate.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "kdt/ptx_cross_thread.h"

namespace kdt::ptx {
namespace {

enum class RC { Pred, B16, B32, B64 };

DType rc_dtype(RC rc) {
  switch (rc) {
    case RC::Pred: return DType::Bool;
    case RC::B16: return DType::U16;
    case RC::B32: return DType::U32;
    case RC::B64: return DType::U64;
  }
  return DType::U32;
}

int rc_bits(RC rc) { return rc == RC::Pred ? 1 : rc == RC::B16 ? 16 : rc == RC::B32 ? 32 : 64; }

RC dtype_rc(DType t) {
  switch (t) {
    case DType::Bool: return RC::Pred;
    case DType::I8: case DType::U8: case DType::I16: case DType::U16: case DType::F16: case DType::BF16: return RC::B16;
    case DType::I32: case DType::U32: case DType::F32: return RC::B32;
    default: return RC::B64;
  }
}

const char* dtype_suffix(DType t) {
  switch (t) {
    case DType::I8: return "i8";
    case DType::U8: return "u8";
    case DType::I16: return "i16";
    case DType::U16: return "u16";
    case DType::I32: return "i32";
    case DType::U32: return "u32";
    case DType::I64: return "i64";
    case DType::U64: return "u64";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    default: return "pred";
  }
}

// A PTX type suffix.
struct Ty {
  char k = 0;  // 's' 'u' 'b' 'f' 'p' (pred); 'h' for bf16
  int bits = 0;
  std::string name;
  RC rc() const { return k == 'p' ? RC::Pred : bits <= 16 ? RC::B16 : bits == 32 ? RC::B32 : RC::B64; }
  bool is_int() const { return k == 's' || k == 'u' || k == 'b'; }
  bool is_float() const { return k == 'f' || k == 'h'; }
};

bool parse_ty(const std::string& m, Ty* t) {
  static const std::map<std::string, std::pair<char, int>> types = {
      {"s8", {'s', 8}},   {"u8", {'u', 8}},   {"b8", {'b', 8}},   {"s16", {'s', 16}}, {"u16", {'u', 16}},
      {"b16", {'b', 16}}, {"s32", {'s', 32}}, {"u32", {'u', 32}}, {"b32", {'b', 32}}, {"s64", {'s', 64}},
      {"u64", {'u', 64}}, {"b64", {'b', 64}}, {"f16", {'f', 16}}, {"bf16", {'h', 16}}, {"f32", {'f', 32}},
      {"f64", {'f', 64}}, {"pred", {'p', 1}}};
  auto it = types.find(m);
  if (it == types.end()) return false;
  t->k = it->second.first;
  t->bits = it->second.second;
  t->name = m;
  return true;
}

struct Blocked {
  std::string reason;
  Pos pos;
};

struct Reg {
  RC rc = RC::B32;
  int cur = -1;  // SSA local holding the current value; -1: never written (0)
};

struct KdOperand {
  RC rc = RC::B32;
  DType dtype = DType::F32;
  int cur = -1;
  bool is_output = false;
  int local = -1;  // the asm's input/output local
  bool written = false;
};

const std::set<std::string> kMemory = {"ld", "st", "ldu", "prefetch", "prefetchu", "cvta", "isspacep", "suld", "sust",
                                       "tex", "tld4", "txq", "suq", "cp", "atom", "red", "stackrestore", "stacksave",
                                       "alloca", "discard", "applypriority", "createpolicy"};
const std::set<std::string> kApprox = {"rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"};

class Translator {
 public:
  Translator(ir::Kernel& k, int asm_id) : k_(k), a_(k.asms[asm_id]), id_(asm_id) {}

  ir::Block run() {
    for (size_t i = 0; i < a_.inputs.size(); ++i) {
      KdOperand o;
      o.dtype = a_.inputs[i].second;
      o.rc = dtype_rc(o.dtype);
      o.local = a_.inputs[i].first;
      ExprPtr v = op(std::string("in_") + dtype_suffix(o.dtype), o.rc, {}, std::nullopt, local(o.local, o.dtype));
      if (o.dtype == DType::Bool) v = local(o.local, o.dtype);
      o.cur = let(o.rc, std::move(v), a_.input_names[i]);
      kd_[a_.input_names[i]] = o;
    }
    for (size_t i = 0; i < a_.outputs.size(); ++i) {
      KdOperand o;
      o.dtype = a_.outputs[i].second;
      o.rc = dtype_rc(o.dtype);
      o.local = a_.outputs[i].first;
      o.is_output = true;
      kd_[a_.output_names[i]] = o;
    }
    ReadResult rr = read_ptx(a_.ptx);
    if (!rr.ok) throw Blocked{"the template cannot be read: " + rr.error, rr.error_pos};
    scopes_.emplace_back();
    for (const Statement& s : rr.statements) statement(s);
    for (size_t i = 0; i < a_.outputs.size(); ++i) {
      const KdOperand& o = kd_[a_.output_names[i]];
      ExprPtr v = o.cur < 0 ? zero(o.rc) : local(o.cur, rc_dtype(o.rc));
      if (o.dtype != DType::Bool) v = op(std::string("out_") + dtype_suffix(o.dtype), o.rc, {}, o.dtype, std::move(v));
      auto st = std::make_unique<ir::Stmt>();
      st->kind = ir::StmtKind::Assign;
      st->range = a_.range;
      st->local = o.local;
      st->value = std::move(v);
      out_.push_back(std::move(st));
    }
    return std::move(out_);
  }

 private:
  using ExprPtr = ir::ExprPtr;

  // ----- IR building -------------------------------------------------------------
  ExprPtr local(int id, DType t) {
    auto e = std::make_unique<ir::Expr>();
    e->kind = ir::ExprKind::Local;
    e->type = Type::value(t);
    e->range = a_.range;
    e->local = id;
    return e;
  }
  ExprPtr konst(DType t, int64_t v) {
    auto e = std::make_unique<ir::Expr>();
    e->kind = ir::ExprKind::Const;
    e->type = Type::value(t);
    e->range = a_.range;
    e->int_value = v;
    return e;
  }
  ExprPtr zero(RC rc) { return konst(rc_dtype(rc), 0); }
  ExprPtr i32(int64_t v) { return konst(DType::I32, v); }
  ExprPtr boolean(bool v) { return konst(DType::Bool, v ? 1 : 0); }
  // ptx.NAME(args...) of register class `rc` (or an explicit dtype).
  ExprPtr op(const std::string& name, RC rc, std::vector<ExprPtr> args, std::optional<DType> t = std::nullopt,
             ExprPtr last = nullptr) {
    auto e = std::make_unique<ir::Expr>();
    e->kind = ir::ExprKind::PtxOp;
    e->type = Type::value(t ? *t : rc_dtype(rc));
    e->range = a_.range;
    e->name = name;
    e->operands = std::move(args);
    if (last) e->operands.push_back(std::move(last));
    return e;
  }
  int let(RC rc, ExprPtr v, const std::string& base) {
    ir::Local l;
    std::string clean;
    for (char c : base) clean += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    l.name = "kdtptx" + std::to_string(id_) + "_" + clean + "_" + std::to_string(counter_++);
    l.type = Type::value(rc_dtype(rc));
    l.internal = true;
    k_.locals.push_back(l);
    int id = static_cast<int>(k_.locals.size()) - 1;
    auto st = std::make_unique<ir::Stmt>();
    st->kind = ir::StmtKind::Let;
    st->range = a_.range;
    st->local = id;
    st->value = std::move(v);
    out_.push_back(std::move(st));
    return id;
  }

  // ----- registers -----------------------------------------------------------------
  Reg* find_reg(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  [[noreturn]] void block(const std::string& why, Pos pos) { throw Blocked{why, pos}; }
  [[noreturn]] void block(const std::string& why) { throw Blocked{why, st_->pos}; }

  void special_or_unknown(const Operand& o) {
    if (o.kind == Operand::Kind::Register && !o.text.empty() && o.text[0] == '%') {
      block("`%" + o.text + "` is a special register (or undeclared), which has no element-wise value on the CPU", o.pos);
    }
    block("`" + o.text + "` is not a declared register", o.pos);
  }

  // Value of a source operand for register class rc; `fk` is the float kind
  // of an immediate (0: integer, 16/32/64: float of that width).
  ExprPtr src(const Operand& o, RC rc, int fk = 0) {
    if (o.negated && rc != RC::Pred) block("`!` applies only to predicates", o.pos);
    if (!o.second.empty()) block("`|` is only allowed in the destination of `setp`", o.pos);
    ExprPtr v;
    switch (o.kind) {
      case Operand::Kind::AsmOperand: {
        auto it = kd_.find(o.text);
        if (it == kd_.end()) block("`%" + o.text + "` is not an operand of this asm", o.pos);
        if (it->second.rc != rc) width_mismatch(o, it->second.rc, rc);
        v = it->second.cur < 0 ? zero(rc) : local(it->second.cur, rc_dtype(rc));
        break;
      }
      case Operand::Kind::Register: {
        Reg* r = find_reg(o.text);
        if (!r) special_or_unknown(o);
        if (r->rc != rc) width_mismatch(o, r->rc, rc);
        v = r->cur < 0 ? zero(rc) : local(r->cur, rc_dtype(rc));
        break;
      }
      case Operand::Kind::Immediate: v = immediate(o, rc, fk); break;
      default: block("operand `" + o.text + "` is not a register, an asm operand or an immediate", o.pos);
    }
    if (o.negated) v = op("not_pred", RC::Pred, {}, std::nullopt, std::move(v));
    return v;
  }

  [[noreturn]] void width_mismatch(const Operand& o, RC have, RC want) {
    block("operand `" + o.text + "` is " + (have == RC::Pred ? std::string("a predicate") : std::to_string(rc_bits(have)) + "-bit") +
              " but the instruction reads " + (want == RC::Pred ? std::string("a predicate") : std::to_string(rc_bits(want)) + "-bit") +
              " values here",
          o.pos);
  }

  ExprPtr immediate(const Operand& o, RC rc, int fk) {
    const std::string& t = o.text;
    if (rc == RC::Pred) block("a predicate operand cannot be an immediate", o.pos);
    bool is_hex_float = t.size() > 2 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F' || t[1] == 'd' || t[1] == 'D');
    bool is_dec_float = !is_hex_float && (t.find('.') != std::string::npos ||
                                          (t.find_first_of("eE") != std::string::npos && t.find("0x") != 0 && t.find("0X") != 0));
    if (fk == 0) {
      if (is_hex_float || is_dec_float) block("a float immediate where the instruction reads an integer", o.pos);
      bool neg = t[0] == '-';
      std::string body = (t[0] == '-' || t[0] == '+') ? t.substr(1) : t;
      if (!body.empty() && (body.back() == 'U' || body.back() == 'u')) body.pop_back();
      int base = 10;
      if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) base = 16, body = body.substr(2);
      else if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B')) base = 2, body = body.substr(2);
      else if (body.size() > 1 && body[0] == '0') base = 8, body = body.substr(1);
      char* end = nullptr;
      errno = 0;
      unsigned long long v = std::strtoull(body.c_str(), &end, base);
      if (body.empty() || *end != '\0' || errno) block("`" + t + "` is not an integer immediate", o.pos);
      uint64_t u = neg ? (0ull - v) : v;
      int bits = rc_bits(rc);
      if (bits < 64) u &= (uint64_t{1} << bits) - 1;
      return konst(rc_dtype(rc), static_cast<int64_t>(u));
    }
    if (fk == 16) block("f16/bf16 immediates are not supported; pass the value as an asm operand", o.pos);
    uint64_t bits = 0;
    if (is_hex_float) {
      bool dbl = t[1] == 'd' || t[1] == 'D';
      std::string hex = t.substr(2);
      char* end = nullptr;
      unsigned long long v = std::strtoull(hex.c_str(), &end, 16);
      if (*end != '\0' || hex.size() != (dbl ? 16u : 8u)) block("`" + t + "` is not a PTX float immediate", o.pos);
      double d;
      if (dbl) {
        uint64_t u = v;
        std::memcpy(&d, &u, 8);
      } else {
        uint32_t u = static_cast<uint32_t>(v);
        float f;
        std::memcpy(&f, &u, 4);
        d = f;
        if (fk == 32) return konst(DType::U32, u);  // exact bits, NaN payload included
      }
      if (fk == 64 && dbl) return konst(DType::U64, static_cast<int64_t>(v));
      bits = float_bits(d, fk, o);
    } else if (is_dec_float) {
      char* end = nullptr;
      double d = std::strtod(t.c_str(), &end);
      if (*end != '\0') block("`" + t + "` is not a float immediate", o.pos);
      bits = float_bits(d, fk, o);
    } else {
      block("an integer immediate where the instruction reads a float; write it as `0fXXXXXXXX`", o.pos);
    }
    return konst(fk == 32 ? DType::U32 : DType::U64, static_cast<int64_t>(bits));
  }

  uint64_t float_bits(double d, int fk, const Operand& o) {
    if (fk == 64) {
      uint64_t u;
      std::memcpy(&u, &d, 8);
      return u;
    }
    float f = static_cast<float>(d);
    if (static_cast<double>(f) != d && !std::isnan(d)) {
      block("the immediate `" + o.text + "` is not exactly an f32 value", o.pos);
    }
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  }

  // Writes `v` to destination operand `o` (register class rc) under the guard.
  void dst(const Operand& o, RC rc, ExprPtr v) {
    if (o.negated) block("a destination cannot be negated", o.pos);
    int* cur = nullptr;
    RC have;
    if (o.kind == Operand::Kind::AsmOperand) {
      auto it = kd_.find(o.text);
      if (it == kd_.end()) block("`%" + o.text + "` is not an operand of this asm", o.pos);
      if (!it->second.is_output) block("`%" + o.text + "` is an input operand; PTX inputs are read-only", o.pos);
      have = it->second.rc;
      cur = &it->second.cur;
    } else if (o.kind == Operand::Kind::Register) {
      Reg* r = find_reg(o.text);
      if (!r) special_or_unknown(o);
      have = r->rc;
      cur = &r->cur;
    } else {
      block("destination `" + o.text + "` is not a register or an asm output", o.pos);
    }
    if (have != rc) width_mismatch(o, have, rc);
    if (!guard_.empty()) {
      Reg* g = find_reg(guard_);
      if (!g) block("guard `" + guard_ + "` is not a declared predicate register");
      if (g->rc != RC::Pred) block("guard `" + guard_ + "` is not a predicate");
      ExprPtr gv = g->cur < 0 ? boolean(false) : local(g->cur, DType::Bool);
      ExprPtr old = *cur < 0 ? zero(rc) : local(*cur, rc_dtype(rc));
      std::string sel = rc == RC::Pred ? "selp_pred" : "selp_b" + std::to_string(rc_bits(rc));
      std::vector<ExprPtr> args;
      if (guard_negated_) {
        args.push_back(std::move(old));
        args.push_back(std::move(v));
      } else {
        args.push_back(std::move(v));
        args.push_back(std::move(old));
      }
      args.push_back(std::move(gv));
      v = op(sel, rc, std::move(args));
    }
    *cur = let(rc, std::move(v), o.kind == Operand::Kind::AsmOperand ? o.text : o.text);
  }

  // ----- statements ----------------------------------------------------------------
  void statement(const Statement& s) {
    st_ = &s;
    switch (s.kind) {
      case Statement::Kind::OpenScope: scopes_.emplace_back(); return;
      case Statement::Kind::CloseScope:
        if (scopes_.size() <= 1) block("`}` without a matching `{`");
        scopes_.pop_back();
        return;
      case Statement::Kind::RegDecl: {
        Ty t;
        if (!parse_ty(s.reg_type, &t) || t.bits == 8) block("register type `." + s.reg_type + "` is not supported");
        for (const std::string& n : s.reg_names) scopes_.back()[n] = Reg{t.rc(), -1};
        return;
      }
      case Statement::Kind::Other:
        block("`" + s.text + "` is not an instruction kdt can translate (directives other than `.reg`, labels and "
              "branches have no translation)");
      case Statement::Kind::Instruction: break;
    }
    guard_ = s.guard;
    guard_negated_ = s.guard_negated;
    if (!guard_.empty()) {
      Reg* g = find_reg(guard_);
      if (!g) {
        Operand go;
        go.kind = Operand::Kind::Register;
        go.text = guard_;
        go.pos = s.pos;
        special_or_unknown(go);
      }
    }
    // Special registers anywhere block first, with their own message.
    for (const Operand& o : s.operands) {
      if (o.kind == Operand::Kind::Register && !o.text.empty() && o.text[0] == '%' && !find_reg(o.text)) special_or_unknown(o);
    }
    mods_.clear();
    types_.clear();
    for (const std::string& m : s.modifiers) {
      Ty t;
      if (parse_ty(m, &t)) types_.push_back(t);
      else mods_.push_back(m);
    }
    const std::string& opc = s.opcode;
    if (kMemory.count(opc)) block("`" + opc + "` accesses memory, which the interpretation path cannot do from inline PTX");
    if (find_cross_thread(opc)) block("`" + opc + "` communicates between threads and has no element-wise meaning");
    instruction(s);
    if (!mods_.empty()) block("modifier `." + mods_.front() + "` of `" + opc + "` is not honoured exactly by the translation");
  }

  bool take(const std::string& m) {
    for (size_t i = 0; i < mods_.size(); ++i) {
      if (mods_[i] == m) {
        mods_.erase(mods_.begin() + static_cast<long>(i));
        return true;
      }
    }
    return false;
  }
  // The rounding modifier among `allowed` (-1: none).
  int take_rnd() {
    static const char* r[] = {"rn", "rz", "rm", "rp"};
    for (int i = 0; i < 4; ++i) {
      if (take(r[i])) return i;
    }
    return -1;
  }
  static const char* rnd_name(int m) {
    static const char* r[] = {"rn", "rz", "rm", "rp"};
    return r[m];
  }

  Ty one_type() {
    if (types_.size() != 1) block("`" + st_->opcode + "` needs exactly one type modifier here");
    return types_[0];
  }
  void nops(size_t n) {
    if (st_->operands.size() != n) {
      block("`" + st_->opcode + "` takes " + std::to_string(n) + " operands, not " + std::to_string(st_->operands.size()));
    }
  }
  const Operand& O(size_t i) { return st_->operands[i]; }
  std::string W(const Ty& t) { return std::to_string(t.bits); }
  int fk(const Ty& t) { return t.is_float() ? (t.bits == 16 ? 16 : t.bits) : 0; }

  void unsupported_type(const Ty& t) { block("`" + st_->opcode + "." + t.name + "` is not in the supported subset"); }

  // Generic: d = NAME(srcs...) with every operand of register class of t.
  void simple(const std::string& name, const Ty& t, size_t nsrc) {
    nops(nsrc + 1);
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < nsrc; ++i) args.push_back(src(O(i + 1), t.rc(), fk(t)));
    dst(O(0), t.rc(), op(name, t.rc(), std::move(args)));
  }

  // Float arithmetic: OP_MODE[_ftz][_sat]_f32 / OP_MODE_f64.
  void float_arith(const std::string& opc, const Ty& t, size_t nsrc, bool rnd_required, bool f64_rn_only) {
    if (t.k != 'f' || t.bits == 16) unsupported_type(t);
    if (take("approx") || take("full")) block("`" + opc + "` with `.approx`/`.full` is an approximation; it has no exact CPU translation");
    int m = take_rnd();
    if (m < 0) {
      if (rnd_required) block("`" + opc + "." + t.name + "` needs a rounding modifier (.rn .rz .rm .rp)");
      m = 0;  // add/sub/mul default to .rn
    }
    std::string name = opc + "_" + rnd_name(m);
    if (t.bits == 32) {
      if (take("ftz")) name += "_ftz";
      if (opc != "sqrt" && opc != "rcp" && take("sat")) name += "_sat";
    } else if (f64_rn_only && m != 0) {
      block("`" + opc + "." + rnd_name(m) + ".f64` (directed rounding of a fused f64 operation) is not supported");
    }
    simple(name + "_" + t.name, t, nsrc);
  }

  void instruction(const Statement& s) {
    const std::string& opc = s.opcode;
    if (opc == "mov") {
      Ty t = one_type();
      if (t.bits == 8) unsupported_type(t);
      simple(t.k == 'p' ? "mov_pred" : "mov_b" + W(t), t, 1);
      return;
    }
    if (opc == "add" || opc == "sub") {
      Ty t = one_type();
      if (t.is_int() && t.bits >= 16) {
        if (take("sat")) {
          if (t.name != "s32") block("`." "sat` is only defined for `" + opc + ".s32`");
          simple(opc + "_sat_s32", t, 2);
        } else {
          simple(opc + "_b" + W(t), t, 2);
        }
        return;
      }
      float_arith(opc, t, 2, false, false);
      return;
    }
    if (opc == "mul" || opc == "mad") {
      Ty t = one_type();
      size_t nsrc = opc == "mul" ? 2 : 3;
      if (t.is_int() && t.k != 'b' && t.bits >= 16) {
        if (take("lo")) return simple(opc + "_lo_b" + W(t), t, nsrc);
        if (take("hi")) {
          if (opc == "mad" && !mods_.empty() && mods_[0] == "sat") block("`mad.hi.sat` is not supported");
          return simple(opc + "_hi_" + t.name, t, nsrc);
        }
        if (take("wide")) {
          if (t.bits == 64) unsupported_type(t);
          RC wide = t.bits == 16 ? RC::B32 : RC::B64;
          nops(nsrc + 1);
          std::vector<ExprPtr> args;
          args.push_back(src(O(1), t.rc()));
          args.push_back(src(O(2), t.rc()));
          if (nsrc == 3) args.push_back(src(O(3), wide));
          dst(O(0), wide, op(opc + "_wide_" + t.name, wide, std::move(args)));
          return;
        }
        block("`" + opc + "." + t.name + "` needs `.lo`, `.hi` or `.wide`");
      }
      if (opc == "mad") return float_arith("fma", t, 3, true, true);
      return float_arith("mul", t, 2, false, false);
    }
    if (opc == "fma") return float_arith("fma", one_type(), 3, true, true);
    if (opc == "div") {
      Ty t = one_type();
      if (t.is_int() && t.k != 'b' && t.bits >= 16) return simple("div_" + std::string(1, t.k) + W(t), t, 2);
      return float_arith("div", t, 2, true, false);
    }
    if (opc == "rem") {
      Ty t = one_type();
      if (!(t.is_int() && t.k != 'b' && t.bits >= 16)) unsupported_type(t);
      return simple("rem_" + std::string(1, t.k) + W(t), t, 2);
    }
    if (opc == "sqrt" || opc == "rcp") {
      Ty t = one_type();
      if (take("approx")) block("`" + opc + ".approx` is an approximation; it has no exact CPU translation");
      return float_arith(opc, t, 1, true, false);
    }
    if (opc == "neg" || opc == "abs") {
      Ty t = one_type();
      if (t.k == 's' && t.bits >= 16) return simple(opc + "_s" + W(t), t, 1);
      if (t.k == 'f' && t.bits >= 32) {
        std::string n = opc;
        if (t.bits == 32 && take("ftz")) n += "_ftz";
        return simple(n + "_" + t.name, t, 1);
      }
      unsupported_type(t);
    }
    if (opc == "min" || opc == "max") {
      Ty t = one_type();
      if ((t.k == 's' || t.k == 'u') && t.bits >= 16) return simple(opc + "_" + t.name, t, 2);
      if (t.k == 'f' && t.bits >= 32) {
        std::string n = opc;
        if (t.bits == 32 && take("ftz")) n += "_ftz";
        return simple(n + "_" + t.name, t, 2);
      }
      unsupported_type(t);
    }
    if (opc == "and" || opc == "or" || opc == "xor" || opc == "not" || opc == "cnot") {
      Ty t = one_type();
      size_t nsrc = (opc == "not" || opc == "cnot") ? 1 : 2;
      if (t.k == 'p' && opc != "cnot") return simple(opc + "_pred", t, nsrc);
      if (t.k == 'b' && t.bits >= 16) return simple(opc + "_b" + W(t), t, nsrc);
      unsupported_type(t);
    }
    if (opc == "shl" || opc == "shr") {
      Ty t = one_type();
      if (!t.is_int() || t.bits < 16 || (opc == "shl" && t.k != 'b')) unsupported_type(t);
      nops(3);
      std::string n = opc == "shl" ? "shl_b" : (t.k == 's' ? "shr_s" : "shr_u");
      ExprPtr a = src(O(1), t.rc());
      ExprPtr b = src(O(2), RC::B32);
      std::vector<ExprPtr> args;
      args.push_back(std::move(a));
      args.push_back(std::move(b));
      dst(O(0), t.rc(), op(n + W(t), t.rc(), std::move(args)));
      return;
    }
    if (opc == "lop3") {
      Ty t = one_type();
      if (t.name != "b32") unsupported_type(t);
      nops(5);
      if (O(4).kind != Operand::Kind::Immediate) block("the lookup table of `lop3` must be an immediate", O(4).pos);
      std::vector<ExprPtr> args;
      for (size_t i = 1; i <= 4; ++i) args.push_back(src(O(i), RC::B32));
      dst(O(0), RC::B32, op("lop3_b32", RC::B32, std::move(args)));
      return;
    }
    if (opc == "popc" || opc == "clz") {
      Ty t = one_type();
      if (t.k != 'b' || t.bits < 32) unsupported_type(t);
      nops(2);
      ExprPtr a = src(O(1), t.rc());
      std::vector<ExprPtr> args;
      args.push_back(std::move(a));
      dst(O(0), RC::B32, op(opc + "_b" + W(t), RC::B32, std::move(args)));
      return;
    }
    if (opc == "brev") {
      Ty t = one_type();
      if (t.k != 'b' || t.bits < 32) unsupported_type(t);
      return simple("brev_b" + W(t), t, 1);
    }
    if (opc == "bfe" || opc == "bfi") {
      Ty t = one_type();
      bool ok = opc == "bfe" ? ((t.k == 's' || t.k == 'u') && t.bits >= 32) : (t.k == 'b' && t.bits >= 32);
      if (!ok) unsupported_type(t);
      size_t nsrc = opc == "bfe" ? 3 : 4;
      nops(nsrc + 1);
      size_t nfull = opc == "bfe" ? 1 : 2;
      std::vector<ExprPtr> args;
      for (size_t i = 1; i <= nsrc; ++i) args.push_back(src(O(i), i <= nfull ? t.rc() : RC::B32));
      std::string n = opc == "bfe" ? "bfe_" + t.name : "bfi_b" + W(t);
      dst(O(0), t.rc(), op(n, t.rc(), std::move(args)));
      return;
    }
    if (opc == "prmt") {
      Ty t = one_type();
      if (t.name != "b32") unsupported_type(t);
      return simple("prmt_b32", t, 3);  // a mode modifier stays in mods_ and blocks
    }
    if (opc == "setp") return setp();
    if (opc == "selp") {
      Ty t = one_type();
      if (t.k == 'p' || t.bits == 8) unsupported_type(t);
      nops(4);
      std::vector<ExprPtr> args;
      args.push_back(src(O(1), t.rc(), fk(t)));
      args.push_back(src(O(2), t.rc(), fk(t)));
      args.push_back(src(O(3), RC::Pred));
      dst(O(0), t.rc(), op("selp_b" + std::to_string(rc_bits(t.rc())), t.rc(), std::move(args)));
      return;
    }
    if (opc == "testp") {
      static const char* ops[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
      int code = -1;
      for (int i = 0; i < 6; ++i) {
        if (take(ops[i])) code = i;
      }
      Ty t = one_type();
      if (code < 0) block("`testp` needs one of .finite .infinite .number .notanumber .normal .subnormal");
      if (t.k != 'f' || t.bits < 32) unsupported_type(t);
      nops(2);
      std::vector<ExprPtr> args;
      args.push_back(i32(code));
      args.push_back(src(O(1), t.rc(), fk(t)));
      dst(O(0), RC::Pred, op("testp_" + t.name, RC::Pred, std::move(args)));
      return;
    }
    if (opc == "copysign") {
      Ty t = one_type();
      if (t.k != 'f' || t.bits < 32) unsupported_type(t);
      return simple("copysign_" + t.name, t, 2);
    }
    if (opc == "cvt") return cvt();
    if (kApprox.count(opc)) block("`" + opc + "` is an approximation; it has no exact CPU translation");
    block("`" + opc + "` is not in the PTX subset kdt translates");
  }

  void setp() {
    static const char* fops[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
    static const char* uops[] = {"lo", "ls", "hi", "hs"};  // unsigned lt le gt ge
    int code = -1;
    bool unsigned_alias = false;
    for (int i = 0; i < 14 && code < 0; ++i) {
      if (take(fops[i])) code = i;
    }
    for (int i = 0; i < 4 && code < 0; ++i) {
      if (take(uops[i])) code = 2 + i, unsigned_alias = true;
    }
    std::string bop;
    for (const char* b : {"and", "or", "xor"}) {
      if (take(b)) bop = b;
    }
    Ty t = one_type();
    if (code < 0) block("`setp` needs a comparison operator");
    ExprPtr cmp;
    size_t want = bop.empty() ? 3 : 4;
    nops(want);
    if (t.is_float()) {
      if (t.bits == 16 || unsigned_alias) unsupported_type(t);
      std::string n = "setp_";
      if (t.bits == 32 && take("ftz")) n += "ftz_";
      std::vector<ExprPtr> args;
      args.push_back(i32(code));
      args.push_back(src(O(1), t.rc(), t.bits));
      args.push_back(src(O(2), t.rc(), t.bits));
      cmp = op(n + t.name, RC::Pred, std::move(args));
    } else if (t.is_int() && t.bits >= 16) {
      if (code > 5) block("`setp." + std::string(fops[code]) + "` is only defined for float types");
      if (t.k == 'b' && code > 1) block("`setp` on `.b` types allows only `.eq` and `.ne`");
      bool sgn = t.k == 's' && !unsigned_alias;
      std::vector<ExprPtr> args;
      args.push_back(i32(code));
      args.push_back(src(O(1), t.rc()));
      args.push_back(src(O(2), t.rc()));
      cmp = op(std::string(sgn ? "setp_s" : "setp_u") + W(t), RC::Pred, std::move(args));
    } else {
      unsupported_type(t);
    }
    int c = let(RC::Pred, std::move(cmp), "cmp");
    auto combine = [&](ExprPtr v) {
      if (bop.empty()) return v;
      std::vector<ExprPtr> args;
      args.push_back(std::move(v));
      args.push_back(src(O(3), RC::Pred));
      return op(bop + "_pred", RC::Pred, std::move(args));
    };
    Operand p = O(0);
    std::string q = p.second;
    p.second.clear();
    dst(p, RC::Pred, combine(local(c, DType::Bool)));
    if (!q.empty()) {
      Operand qo = p;
      qo.text = q;
      qo.kind = Operand::Kind::Register;
      if (q[0] != '%' && kd_.count(q)) qo.kind = Operand::Kind::AsmOperand;
      dst(qo, RC::Pred, combine(op("not_pred", RC::Pred, {}, std::nullopt, local(c, DType::Bool))));
    }
  }

  void cvt() {
    static const char* ir[] = {"rni", "rzi", "rmi", "rpi"};
    int fmode = take_rnd();
    int imode = -1;
    for (int i = 0; i < 4; ++i) {
      if (take(ir[i])) imode = i;
    }
    bool ftz = take("ftz");
    bool sat = take("sat");
    if (types_.size() != 2) block("`cvt` needs a destination and a source type");
    Ty dt = types_[0], st = types_[1];
    auto code = [&](const Ty& t) -> int {
      if (t.k == 'b' || t.k == 'p') unsupported_type(t);
      if (t.k == 'f') return t.bits == 16 ? 8 : t.bits == 32 ? 10 : 11;
      if (t.k == 'h') return 9;
      int base = t.bits == 8 ? 0 : t.bits == 16 ? 2 : t.bits == 32 ? 4 : 6;
      return base + (t.k == 'u' ? 1 : 0);
    };
    int dc = code(dt), sc = code(st);
    int mode = 0;
    if (ftz && !(st.name == "f32" || dt.name == "f32")) block("`.ftz` applies only to f32 conversions");
    if (dt.is_int() && st.is_int()) {
      if (fmode >= 0 || imode >= 0) block("integer-to-integer `cvt` takes no rounding modifier");
    } else if (dt.is_float() && st.is_int()) {
      if (imode >= 0) block("integer-to-float `cvt` takes `.rn .rz .rm .rp`, not an integer rounding");
      if (fmode < 0) block("integer-to-float `cvt` needs a rounding modifier (.rn .rz .rm .rp)");
      mode = fmode;
    } else if (dt.is_int() && st.is_float()) {
      if (fmode >= 0) block("float-to-integer `cvt` takes `.rni .rzi .rmi .rpi`");
      if (imode < 0) block("float-to-integer `cvt` needs an integer rounding modifier (.rni .rzi .rmi .rpi)");
      mode = imode;
    } else {
      bool narrowing = dt.bits < st.bits || (dt.bits == st.bits && dt.k != st.k);
      if (dt.bits == st.bits && dt.k == st.k) {
        if (fmode >= 0) block("a same-type float `cvt` takes only `.rni .rzi .rmi .rpi`");
        mode = imode >= 0 ? 4 + imode : 0;
      } else if (narrowing) {
        if (imode >= 0) block("a narrowing float `cvt` takes `.rn .rz .rm .rp`");
        if (fmode < 0) block("a narrowing float `cvt` needs a rounding modifier (.rn .rz .rm .rp)");
        mode = fmode;
      } else {
        if (fmode >= 0 || imode >= 0) block("a widening float `cvt` is exact and takes no rounding modifier");
      }
    }
    nops(2);
    RC drc = dt.rc(), src_rc = st.rc();
    ExprPtr a;
    const Operand& so = O(1);
    if (st.is_int() && so.kind != Operand::Kind::Immediate) {
      // An integer source may sit in a wider register: cvt reads its low bits.
      RC have = so.kind == Operand::Kind::AsmOperand && kd_.count(so.text) ? kd_[so.text].rc
                : (find_reg(so.text) ? find_reg(so.text)->rc : src_rc);
      if (have != RC::Pred && rc_bits(have) >= rc_bits(src_rc)) src_rc = have;
    }
    a = src(so, src_rc, fk(st));
    std::vector<ExprPtr> args;
    args.push_back(i32(dc));
    args.push_back(i32(sc));
    args.push_back(i32(mode));
    args.push_back(boolean(ftz));
    args.push_back(boolean(sat));
    args.push_back(std::move(a));
    dst(O(0), drc, op("cvt" + std::to_string(rc_bits(drc)), drc, std::move(args)));
  }

  ir::Kernel& k_;
  ir::AsmBlock& a_;
  int id_;
  ir::Block out_;
  std::vector<std::map<std::string, Reg>> scopes_;
  std::map<std::string, KdOperand> kd_;
  const Statement* st_ = nullptr;
  std::string guard_;
  bool guard_negated_ = false;
  std::vector<std::string> mods_;
  std::vector<Ty> types_;
  int counter_ = 0;
};

}  // namespace

TranslateResult translate_asm(ir::Kernel& k, int asm_id) {
  TranslateResult r;
  size_t locals = k.locals.size();
  ir::AsmBlock& a = k.asms[asm_id];
  auto saved_in = a.inputs;
  auto saved_out = a.outputs;
  // Without a fallback the operands have no locals yet: add them.
  auto ensure = [&](std::vector<std::pair<int, DType>>& ops, const std::vector<std::string>& names, bool out) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].first >= 0) continue;
      ir::Local l;
      l.name = "kdtptx" + std::to_string(asm_id) + "_" + (out ? "out_" : "in_") + names[i];
      l.type = Type::value(ops[i].second);
      l.mutable_ = out;
      l.internal = true;
      k.locals.push_back(l);
      ops[i].first = static_cast<int>(k.locals.size()) - 1;
    }
  };
  ensure(a.inputs, a.input_names, false);
  ensure(a.outputs, a.output_names, true);
  try {
    Translator t(k, asm_id);
    ir::Block b = t.run();
    k.asms[asm_id].fallback = std::move(b);
    r.ok = true;
  } catch (const Blocked& b) {
    k.locals.resize(locals);
    k.asms[asm_id].inputs = saved_in;
    k.asms[asm_id].outputs = saved_out;
    r.reason = b.reason;
    r.pos = b.pos;
    // The statement text at that position, for the message.
    ReadResult rr = read_ptx(k.asms[asm_id].ptx);
    for (const Statement& s : rr.statements) {
      if (s.pos.line < b.pos.line || (s.pos.line == b.pos.line && s.pos.column <= b.pos.column)) r.instruction = s.text;
    }
  }
  return r;
}

}  // namespace kdt::ptx
