// `--emit=ir` and `--emit=discharged-ir`: a readable dump, one instruction
// per line with its source position, stable enough for golden tests.
#include <sstream>

#include "kdt/ir/ir.h"

namespace kdt::ir {

const char* op_name(UnaryOp op) {
  static const char* const names[] = {"neg", "not", "bitnot"};
  return names[static_cast<int>(op)];
}

const char* op_name(BinaryOp op) {
  static const char* const names[] = {"mul", "div", "rem", "add", "sub", "shl", "shr", "and", "xor",
                                      "or",  "lt",  "le",  "gt",  "ge",  "eq",  "ne",  "land", "lor"};
  return names[static_cast<int>(op)];
}

Shape View::shape() const {
  Shape s;
  for (const ViewDim& d : dims) {
    if (!d.dropped) s.push_back(d.size);
  }
  return s;
}

size_t View::contiguous_tail(const Shape& ref_shape) const {
  size_t view_dims = 0;
  size_t tail = 0;
  for (size_t d = ref_shape.size(); d-- > 0;) {
    const ViewDim& dim = dims[d];
    if (dim.dropped) break;
    bool dynamic = dim.start || dim.captured;
    bool full = !dynamic && dim.static_start == 0 && dim.size == ref_shape[d];
    ++view_dims;
    tail = view_dims;
    if (!full) break;
  }
  return tail;
}

bool View::is_whole(const Ref& r) const {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].dropped || dims[i].start || dims[i].captured || dims[i].static_start != 0 || dims[i].size != r.shape[i]) {
      return false;
    }
  }
  return true;
}

namespace {

class Printer {
 public:
  Printer(const Kernel& k, const SourceManager& sources) : k_(k), sources_(sources) {}

  std::string kernel() {
    out_ << "kernel @" << k_.name << " grid" << shape_string(k_.grid)
         << (k_.steps.empty() ? "" : " steps" + shape_string(k_.steps)) << " devices(" << mesh() << ")"
         << (k_.discharged ? " discharged" : "") << " {\n";
    for (const Ref& r : k_.refs) {
      out_ << "  " << (r.is_param ? "param " : "scratch ") << "%" << r.name << ": "
           << type_string(Type::ref(r.dtype, r.shape, r.space));
      if (r.is_param) out_ << (!r.writable ? " in" : !r.is_output ? "" : r.starts_uninitialized ? " out" : " inout");
      out_ << "\n";
    }
    for (const ScalarParam& s : k_.scalars) out_ << "  param %" << s.name << ": " << dtype_name(s.dtype) << "\n";
    for (const Semaphore& s : k_.sems) {
      const std::string dims = s.cols ? std::to_string(s.count / s.cols) + ", " + std::to_string(s.cols) : std::to_string(s.count);
      out_ << "  sem %" << s.name << (s.is_array ? "[" + dims + "]" : "") << ": "
           << (s.kind == SemKind::Dma ? "dma" : "regular") << "\n";
    }
    for (size_t i = 0; i < k_.dmas.size(); ++i) {
      const DmaSite& d = k_.dmas[i];
      out_ << "  dma #" << i << ": " << (d.add ? "accumulate " : "copy ") << view(d.src) << " -> " << view(d.dst)
           << ", " << d.bytes << " bytes" << loc(d.range) << "\n";
      out_ << "    " << copy_plan(d) << "\n";
    }
    block(k_.body, 1);
    out_ << "}\n";
    return out_.str();
  }

 private:
  // `for %i0 < 4: %dst[$1 + %i0, 0] += %src[%i0, 0] x 32`: the loops
  // and the contiguous run of each step ($N: captured start N).
  std::string copy_plan(const DmaSite& d) const {
    auto coords = [](const std::vector<CopyCoord>& cs) {
      std::string out;
      for (const CopyCoord& c : cs) {
        std::string coord = c.capture >= 0 ? "$" + std::to_string(c.capture) : std::to_string(c.static_start);
        if (c.loop >= 0) coord += " + %i" + std::to_string(c.loop);
        out += (out.empty() ? "" : ", ") + coord;
      }
      return out;
    };
    std::string out;
    for (size_t i = 0; i < d.copy.loops.size(); ++i) {
      out += "for %i" + std::to_string(i) + " < " + std::to_string(d.copy.loops[i]) + ": ";
    }
    return out + "%" + k_.refs[d.dst.ref].name + "[" + coords(d.copy.dst) + "] " + (d.add ? "+=" : "=") + " %" +
           k_.refs[d.src.ref].name + "[" + coords(d.copy.src) + "] x " + std::to_string(d.copy.chunk);
  }

  std::string loc(SourceRange r) const {
    if (!r.valid()) return "";
    LineColumn lc = sources_.position(r.file, r.begin);
    return "  ; line " + std::to_string(lc.line) + ":" + std::to_string(lc.column);
  }

  std::string view(const View& v) const {
    std::string s = "%" + k_.refs[v.ref].name + "[";
    for (size_t i = 0; i < v.dims.size(); ++i) {
      const ViewDim& d = v.dims[i];
      if (i) s += ", ";
      std::string start = d.start ? expr(*d.start) : d.captured ? "$start" : std::to_string(d.static_start);
      if (d.dropped) s += start;
      else if (!d.start && !d.captured && d.static_start == 0 && d.size == k_.refs[v.ref].shape[i]) s += ":";
      else s += start + " +: " + std::to_string(d.size);
    }
    return s + "]";
  }

  std::string sem(const SemRef& r) const {
    std::string s = "%" + k_.sems[r.sem].name;
    if (k_.sems[r.sem].is_array) {
      s += "[" + (r.index ? expr(*r.index) : std::string("0")) + (r.col ? ", " + expr(*r.col) : "") + "]";
    }
    return s;
  }

  std::string typed(const Expr& e, const std::string& body) const {
    return body + " : " + type_string(e.type);
  }

  std::string args(const Expr& e) const {
    std::string s;
    for (size_t i = 0; i < e.operands.size(); ++i) s += (i ? ", " : "") + expr(*e.operands[i]);
    return s;
  }

  // `8`, or `x: 2, y: 4` for a mesh (section 15).
  std::string mesh() const {
    if (k_.mesh.size() <= 1 && (k_.mesh_axes.empty() || k_.mesh_axes[0].empty())) return std::to_string(k_.devices);
    return mesh_string(k_.mesh, k_.mesh_axes);
  }

  std::string expr(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Const: {
        if (is_float(e.type.dtype)) {
          std::ostringstream s;
          s.precision(17);
          s << e.float_value;
          return s.str() + dtype_name(e.type.dtype).data();
        }
        if (e.type.dtype == DType::Bool) return e.int_value ? "true" : "false";
        return std::to_string(e.int_value) + dtype_name(e.type.dtype).data();
      }
      case ExprKind::Local: return "%" + k_.locals[e.local].name;
      case ExprKind::ScalarParam: return "%" + k_.scalars[e.index].name;
      case ExprKind::ProgramId: return "program_id(" + std::to_string(e.index) + ")";
      case ExprKind::DeviceId: return "device_id()";
      case ExprKind::Load: {
        std::string s = "load " + view(*e.view);
        if (e.mask) s += " mask(" + expr(*e.mask) + ")";
        if (e.other) s += " other(" + expr(*e.other) + ")";
        return typed(e, "(" + s + ")");
      }
      case ExprKind::Unary: return typed(e, std::string(op_name(e.unary)) + "(" + args(e) + ")");
      case ExprKind::Binary: return typed(e, std::string(op_name(e.binary)) + "(" + args(e) + ")");
      case ExprKind::Select: return typed(e, "select(" + args(e) + ")");
      case ExprKind::Where: return typed(e, "where(" + args(e) + ")");
      case ExprKind::Cast: return typed(e, "cast(" + args(e) + ")");
      case ExprKind::Math: return typed(e, e.name + "(" + args(e) + ")");
      case ExprKind::Fill: return typed(e, "fill(" + args(e) + ")");
      case ExprKind::Iota: return typed(e, "iota(axis=" + std::to_string(e.index) + ")");
      case ExprKind::Reduce:
        return typed(e, "reduce_" + e.name + "(" + args(e) + (e.index >= 0 ? ", axis=" + std::to_string(e.index) : "") +
                            (e.keepdims ? ", keepdims" : "") + ")");
      case ExprKind::Broadcast: return typed(e, "broadcast(" + args(e) + ")");
      case ExprKind::Reshape: return typed(e, "reshape(" + args(e) + ")");
      case ExprKind::Transpose: return typed(e, "transpose(" + args(e) + ")");
      case ExprKind::Dot: return typed(e, "dot(" + args(e) + ")");
      case ExprKind::TileSlice: {
        std::string s = "slice(" + args(e) + ", [";
        for (size_t i = 0; i < e.tile_dims.size(); ++i) {
          const ViewDim& d = e.tile_dims[i];
          s += (i ? ", " : "") + std::to_string(d.static_start) + (d.dropped ? "" : " +: " + std::to_string(d.size));
        }
        return typed(e, s + "])");
      }
      case ExprKind::SemRead: return typed(e, "sem_read(" + sem(*e.sem) + ")");
      case ExprKind::AsmOutput: return typed(e, "asm#" + std::to_string(e.asm_id) + "." + std::to_string(e.index));
      case ExprKind::PtxOp: return typed(e, "ptx." + e.name + "(" + args(e) + ")");
      case ExprKind::MeshDevice: return typed(e, "mesh_device(" + args(e) + ")");
    }
    return "?";
  }

  void line(int depth, const std::string& text, SourceRange r) {
    out_ << std::string(depth * 2, ' ') << text << loc(r) << "\n";
  }

  void block(const Block& b, int depth) {
    for (const StmtPtr& s : b) stmt(*s, depth);
  }

  void stmt(const Stmt& s, int depth) {
    static const char* const store_ops[] = {"=", "+=", "-=", "*="};
    if (!s.inlined.empty()) {
      LineColumn at = sources_.position(s.inlined_at.file, s.inlined_at.begin);
      line(depth, "// inlined " + s.inlined + ", called at line " + std::to_string(at.line) + ":" + std::to_string(at.column), {});
    }
    switch (s.kind) {
      case StmtKind::Let:
        line(depth, std::string(k_.locals[s.local].mutable_ ? "var" : "let") + " %" + k_.locals[s.local].name + " = " +
                        expr(*s.value),
             s.range);
        break;
      case StmtKind::Assign: line(depth, "%" + k_.locals[s.local].name + " = " + expr(*s.value), s.range); break;
      case StmtKind::Store:
        line(depth, "store " + view(*s.view) + " " + store_ops[static_cast<int>(s.store_op)] + " " + expr(*s.value) +
                        (s.mask ? " mask(" + expr(*s.mask) + ")" : ""),
             s.range);
        break;
      case StmtKind::For:
        line(depth, "for %" + k_.locals[s.local].name + " in " + expr(*s.lo) + " .. " + expr(*s.hi) + " step " +
                        std::to_string(s.step) + " {",
             s.range);
        block(s.body, depth + 1);
        line(depth, "}", {});
        break;
      case StmtKind::While:
        line(depth, "while " + expr(*s.value) + " {", s.range);
        block(s.body, depth + 1);
        line(depth, "}", {});
        break;
      case StmtKind::If:
        for (size_t i = 0; i < s.clauses.size(); ++i) {
          const IfClause& c = s.clauses[i];
          std::string head = c.cond ? std::string(i ? "} else if " : "if ") + expr(*c.cond) + " {" : "} else {";
          line(depth, head, i ? SourceRange{} : s.range);
          block(c.body, depth + 1);
        }
        line(depth, "}", {});
        break;
      case StmtKind::Assert: line(depth, "assert " + expr(*s.value) + (s.message.empty() ? "" : ", \"" + s.message + "\""), s.range); break;
      case StmtKind::Eval: line(depth, "eval " + expr(*s.value), s.range); break;
      case StmtKind::AsmStmt: {
        const AsmBlock& a = k_.asms[s.asm_id];
        std::string head = "asm#" + std::to_string(s.asm_id) + " (";
        for (size_t i = 0; i < a.input_values.size(); ++i) {
          head += (i ? ", " : "") + a.input_names[i] + " = " + expr(*a.input_values[i]);
        }
        head += ") -> (";
        for (size_t i = 0; i < a.outputs.size(); ++i) {
          head += (i ? ", " : "") + a.output_names[i] + ": " + std::string(dtype_name(a.outputs[i].second));
        }
        head += ")";
        if (k_.discharged && a.fallback) {
          line(depth, head + " fallback {", s.range);
          block(*a.fallback, depth + 1);
          line(depth, "}", {});
        } else {
          std::string ptx = a.ptx;
          for (char& c : ptx) c = c == '\n' ? ' ' : c;
          line(depth, head + " ptx \"" + ptx + "\"", s.range);
        }
        break;
      }
      case StmtKind::DmaStart:
        line(depth, "dma_start " + view(*s.src) + " -> " + view(*s.dst) + " sem " + sem(s.sem) +
                        (s.src_sem ? " src_sem " + sem(*s.src_sem) : "") + (s.device ? " device " + expr(*s.device) : "") +
                        (s.add ? " add" : "") + ", " + std::to_string(s.bytes) + " bytes",
             s.range);
        break;
      case StmtKind::DmaWait: line(depth, "dma_wait " + sem(s.sem) + ", " + std::to_string(s.bytes) + " bytes", s.range); break;
      case StmtKind::SemSignal:
        line(depth, "sem_signal " + sem(s.sem) + ", " + expr(*s.amount) + (s.device ? " device " + expr(*s.device) : ""),
             s.range);
        break;
      case StmtKind::SemWait: line(depth, "sem_wait " + sem(s.sem) + ", " + expr(*s.amount), s.range); break;
      case StmtKind::DmaIssue:
        line(depth, "dma_issue #" + std::to_string(s.dma_id) + " " + view(*s.src) + " -> " + view(*s.dst) + " sem " +
                        sem(s.sem) + (s.src_sem ? " src_sem " + sem(*s.src_sem) : "") +
                        (s.device ? " device " + expr(*s.device) : "") + ", " + std::to_string(s.bytes) + " bytes",
             s.range);
        break;
      case StmtKind::DmaRetire:
        line(depth, "dma_retire " + sem(s.sem) + ", " + std::to_string(s.bytes) + " bytes", s.range);
        break;
      case StmtKind::ScopeEnter:
      case StmtKind::ScopeExit: {
        std::string names;
        for (int r : s.scope_refs) names += (names.empty() ? " %" : ", %") + k_.refs[r].name;
        for (int m : s.scope_sems) names += (names.empty() ? " %" : ", %") + k_.sems[m].name;
        line(depth, (s.kind == StmtKind::ScopeEnter ? "scope_enter" : "scope_exit") + names, s.range);
        break;
      }
      case StmtKind::BlockBegin: line(depth, "block_begin " + view(*s.view), s.range); break;
      case StmtKind::BlockEnd:
        line(depth, "block_end %" + k_.refs[s.scope_refs[0]].name + " pipeline %" + k_.sems[s.scope_sems[0]].name,
             s.range);
        break;
    }
  }

  const Kernel& k_;
  const SourceManager& sources_;
  std::ostringstream out_;
};

}  // namespace

std::string print_module(const Module& module, const SourceManager& sources) {
  std::string out;
  for (size_t i = 0; i < module.kernels.size(); ++i) {
    if (i) out += "\n";
    out += Printer(module.kernels[i], sources).kernel();
  }
  return out;
}

}  // namespace kdt::ir
