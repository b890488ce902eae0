// The C++ back end of the interpretation path. Each kernel becomes:
//   - a struct of its parameters (one pointer per ref, scalars by value),
//   - the body of one program (`<kernel>_program`), with tiles as fixed-size
//     arrays and element-wise expressions fused into one tight loop,
//   - one copy routine per DMA site (memcpy for contiguous runs),
//   - a launcher that runs the grid (`<kernel>(...)`), and, with --harness,
//     a main() that reads and writes .npy files.
#include "kdt/emit/emit_cpp.h"

#include <cstring>
#include <map>
#include <sstream>

#include "c_types.h"
#include "code_writer.h"
#include "cpp_harness.h"
#include "lazy_operands.h"
#include "loop_shapes.h"
#include "kdt/runtime/kdt_runtime.h"
#include "kdt/version.h"

namespace kdt {

namespace {

using ir::Expr;
using ir::ExprKind;
using emit::contiguous_tail;
using emit::count_of;
using emit::index_of;
using emit::LoopCtx;
using emit::strides_of;

std::string ctype(DType t) { return emit::c_type(t, "kdt_rt"); }



std::string float_literal(double v, DType t) {
  if (std::isnan(v)) return t == DType::F64 ? "std::numeric_limits<double>::quiet_NaN()" : "std::numeric_limits<float>::quiet_NaN()";
  if (std::isinf(v)) {
    std::string inf = t == DType::F64 ? "std::numeric_limits<double>::infinity()" : "std::numeric_limits<float>::infinity()";
    return v < 0 ? "(-" + inf + ")" : inf;
  }
  char buf[64];
  // Hex floats are exact; the decimal is for the reader.
  std::snprintf(buf, sizeof buf, "%a", t == DType::F64 ? v : static_cast<double>(static_cast<float>(v)));
  return std::string(buf) + (t == DType::F64 ? "" : "f");
}

std::string const_literal(const Expr& e) {
  DType t = e.type.dtype;
  switch (t) {
    case DType::Bool: return e.int_value ? "true" : "false";
    case DType::F16: {
      kdt_rt::f16 h = kdt_rt::f16_from_f64(e.float_value);
      char buf[32];
      std::snprintf(buf, sizeof buf, "kdt_rt::f16{0x%04x}", h.bits);
      return buf;
    }
    case DType::BF16: {
      kdt_rt::bf16 h = kdt_rt::bf16_from_f64(e.float_value);
      char buf[32];
      std::snprintf(buf, sizeof buf, "kdt_rt::bf16{0x%04x}", h.bits);
      return buf;
    }
    case DType::F32:
    case DType::F64: return float_literal(e.float_value, t);
    case DType::I64:
      if (e.int_value == INT64_MIN) return "INT64_MIN";
      return "int64_t{" + std::to_string(e.int_value) + "}";
    // uint64_t, not `ull`: `unsigned long long` is another type where
    // uint64_t is `unsigned long`, and op_add(T, T) would not deduce.
    case DType::U64: return "uint64_t{" + std::to_string(static_cast<uint64_t>(e.int_value)) + "u}";
    default: return ctype(t) + "(" + std::to_string(e.int_value) + ")";
  }
}


class KernelEmitter {
 public:
  KernelEmitter(const ir::Kernel& k, const SourceManager& sources, const CppEmitOptions& options, emit::CodeWriter& w)
      : k_(k), sources_(sources), options_(options), w_(w) {}

  void emit_all() {
    emit_params_struct();
    emit_dma_sites();
    emit_run_dma();
    emit_program();
    if (options_.checks && k_.devices > 1) emit_launch_end_checks();
    emit_launcher();
  }

 private:
  // ----- names and locations ------------------------------------------------
  std::string local_name(int l) const { return k_.locals[l].name; }
  std::string fresh(const char* base) { return std::string(base) + std::to_string(next_temp_++); }

  std::string loc(SourceRange r) {
    if (!r.valid()) return "kdt_rt::SourceLoc{\"\", 0, 0, 0, 0}";
    LineColumn lc = sources_.position(r.file, r.begin);
    return "kdt_rt::SourceLoc{\"" + emit::CodeWriter::escape(sources_.file(r.file).path) + "\", " +
           std::to_string(lc.line) + ", " + std::to_string(lc.column) + ", " + std::to_string(r.begin) + ", " +
           std::to_string(r.end) + "}";
  }

  // ----- parameters -----------------------------------------------------------
  void emit_params_struct() {
    w_.line("// Parameters of kernel `" + k_.name + "`: one pointer per ref (row-major), scalars by value.");
    w_.open("struct " + k_.name + "_params {");
    for (auto [is_ref, i] : k_.params) {
      if (is_ref) {
        const ir::Ref& r = k_.refs[i];
        w_.line(std::string(r.writable ? "" : "const ") + ctype(r.dtype) + "* " + r.name + ";  // " +
                type_string(Type::ref(r.dtype, r.shape, r.space)) + (r.writable ? "" : ", in"));
      } else {
        w_.line(ctype(k_.scalars[i].dtype) + " " + k_.scalars[i].name + ";");
      }
    }
    w_.close("};");
    w_.line();
    // Scratch and semaphores of one program.
    w_.line("// Scratch buffers and semaphores of one program (one instance per program).");
    w_.open("struct " + k_.name + "_program_state {");
    for (const ir::Ref& r : k_.refs) {
      if (r.is_param) continue;
      w_.line("alignas(64) " + ctype(r.dtype) + " " + r.name + "[" + std::to_string(count_of(r.shape)) + "];");
      if (options_.checks) w_.line("kdt_rt::RefShadow " + r.name + "_shadow_;");
    }
    for (const ir::Semaphore& s : k_.sems) {
      w_.line(std::string(s.kind == SemKind::Dma ? "kdt_rt::DmaSemaphore " : "kdt_rt::RegularSemaphore ") + s.name + "[" +
              std::to_string(s.count) + "];");
    }
    if (options_.checks) w_.line("kdt_rt::ProgramClock clock;  // happens-before, for the cross-program race check");
    w_.line("int64_t program[" + std::to_string(k_.grid.size()) + "];  // program ids");
    w_.line("int64_t flat = 0;  // flattened program index");
    w_.close("};");
    w_.line();
    emit_launch_struct();
  }

  // The state of one launch: parameters per device and the program states
  // of every (device, program), made when first touched (a remote DMA or
  // signal may reach a program before it runs) and kept for the launch.
  void emit_launch_struct() {
    std::string n = k_.name;
    w_.open("struct " + n + "_launch {");
    w_.line("std::vector<" + n + "_params> params;  // one set per device");
    if (options_.checks) w_.line("std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device");
    w_.line("kdt_rt::RunOptions options;");
    w_.line("kdt_rt::DeviceScheduler scheduler{" + std::to_string(k_.devices) + "};");
    w_.line("// By device * programs + flat index; ordered, so that the launch-end checks are deterministic.");
    w_.line("std::map<int64_t, std::unique_ptr<" + n + "_program_state>> states;");
    w_.open(n + "_program_state& state(int device, int64_t flat) {");
    w_.line("auto& slot = states[int64_t{device} * " + std::to_string(count_of(k_.grid)) + " + flat];");
    w_.open("if (!slot) {");
    w_.line("slot = std::make_unique<" + n + "_program_state>();");
    w_.line("slot->flat = flat;");
    if (options_.checks) w_.line("slot->clock.init(device, flat, " + std::to_string(k_.devices) + ");");
    if (options_.checks) {
      for (const ir::Ref& r : k_.refs) {
        if (!r.is_param) w_.line("slot->" + r.name + "_shadow_.init(\"" + r.kd_name + "\", {" + dims_list(r.shape) + "}, true, false);");
      }
    }
    int64_t stride = 1;
    for (size_t d = k_.grid.size(); d-- > 0;) {
      w_.line("slot->program[" + std::to_string(d) + "] = flat / " + std::to_string(stride) + " % " +
              std::to_string(k_.grid[d]) + ";");
      stride *= k_.grid[d];
    }
    w_.close();
    w_.line("return *slot;");
    w_.close();
    w_.close("};");
    w_.line();
  }

  // Pointer expression of a ref: in the program `p.`/`s.`; in a DMA copy
  // routine `sp.`/`ss.` (source side) or `dp.`/`ds.` (destination side).
  std::string ref_base(int ref, const std::string& side = "") const {
    const ir::Ref& r = k_.refs[ref];
    return (r.is_param ? side + "p." : side + "s.") + r.name;
  }

  // ----- DMA copies -----------------------------------------------------------
  void emit_dma_sites() {
    for (size_t id = 0; id < k_.dmas.size(); ++id) {
      const ir::DmaSite& d = k_.dmas[id];
      w_.line("// DMA #" + std::to_string(id) + ": " + (d.add ? "dst += src" : "dst = src") + " over " +
              std::to_string(d.bytes) + " bytes.");
      w_.open("static void " + k_.name + "_dma" + std::to_string(id) + "(" + k_.name + "_launch& L, const kdt_rt::DmaRecord& d) {");
      w_.line("const " + k_.name + "_params& sp = L.params[static_cast<size_t>(d.src_device)];");
      w_.line("const " + k_.name + "_params& dp = L.params[static_cast<size_t>(d.dst_device)];");
      w_.line(k_.name + "_program_state& ss = L.state(d.src_device, d.program);");
      w_.line(k_.name + "_program_state& ds = L.state(d.dst_device, d.program);");
      w_.line("const int64_t* starts = d.starts;");
      w_.line("(void)sp, (void)dp, (void)ss, (void)ds, (void)starts;");
      Shape shape = d.src.shape();
      size_t rank = shape.size();
      size_t tail = std::min(contiguous_tail(d.src, k_.refs[d.src.ref].shape),
                             contiguous_tail(d.dst, k_.refs[d.dst.ref].shape));
      int64_t chunk = 1;
      for (size_t i = rank - tail; i < rank; ++i) chunk *= shape[i];
      std::vector<std::string> idx;
      for (size_t i = 0; i < rank - tail; ++i) {
        idx.push_back("i" + std::to_string(i));
        w_.open("for (int64_t i" + std::to_string(i) + " = 0; i" + std::to_string(i) + " < " + std::to_string(shape[i]) +
                "; ++i" + std::to_string(i) + ") {");
      }
      for (size_t i = rank - tail; i < rank; ++i) idx.push_back("0");
      int capture = 0;
      std::string src = ref_base(d.src.ref, "s") + " + " + view_offset(d.src, idx, capture);
      std::string dst = ref_base(d.dst.ref, "d") + " + " + view_offset(d.dst, idx, capture);
      std::string T = ctype(d.dtype);
      if (d.add) {
        w_.line("const " + T + "* src = " + src + ";");
        w_.line(T + "* dst = " + dst + ";");
        w_.line("for (int64_t j = 0; j < " + std::to_string(chunk) + "; ++j) dst[j] = kdt_rt::op_add(dst[j], src[j]);");
      } else {
        w_.line("std::memcpy(" + dst + ", " + src + ", " + std::to_string(chunk) + " * sizeof(" + T + "));");
      }
      for (size_t i = 0; i < rank - tail; ++i) w_.close();
      w_.close();
      w_.line();
    }
  }

  // Moves the data of a started DMA (at its start or at the wait that retires it).
  void emit_run_dma() {
    w_.open("[[maybe_unused]] static void " + k_.name + "_run_dma(" + k_.name + "_launch& L, kdt_rt::DmaRecord& d) {");
    w_.line("(void)L;");
    w_.open("switch (d.site) {");
    for (size_t id = 0; id < k_.dmas.size(); ++id) {
      w_.line("case " + std::to_string(id) + ": " + k_.name + "_dma" + std::to_string(id) + "(L, d); break;");
    }
    w_.line("default: break;");
    w_.close();
    w_.line("d.landed = true;");
    w_.close();
    w_.line();
  }

  // Offset of a view element inside its ref. `idx` names the view-space
  // index of every non-dropped dimension; captured starts come from
  // `starts[...]` in order.
  std::string view_offset(const ir::View& v, const std::vector<std::string>& idx, int& capture) {
    const Shape& rs = k_.refs[v.ref].shape;
    std::vector<int64_t> st = strides_of(rs);
    std::string out;
    size_t vd = 0;
    for (size_t d = 0; d < rs.size(); ++d) {
      const ir::ViewDim& dim = v.dims[d];
      std::string coord = dim.captured ? "starts[" + std::to_string(capture++) + "]" : std::to_string(dim.static_start);
      if (!dim.dropped) {
        const std::string& i = idx[vd++];
        if (i != "0") coord = coord == "0" ? i : coord + " + " + i;
      }
      if (coord == "0") continue;
      std::string term = st[d] == 1 ? "(" + coord + ")" : "(" + coord + ") * " + std::to_string(st[d]);
      out += out.empty() ? term : " + " + term;
    }
    return out.empty() ? "0" : out;
  }

  // ----- the program body ------------------------------------------------------
  void emit_program() {
    w_.line("// One program of `" + k_.name + "`.");
    w_.open("static void " + k_.name + "_program(" + k_.name + "_launch& L, int device, " + k_.name +
            "_program_state& s) {");
    w_.line("const " + k_.name + "_params& p = L.params[static_cast<size_t>(device)];");
    w_.line("const kdt_rt::RunOptions& options = L.options;");
    w_.line("(void)p, (void)options;");
    block(k_.body);
    if (options_.checks) emit_leak_checks("the program ends");
    w_.close();
    w_.line();
  }

  // Every DMA retired and every semaphore back at 0, in state `s`.
  // `when_text` names the moment inside the messages' string literals.
  void emit_leak_checks(const std::string& when_text) {
    for (const ir::Semaphore& sem : k_.sems) {
      std::string name = sem.is_array ? "`" + sem.kd_name + "[\" + std::to_string(k_) + \"]`" : "`" + sem.kd_name + "`";
      w_.open("for (int64_t k_ = 0; k_ < " + std::to_string(sem.count) + "; ++k_) {");
      if (sem.kind == SemKind::Dma) {
        w_.open("if (!s." + sem.name + "[k_].in_flight.empty()) {");
        w_.line("kdt_rt::fail(\"semaphore-leak\", s." + sem.name + "[k_].in_flight.front()->loc, \"this DMA is never retired: " + when_text +
                " with it in flight on " + name + "\");");
      } else {
        w_.open("if (s." + sem.name + "[k_].value != 0) {");
        w_.line("kdt_rt::fail(\"semaphore-leak\", " + loc(k_.range) + ", \"semaphore " + name + " is \" + std::to_string(s." +
                sem.name + "[k_].value) + \" when " + when_text + "; it must be back at 0\");");
      }
      w_.close();
      w_.close();
    }
  }

  // With devices(N), a remote DMA or signal may reach a program after it
  // ended: what is left in any program's semaphores when the launch ends
  // is a leak too (the receiver never waited).
  void emit_launch_end_checks() {
    int64_t programs = count_of(k_.grid);
    w_.line("// Semaphores of every program when the launch ends (remote DMAs and signals may arrive after a program ended).");
    w_.open("[[maybe_unused]] static void " + k_.name + "_launch_end_checks(" + k_.name + "_launch& L) {");
    w_.open("for (const auto& [key_, state_] : L.states) {");
    w_.line(k_.name + "_program_state& s = *state_;");
    w_.line("const std::string when_ = \"the launch ends (device \" + std::to_string(key_ / " + std::to_string(programs) +
            ") + \", program \" + std::to_string(s.flat) + \")\";");
    emit_leak_checks("\" + when_ + \"");
    w_.close();
    w_.close();
    w_.line();
  }

  void block(const ir::Block& b) {
    for (const ir::StmtPtr& s : b) stmt(*s);
  }

  std::string sem_ref(const ir::SemRef& r, const std::string& state = "s") {
    const ir::Semaphore& sem = k_.sems[r.sem];
    std::string index = "0";
    if (r.index) {
      index = scalar(*r.index);
      if (options_.checks) index = "kdt_rt::checked_index(" + index + ", 1, " + std::to_string(sem.count) + ", " +
                                   loc(r.index->range) + ", \"semaphore index\")";
    }
    return state + "." + sem.name + "[" + index + "]";
  }

  void stmt(const ir::Stmt& s) {
    w_.source_line(s.range);
    switch (s.kind) {
      case ir::StmtKind::Let: {
        const ir::Local& l = k_.locals[s.local];
        if (l.type.shape.empty()) {
          std::string v = scalar(*s.value);
          w_.line(std::string("[[maybe_unused]] ") + (l.mutable_ ? "" : "const ") + ctype(l.type.dtype) + " " + l.name + " = " + v + ";");
        } else {
          w_.line("alignas(64) " + ctype(l.type.dtype) + " " + l.name + "[" + std::to_string(count_of(l.type.shape)) + "];");
          store_tile(l.name, l.type.shape, *s.value);
        }
        break;
      }
      case ir::StmtKind::Assign: {
        const ir::Local& l = k_.locals[s.local];
        if (l.type.shape.empty()) w_.line(l.name + " = " + scalar(*s.value) + ";");
        else store_tile(l.name, l.type.shape, *s.value);
        break;
      }
      case ir::StmtKind::Store: store_view(s); break;
      case ir::StmtKind::For: {
        std::string lo = scalar(*s.lo), hi = scalar(*s.hi);
        std::string v = local_name(s.local);
        // A 64-bit counter: `i += step` never overflows near INT32_MAX.
        w_.open("for (int64_t " + v + "_it = " + lo + "; " + v + "_it < " + hi + "; " + v + "_it += " + std::to_string(s.step) + ") {");
        w_.line("[[maybe_unused]] const int32_t " + v + " = static_cast<int32_t>(" + v + "_it);");
        block(s.body);
        w_.close();
        break;
      }
      case ir::StmtKind::If: if_chain(s.clauses, 0); break;
      case ir::StmtKind::Assert: {
        std::string cond = scalar(*s.value);
        std::string message = s.message.empty() ? "assertion failed" : "assertion failed: " + s.message;
        w_.line("if (!(" + cond + ")) kdt_rt::fail(\"assert-failed\", " + loc(s.range) + ", \"" +
                emit::CodeWriter::escape(message) + "\");");
        break;
      }
      case ir::StmtKind::Eval: {
        std::string v = scalar_or_tile(*s.value);
        w_.line("(void)" + v + ";");
        break;
      }
      case ir::StmtKind::AsmStmt: asm_stmt(s); break;
      case ir::StmtKind::DmaIssue: dma_issue(s); break;
      case ir::StmtKind::DmaRetire: dma_retire(s); break;
      case ir::StmtKind::SemSignal: {
        std::string state = "s";
        if (s.device) {
          // A remote signal reaches the same program on device `d`.
          state = "L.state(kdt_rt::checked_device(" + scalar(*s.device) + ", " + std::to_string(k_.devices) + ", " +
                  loc(s.device->range) + "), s.flat)";
        }
        if (options_.checks) {
          // The signaller's past happens before whatever its waiter does next.
          w_.open("{");
          w_.line("auto& sem_ = " + sem_ref(s.sem, state) + ";");
          w_.line("sem_.value += " + scalar(*s.amount) + ";");
          w_.line("kdt_rt::release(sem_, s.clock);");
          w_.close();
        } else {
          w_.line(sem_ref(s.sem, state) + ".value += " + scalar(*s.amount) + ";");
        }
        break;
      }
      case ir::StmtKind::SemWait: {
        std::string sem = sem_ref(s.sem);
        std::string amount = scalar(*s.amount);
        w_.open("{");
        w_.line("auto& sem_ = " + sem + ";");
        w_.line("const int64_t amount_ = " + amount + ";");
        w_.line("L.scheduler.wait_until(device, [&] { return sem_.value >= amount_; }, {\"sem_wait on `" +
                k_.sems[s.sem.sem].kd_name + "` (value \" + std::to_string(sem_.value) + \", needs \" + std::to_string(amount_) + \")\", " +
                loc(s.range) + ", s.flat});");
        w_.line("sem_.value -= amount_;");
        if (options_.checks) w_.line("kdt_rt::acquire(s.clock, sem_);");
        w_.close();
        break;
      }
      case ir::StmtKind::DmaStart:
      case ir::StmtKind::DmaWait:
        // Discharge turned these into DmaIssue/DmaRetire.
        break;
    }
  }

  // `else if` conditions may need statements of their own (hoisted
  // reductions, checked indices), so each lives inside the previous `else`.
  void if_chain(const std::vector<ir::IfClause>& clauses, size_t i) {
    w_.open("if (" + scalar(*clauses[i].cond) + ") {");
    block(clauses[i].body);
    if (i + 1 < clauses.size()) {
      w_.reopen("} else {");
      if (clauses[i + 1].cond) if_chain(clauses, i + 1);
      else block(clauses[i + 1].body);
    }
    w_.close();
  }

  // ----- DMAs at run time ---------------------------------------------------------
  void dma_issue(const ir::Stmt& s) {
    const ir::DmaSite& site = k_.dmas[s.dma_id];
    std::string d = fresh("dma");
    w_.line("auto " + d + " = std::make_shared<kdt_rt::DmaRecord>();");
    w_.line(d + "->site = " + std::to_string(s.dma_id) + ";");
    w_.line(d + "->bytes = " + std::to_string(site.bytes) + ";");
    w_.line(d + "->src_device = device;");
    if (s.device) {
      // A remote DMA: the destination view's indices are evaluated here, by the sender.
      w_.line(d + "->dst_device = kdt_rt::checked_device(" + scalar(*s.device) + ", " + std::to_string(k_.devices) + ", " +
              loc(s.device->range) + ");");
    } else {
      w_.line(d + "->dst_device = device;");
    }
    w_.line(d + "->program = s.flat;");
    w_.line(d + "->loc = " + loc(s.range) + ";");
    int capture = 0;
    for (const ir::View* v : {&*s.src, &*s.dst}) {
      const Shape& rs = k_.refs[v->ref].shape;
      for (size_t dim = 0; dim < v->dims.size(); ++dim) {
        const ir::ViewDim& vd = v->dims[dim];
        if (!vd.start) continue;
        std::string start = "static_cast<int64_t>(" + scalar(*vd.start) + ")";
        if (options_.checks) {
          start = "kdt_rt::checked_index(" + start + ", " + std::to_string(vd.size) + ", " + std::to_string(rs[dim]) + ", " +
                  loc(vd.start->range) + ", \"DMA " + (v == &*s.src ? "source" : "destination") + " index\")";
        }
        w_.line(d + "->starts[" + std::to_string(capture++) + "] = " + start + ";");
      }
    }
    std::string dst_state = s.device ? "L.state(" + d + "->dst_device, s.flat)" : "s";
    if (options_.checks) {
      // The element sets as boxes, from the captured starts.
      int slot = 0;
      for (const ir::View* v : {&*s.src, &*s.dst}) {
        std::vector<std::string> starts;
        for (const ir::ViewDim& vd : v->dims) {
          starts.push_back(vd.start ? d + "->starts[" + std::to_string(slot++) + "]" : std::to_string(vd.static_start));
        }
        w_.line(d + (v == &*s.src ? "->src_box = " : "->dst_box = ") + box_of(*v, starts) + ";");
      }
      w_.line(d + "->add = " + std::string(s.add ? "true" : "false") + ";");
      w_.line(d + "->src_shadow = &" + shadow_of(s.src->ref) + ";");
      w_.line(d + "->dst_shadow = &" + shadow_of(s.dst->ref, d + "->dst_device", dst_state) + ";");
      w_.line(d + "->dst_sem = &" + sem_ref(s.sem, dst_state) + ";");
      w_.line(d + "->has_src_sem = " + std::string(s.src_sem ? "true" : "false") + ";");
      w_.line("kdt_rt::claim_dma(" + d + ", s.clock);");
    }
    w_.line("if (options.eager_dma) " + k_.name + "_run_dma(L, *" + d + ");");
    w_.line(sem_ref(s.sem, dst_state) + ".in_flight.push_back(" + d + ");");
    // The source side of a remote DMA is retired by a wait on `src_sem`.
    if (s.src_sem) w_.line(sem_ref(*s.src_sem) + ".in_flight.push_back(" + d + ");");
  }

  void dma_retire(const ir::Stmt& s) {
    const std::string& name = k_.sems[s.sem.sem].kd_name;
    w_.open("{");
    w_.line("auto& sem_ = " + sem_ref(s.sem) + ";");
    w_.line("L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {\"dma_wait on `" + name +
            "` (no DMA in flight)\", " + loc(s.range) + ", s.flat});");
    w_.line("std::shared_ptr<kdt_rt::DmaRecord> d_ = sem_.in_flight.front();");
    w_.line("sem_.in_flight.pop_front();");
    if (options_.checks) {
      w_.open("if (d_->bytes != " + std::to_string(s.bytes) + ") {");
      w_.line("kdt_rt::RunError e_{\"dma-wait-mismatch\", \"this wait is for " + std::to_string(s.bytes) +
              " bytes, but the DMA it retires moves \" + std::to_string(d_->bytes) + \" bytes\", " + loc(s.range) +
              ", {{\"the DMA was started here\", d_->loc}}};");
      w_.line("throw kdt_rt::RunFailure{e_};");
      w_.close();
    }
    if (options_.checks) w_.line("kdt_rt::retire_claims(*d_, &sem_, s.clock);");
    // on_wait: the data moves now, at the first wait that retires the DMA.
    w_.line("if (!d_->landed) " + k_.name + "_run_dma(L, *d_);");
    w_.close();
  }

  // ----- asm blocks (through their fallback) ---------------------------------------
  void asm_stmt(const ir::Stmt& s) {
    const ir::AsmBlock& a = k_.asms[s.asm_id];
    int64_t n = count_of(a.shape);
    std::vector<std::string> outs;
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      std::string name = "asm" + std::to_string(s.asm_id) + "_" + a.output_names[i];
      outs.push_back(name);
      if (a.shape.empty()) w_.line(ctype(a.outputs[i].second) + " " + name + "{};");
      else w_.line("alignas(64) " + ctype(a.outputs[i].second) + " " + name + "[" + std::to_string(n) + "];");
    }
    asm_outputs_[s.asm_id] = outs;
    if (!a.fallback) return;
    LoopCtx ctx = flat_ctx(a.shape);
    std::vector<std::string> ins;
    for (const ir::ExprPtr& v : a.input_values) {
      prepare(*v);
    }
    open_loop(ctx);
    for (size_t i = 0; i < a.inputs.size(); ++i) {
      w_.line("const " + ctype(a.inputs[i].second) + " " + local_name(a.inputs[i].first) + " = " +
              elem(*a.input_values[i], ctx) + ";");
    }
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      w_.line(ctype(a.outputs[i].second) + " " + local_name(a.outputs[i].first) + "{};");
    }
    block(*a.fallback);
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      w_.line(outs[i] + (a.shape.empty() ? "" : "[" + ctx.flat + "]") + " = " + local_name(a.outputs[i].first) + ";");
    }
    close_loop(ctx);
  }

  // ----- element-wise evaluation -----------------------------------------------------
  LoopCtx flat_ctx(const Shape& shape) {
    LoopCtx ctx;
    ctx.shape = shape;
    std::string id = std::to_string(next_temp_++);
    for (size_t d = 0; d < shape.size(); ++d) ctx.index.push_back("i" + id + "_" + std::to_string(d));
    ctx.flat = shape.empty() ? "0" : "f" + id;
    return ctx;
  }

  // Nested loops over `ctx.shape` with a running flat index.
  void open_loop(const LoopCtx& ctx) {
    if (ctx.shape.empty()) {
      w_.open("{");
      return;
    }
    w_.open("{");
    w_.line("int64_t " + ctx.flat + " = 0;");
    w_.line("(void)" + ctx.flat + ";");
    for (size_t d = 0; d < ctx.shape.size(); ++d) {
      w_.open("for (int64_t " + ctx.index[d] + " = 0; " + ctx.index[d] + " < " + std::to_string(ctx.shape[d]) + "; ++" +
              ctx.index[d] + ") {");
    }
  }

  void close_loop(const LoopCtx& ctx) {
    if (ctx.shape.empty()) {
      w_.close();
      return;
    }
    w_.line("++" + ctx.flat + ";");
    for (size_t d = 0; d < ctx.shape.size(); ++d) w_.close();
    w_.close();
  }

  // Writes tile `value` into the array `name` of `shape`.
  void store_tile(const std::string& name, const Shape& shape, const Expr& value) {
    prepare(value);
    LoopCtx ctx = flat_ctx(shape);
    // Same-shape element-wise trees index with one flat counter: the
    // tightest loop, which the compiler vectorises.
    if (flat_friendly(value, shape)) {
      std::string i = ctx.flat;
      w_.open("for (int64_t " + i + " = 0; " + i + " < " + std::to_string(count_of(shape)) + "; ++" + i + ") {");
      LoopCtx flat = ctx;
      flat.index.clear();
      w_.line(name + "[" + i + "] = " + elem(value, flat) + ";");
      w_.close();
      return;
    }
    open_loop(ctx);
    w_.line(name + "[" + ctx.flat + "] = " + elem(value, ctx) + ";");
    close_loop(ctx);
  }

  // Whether every leaf of an element-wise tree has `shape` or is a scalar,
  // so that one flat index addresses all of them.
  bool flat_friendly(const Expr& e, const Shape& shape) {
    if (e.type.shape.empty()) return true;
    if (e.type.shape != shape) return false;
    switch (e.kind) {
      case ExprKind::Load: return !e.mask && e.view->is_whole(k_.refs[e.view->ref]);
      case ExprKind::Iota: return false;
      case ExprKind::Local:
      case ExprKind::Fill: return true;
      case ExprKind::Unary:
      case ExprKind::Binary:
      case ExprKind::Where:
      case ExprKind::Cast:
      case ExprKind::Math:
      case ExprKind::Broadcast:
      case ExprKind::PtxOp:
        for (const ir::ExprPtr& o : e.operands) {
          if (!flat_friendly(*o, shape)) return false;
        }
        return true;
      default: return materialized_.count(&e) > 0;
    }
  }

  // Scalar value of a rank-0 expression.
  std::string scalar(const Expr& e) {
    prepare(e);
    LoopCtx ctx;
    ctx.flat = "0";
    return elem(e, ctx);
  }

  std::string scalar_or_tile(const Expr& e) {
    if (e.type.shape.empty()) return scalar(e);
    return materialize(e);
  }

  // Materializes the parts of `e` that are not element-wise (reductions,
  // dot, transposes, ...) into temporaries before the element loop.
  void prepare(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Reduce:
      case ExprKind::Dot:
      case ExprKind::Transpose:
      case ExprKind::Reshape:
      case ExprKind::TileSlice:
        if (!materialized_.count(&e)) materialize(e);
        return;
      case ExprKind::Load:
        prepare_view(e);
        if (e.mask) prepare(*e.mask);
        if (e.other) prepare(*e.other);
        return;
      case ExprKind::Select:
      case ExprKind::Binary:
        if (emit::needs_lazy_operand(e, true)) {
          if (!materialized_.count(&e)) materialize_lazy(e);
          return;
        }
        for (const ir::ExprPtr& o : e.operands) prepare(*o);
        return;
      default:
        for (const ir::ExprPtr& o : e.operands) prepare(*o);
    }
  }

  // Evaluates a Select or a scalar `&&`/`||` with each lazy operand in its
  // own branch, into a temporary.
  std::string materialize_lazy(const Expr& e) {
    const Shape& shape = e.type.shape;
    std::string name = fresh("t");
    if (shape.empty()) w_.line(ctype(e.type.dtype) + " " + name + "{};");
    else w_.line("alignas(64) " + ctype(e.type.dtype) + " " + name + "[" + std::to_string(count_of(shape)) + "];");
    auto assign = [&](const Expr& value) {
      if (shape.empty()) w_.line(name + " = " + scalar(value) + ";");
      else store_tile(name, shape, value);
    };
    emit::write_lazy_branches(w_, e, name, [&](const Expr& x) { return scalar(x); }, assign);
    materialized_[&e] = name;
    return name;
  }

  // Dynamic starts of a load are evaluated (and checked) once, before the loop.
  void prepare_view(const Expr& e) {
    std::vector<std::string> starts = view_starts(*e.view, e.mask != nullptr);
    view_starts_[&e] = starts;
    if (options_.checks) {
      if (!e.mask) {
        w_.line("kdt_rt::check_access(" + shadow_of(e.view->ref) + ", " + box_of(*e.view, starts) + ", kdt_rt::Access::Read, s.clock, " +
                site(e.range) + ");");
      } else {
        masked_sites_[&e] = site(e.range);
      }
    }
  }

  static std::string dims_list(const Shape& shape) {
    std::string out;
    for (int64_t d : shape) out += (out.empty() ? "" : ", ") + std::to_string(d);
    return out;
  }

  // ----- shadows for the race and uninitialized-read checks ------------------
  int ref_params() const {
    int n = 0;
    for (const ir::Ref& r : k_.refs) n += r.is_param;
    return n;
  }

  // The shadow of a ref: parameters per device in the launch, scratch in
  // the program state.
  std::string shadow_of(int ref, const std::string& device = "device", const std::string& state = "s") const {
    const ir::Ref& r = k_.refs[ref];
    if (r.is_param) return "L.shadows[static_cast<size_t>(" + device + ") * " + std::to_string(ref_params()) + " + " +
                           std::to_string(ref) + "]";
    return state + "." + r.name + "_shadow_";
  }

  std::string box_of(const ir::View& v, const std::vector<std::string>& starts) const {
    std::string b = "kdt_rt::Box{" + std::to_string(v.dims.size()) + ", {";
    for (size_t d = 0; d < v.dims.size(); ++d) b += (d ? ", " : "") + starts[d];
    b += "}, {";
    for (size_t d = 0; d < v.dims.size(); ++d) b += (d ? ", " : "") + std::to_string(v.dims[d].dropped ? 1 : v.dims[d].size);
    return b + "}}";
  }

  // A persistent location object (the shadow keeps pointers to it).
  std::string site(SourceRange r) {
    std::string name = fresh("site");
    w_.line("[[maybe_unused]] static const kdt_rt::SourceLoc " + name + " = " + loc(r) + ";");
    return "&" + name;
  }

  // Evaluates the dynamic starts of a view into named temporaries (checked
  // against the ref unless the access is masked: masked-off elements may lie
  // outside the ref, so masked accesses check element by element instead).
  std::vector<std::string> view_starts(const ir::View& v, bool masked) {
    const Shape& rs = k_.refs[v.ref].shape;
    std::vector<std::string> starts;
    for (size_t d = 0; d < v.dims.size(); ++d) {
      const ir::ViewDim& dim = v.dims[d];
      if (!dim.start) {
        starts.push_back(std::to_string(dim.static_start));
        continue;
      }
      std::string name = fresh("start");
      std::string value = "static_cast<int64_t>(" + scalar(*dim.start) + ")";
      if (options_.checks && !masked) {
        value = "kdt_rt::checked_index(" + value + ", " + std::to_string(dim.size) + ", " + std::to_string(rs[d]) + ", " +
                loc(dim.start->range) + ", \"index\")";
      }
      w_.line("const int64_t " + name + " = " + value + ";");
      starts.push_back(name);
    }
    return starts;
  }

  // Offset of element (ctx) of a view with prepared starts.
  std::string view_elem_offset(const ir::View& v, const std::vector<std::string>& starts, const LoopCtx& ctx,
                               std::vector<std::string>* coords = nullptr) {
    const Shape& rs = k_.refs[v.ref].shape;
    std::vector<int64_t> st = strides_of(rs);
    Shape vshape = v.shape();
    size_t offset_dims = ctx.index.size() - std::min(ctx.index.size(), vshape.size());
    std::string out;
    size_t vd = 0;
    for (size_t d = 0; d < rs.size(); ++d) {
      const ir::ViewDim& dim = v.dims[d];
      std::string coord = starts[d];
      if (!dim.dropped) {
        std::string i = ctx.index.empty() ? "" : ctx.index[offset_dims + vd];
        if (vshape[vd] == 1 || i.empty()) i = "";
        if (!i.empty()) coord = coord == "0" ? i : coord + " + " + i;
        ++vd;
      }
      if (coords) coords->push_back(coord);
      if (coord == "0") continue;
      std::string term = st[d] == 1 ? "(" + coord + ")" : "(" + coord + ") * " + std::to_string(st[d]);
      out += out.empty() ? term : " + " + term;
    }
    if (ctx.index.empty() && !vshape.empty()) {
      // Flat loop over a whole ref: the flat index is the offset.
      return ctx.flat;
    }
    return out.empty() ? "0" : out;
  }

  std::string elem(const Expr& e, const LoopCtx& ctx) {
    if (auto it = materialized_.find(&e); it != materialized_.end()) return index_of(it->second, e.type.shape, ctx);
    std::string T = ctype(e.type.dtype);
    auto operand = [&](size_t i) { return elem(*e.operands[i], ctx); };
    switch (e.kind) {
      case ExprKind::Const: return const_literal(e);
      case ExprKind::Local: return index_of(local_name(e.local), e.type.shape, ctx);
      case ExprKind::ScalarParam: return "p." + k_.scalars[e.index].name;
      case ExprKind::ProgramId: return "static_cast<int32_t>(s.program[" + std::to_string(e.index) + "])";
      case ExprKind::DeviceId: return "static_cast<int32_t>(device)";
      case ExprKind::NumPrograms:
      case ExprKind::NumDevices: return "int32_t(1)";
      case ExprKind::Load: {
        const std::vector<std::string>& starts = view_starts_.at(&e);
        std::vector<std::string> coords;
        std::string offset = view_elem_offset(*e.view, starts, ctx, &coords);
        std::string access = ref_base(e.view->ref) + "[" + offset + "]";
        if (!e.mask) return access;
        std::string other = e.other ? elem(*e.other, ctx) : T + "{}";
        std::string mask = elem(*e.mask, ctx);
        if (!options_.checks) return "(" + mask + " ? " + access + " : " + other + ")";
        // Masked-on elements must lie inside the ref.
        std::string inside = in_bounds(*e.view, coords);
        std::string shadow_check = "kdt_rt::check_element(" + shadow_of(e.view->ref) + ", static_cast<size_t>(" + offset +
                                   "), kdt_rt::Access::Read, s.clock, " + masked_sites_.at(&e) + "), ";
        return "(" + mask + " ? ((" + inside + ") ? (" + shadow_check + access + ") : (kdt_rt::fail(\"out-of-bounds\", " +
               loc(e.range) + ", \"a masked-on element lies outside the ref\"), " + access + ")) : " + other + ")";
      }
      case ExprKind::Unary: {
        std::string a = operand(0);
        switch (e.unary) {
          case ir::UnaryOp::Neg: return "kdt_rt::op_neg(" + a + ")";
          case ir::UnaryOp::Not: return "(!" + a + ")";
          case ir::UnaryOp::BitNot: return "static_cast<" + T + ">(~" + a + ")";
        }
        return a;
      }
      case ExprKind::Binary: return binary(e, operand(0), operand(1));
      case ExprKind::Select:
      case ExprKind::Where: return "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")";
      case ExprKind::Cast:
        return "kdt_rt::convert<" + T + ">(" + operand(0) + ")";
      case ExprKind::Math:
        if (e.name == "maximum" || e.name == "minimum") return "kdt_rt::" + e.name + "(" + operand(0) + ", " + operand(1) + ")";
        return "kdt_rt::math::" + e.name + "(" + operand(0) + ")";
      case ExprKind::Fill: return operand(0);
      case ExprKind::Iota: {
        // The iota may be broadcast into the loop's shape (right-aligned):
        // its coordinate is the loop's along the same dimension, and 0 along
        // a dimension of size 1.
        size_t axis = static_cast<size_t>(e.index);
        std::string i;
        if (e.type.shape[axis] == 1) {
          i = "0";
        } else if (!ctx.index.empty()) {
          i = ctx.index[ctx.index.size() - e.type.shape.size() + axis];
        } else {
          const Shape& loop = ctx.shape.size() >= e.type.shape.size() ? ctx.shape : e.type.shape;
          size_t d = loop.size() - e.type.shape.size() + axis;
          std::vector<int64_t> st = strides_of(loop);
          i = "(" + ctx.flat + " / " + std::to_string(st[d]) + " % " + std::to_string(loop[d]) + ")";
        }
        return "kdt_rt::convert<" + T + ">(" + i + ")";
      }
      case ExprKind::Broadcast: return operand(0);
      // The counter is 64-bit; sem_read is an i32 (spec section 7).
      case ExprKind::SemRead: return "static_cast<int32_t>(" + sem_ref(*e.sem) + ".value)";
      case ExprKind::PtxOp: {
        std::string call = "kdt_rt::ptx::" + e.name + "(";
        for (size_t i = 0; i < e.operands.size(); ++i) call += (i ? ", " : "") + operand(i);
        return call + ")";
      }
      case ExprKind::AsmOutput: return index_of(asm_outputs_.at(e.asm_id)[e.index], e.type.shape, ctx);
      default: return index_of(materialize(e), e.type.shape, ctx);
    }
  }

  std::string in_bounds(const ir::View& v, const std::vector<std::string>& coords) {
    const Shape& rs = k_.refs[v.ref].shape;
    std::string out;
    for (size_t d = 0; d < rs.size(); ++d) {
      // A static range inside the ref needs no test; a masked view's static
      // slice may reach past it (the checker allows that).
      const ir::ViewDim& dim = v.dims[d];
      if (!dim.start && dim.static_start >= 0 && dim.static_start + dim.size <= rs[d]) continue;
      std::string c = "(" + coords[d] + ")";
      out += (out.empty() ? "" : " && ") + c + " >= 0 && " + c + " < " + std::to_string(rs[d]);
    }
    return out.empty() ? "true" : out;
  }

  std::string binary(const Expr& e, const std::string& a, const std::string& b) {
    DType t = e.operands[0]->type.dtype;
    std::string T = ctype(t);
    using Op = ir::BinaryOp;
    switch (e.binary) {
      case Op::Add: return "kdt_rt::op_add(" + a + ", " + b + ")";
      case Op::Sub: return "kdt_rt::op_sub(" + a + ", " + b + ")";
      case Op::Mul: return "kdt_rt::op_mul(" + a + ", " + b + ")";
      case Op::Div:
      case Op::Rem: {
        bool div = e.binary == Op::Div;
        if (is_float(t)) return std::string(div ? "kdt_rt::op_div(" : "kdt_rt::op_rem(") + a + ", " + b + ")";
        std::string d = options_.checks ? "kdt_rt::checked_divisor<" + T + ">(" + b + ", " + loc(e.range) + ")" : b;
        return std::string(div ? "kdt_rt::int_div<" : "kdt_rt::int_rem<") + T + ">(" + a + ", " + d + ")";
      }
      case Op::Shl: return "kdt_rt::shl<" + T + ">(" + a + ", " + b + ")";
      case Op::Shr: return "kdt_rt::shr<" + T + ">(" + a + ", " + b + ")";
      case Op::BitAnd: return "static_cast<" + T + ">(" + a + " & " + b + ")";
      case Op::BitXor: return "static_cast<" + T + ">(" + a + " ^ " + b + ")";
      case Op::BitOr: return "static_cast<" + T + ">(" + a + " | " + b + ")";
      case Op::And: return "(" + a + " && " + b + ")";
      case Op::Or: return "(" + a + " || " + b + ")";
      default: break;
    }
    static const char* const cmp[] = {"<", "<=", ">", ">=", "==", "!="};
    std::string op = cmp[static_cast<int>(e.binary) - static_cast<int>(Op::Lt)];
    if (t == DType::F16 || t == DType::BF16) {
      return "(kdt_rt::cmp_value(" + a + ") " + op + " kdt_rt::cmp_value(" + b + "))";
    }
    return "(" + a + " " + op + " " + b + ")";
  }

  // Computes `e` into a new temporary (array or scalar) and returns its name.
  std::string materialize(const Expr& e) {
    if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
    std::string T = ctype(e.type.dtype);
    std::string name = fresh("t");
    const Shape& shape = e.type.shape;
    int64_t n = count_of(shape);
    auto declare = [&]() {
      if (shape.empty()) w_.line(T + " " + name + "{};");
      else w_.line("alignas(64) " + T + " " + name + "[" + std::to_string(n) + "];");
    };
    switch (e.kind) {
      case ExprKind::Reduce: {
        const Expr& x = *e.operands[0];
        std::string src = materialize_array(x);
        const Shape& xs = x.type.shape;
        declare();
        bool sum = e.name == "sum";
        // f16/bf16 reductions accumulate in f32 (spec section 1).
        bool narrow = e.type.dtype == DType::F16 || e.type.dtype == DType::BF16;
        std::string acc_t = narrow ? "float" : T;
        auto value = [&](const std::string& v) { return narrow ? "kdt_rt::to_f32(" + v + ")" : v; };
        auto combine = [&](const std::string& acc, const std::string& v) {
          if (sum) return narrow ? acc + " + " + v : "kdt_rt::op_add(" + acc + ", " + v + ")";
          return std::string(e.name == "max" ? "kdt_rt::maximum(" : "kdt_rt::minimum(") + acc + ", " + v + ")";
        };
        auto finish = [&](const std::string& acc) {
          return narrow ? "kdt_rt::convert<" + T + ">(" + acc + ")" : acc;
        };
        if (e.index < 0) {
          std::string xs0 = xs.empty() ? src : src + "[0]";
          w_.open("{");
          // A sum starts from 0 and adds every element; max/min (and any
          // reduction of a rank-0 value) start from the first element.
          bool from_zero = sum && !xs.empty();
          w_.line(acc_t + " acc_ = " + (from_zero ? acc_t + "{}" : value(xs0)) + ";");
          if (!xs.empty()) {
            w_.line("for (int64_t j_ = " + std::string(sum ? "0" : "1") + "; j_ < " + std::to_string(count_of(xs)) +
                    "; ++j_) acc_ = " + combine("acc_", value(src + "[j_]")) + ";");
          }
          if (shape.empty()) w_.line(name + " = " + finish("acc_") + ";");
          else w_.line("for (int64_t j_ = 0; j_ < " + std::to_string(n) + "; ++j_) " + name + "[j_] = " + finish("acc_") + ";");
          w_.close();
        } else {
          size_t axis = static_cast<size_t>(e.index);
          int64_t outer = 1, inner = 1;
          for (size_t d = 0; d < axis; ++d) outer *= xs[d];
          for (size_t d = axis + 1; d < xs.size(); ++d) inner *= xs[d];
          int64_t len = xs[axis];
          std::string dst = shape.empty() ? name : name + "[o_ * " + std::to_string(inner) + " + in_]";
          w_.open("for (int64_t o_ = 0; o_ < " + std::to_string(outer) + "; ++o_) {");
          w_.open("for (int64_t in_ = 0; in_ < " + std::to_string(inner) + "; ++in_) {");
          std::string first = src + "[o_ * " + std::to_string(len * inner) + " + in_]";
          w_.line(acc_t + " acc_ = " + (sum ? acc_t + "{}" : value(first)) + ";");
          w_.line("for (int64_t r_ = " + std::string(sum ? "0" : "1") + "; r_ < " + std::to_string(len) + "; ++r_) acc_ = " +
                  combine("acc_", value(src + "[o_ * " + std::to_string(len * inner) + " + r_ * " + std::to_string(inner) + " + in_]")) + ";");
          w_.line(dst + " = " + finish("acc_") + ";");
          w_.close();
          w_.close();
        }
        break;
      }
      case ExprKind::Dot: {
        const Expr& a = *e.operands[0];
        const Expr& b = *e.operands[1];
        std::string ap = materialize_array(a), bp = materialize_array(b);
        int64_t M = a.type.shape[0], K = a.type.shape[1], N = b.type.shape[1];
        DType in = a.type.dtype;
        // The node's dtype is the accumulator: f32, f64, i32 or i64 (ir/lower.cpp).
        std::string acc_t = ctype(e.type.dtype);
        auto widen = [&](const std::string& v) {
          if (is_float(in) && in == e.type.dtype) return v;
          return "kdt_rt::convert<" + acc_t + ">(" + v + ")";
        };
        declare();
        // i-k-j order: the inner loop runs along rows of B and C, contiguous
        // and vectorisable; products and sums stay separate operations.
        w_.line("for (int64_t j_ = 0; j_ < " + std::to_string(M * N) + "; ++j_) " + name + "[j_] = " + acc_t + "{};");
        w_.open("for (int64_t i_ = 0; i_ < " + std::to_string(M) + "; ++i_) {");
        w_.open("for (int64_t k_ = 0; k_ < " + std::to_string(K) + "; ++k_) {");
        w_.line("const " + acc_t + " a_ = " + widen(ap + "[i_ * " + std::to_string(K) + " + k_]") + ";");
        w_.line(acc_t + "* c_ = " + name + " + i_ * " + std::to_string(N) + ";");
        w_.line("const auto* b_ = " + bp + " + k_ * " + std::to_string(N) + ";");
        w_.line("for (int64_t j_ = 0; j_ < " + std::to_string(N) + "; ++j_) c_[j_] = kdt_rt::op_add(c_[j_], kdt_rt::op_mul(a_, " +
                widen("b_[j_]") + "));");
        w_.close();
        w_.close();
        break;
      }
      case ExprKind::Transpose: {
        std::string src = materialize_array(*e.operands[0]);
        int64_t R = e.operands[0]->type.shape[0], C = e.operands[0]->type.shape[1];
        declare();
        w_.line("for (int64_t r_ = 0; r_ < " + std::to_string(R) + "; ++r_) for (int64_t c_ = 0; c_ < " + std::to_string(C) +
                "; ++c_) " + name + "[c_ * " + std::to_string(R) + " + r_] = " + src + "[r_ * " + std::to_string(C) + " + c_];");
        break;
      }
      case ExprKind::Reshape: {
        // Same elements in the same row-major order.
        std::string src = materialize_array(*e.operands[0]);
        materialized_[&e] = src;
        return src;
      }
      case ExprKind::TileSlice: {
        const Expr& x = *e.operands[0];
        std::string src = materialize_array(x);
        std::vector<int64_t> st = strides_of(x.type.shape);
        LoopCtx ctx = flat_ctx(shape);
        declare();
        open_loop(ctx);
        std::string offset;
        size_t vd = 0;
        for (size_t d = 0; d < e.tile_dims.size(); ++d) {
          const ir::ViewDim& dim = e.tile_dims[d];
          std::string coord = std::to_string(dim.static_start);
          if (!dim.dropped) coord += " + " + ctx.index[vd++];
          offset += (offset.empty() ? "" : " + ") + ("(" + coord + ") * " + std::to_string(st[d]));
        }
        w_.line((shape.empty() ? name : name + "[" + ctx.flat + "]") + " = " + src + "[" + (offset.empty() ? "0" : offset) + "];");
        close_loop(ctx);
        break;
      }
      default: {
        // An element-wise tree that must exist as an array.
        declare();
        if (shape.empty()) w_.line(name + " = " + scalar(e) + ";");
        else store_tile(name, shape, e);
        break;
      }
    }
    materialized_[&e] = name;
    return name;
  }

  // An array holding `e`'s elements in row-major order.
  std::string materialize_array(const Expr& e) {
    if (e.kind == ExprKind::Local) return local_name(e.local);
    if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
    if (e.kind == ExprKind::Reduce || e.kind == ExprKind::Dot || e.kind == ExprKind::Transpose ||
        e.kind == ExprKind::Reshape || e.kind == ExprKind::TileSlice) {
      return materialize(e);
    }
    std::string T = ctype(e.type.dtype);
    std::string name = fresh("t");
    if (e.type.shape.empty()) {
      w_.line(T + " " + name + " = " + scalar(e) + ";");
    } else {
      w_.line("alignas(64) " + T + " " + name + "[" + std::to_string(count_of(e.type.shape)) + "];");
      store_tile(name, e.type.shape, e);
    }
    materialized_[&e] = name;
    return name;
  }

  // ----- stores into views ---------------------------------------------------------------
  // `+=` and friends read what they write.
  static std::string access_kind(const ir::Stmt& s) {
    return s.store_op == ir::StoreOp::Assign ? "kdt_rt::Access::Write" : "kdt_rt::Access::Update";
  }

  void store_view(const ir::Stmt& s) {
    const ir::View& v = *s.view;
    Shape vshape = v.shape();
    // Evaluate the value first (it may read the destination).
    prepare(*s.value);
    if (s.mask) prepare(*s.mask);
    std::vector<std::string> starts = view_starts(v, s.mask != nullptr);
    std::string mask_site;
    if (options_.checks) {
      if (!s.mask) {
        w_.line("kdt_rt::check_access(" + shadow_of(v.ref) + ", " + box_of(v, starts) + ", " + access_kind(s) + ", s.clock, " +
                site(s.range) + ");");
      } else {
        mask_site = site(s.range);
      }
    }
    // A value that reads the destination must be computed in full before
    // any element is written.
    std::string value_array;
    if (!vshape.empty() && reads_ref(*s.value, v.ref) && !is_same_view_elementwise(*s.value, v)) {
      value_array = materialize_array(*s.value);
    }
    LoopCtx ctx = flat_ctx(vshape);
    bool flat = !s.mask && value_array.empty() && v.is_whole(k_.refs[v.ref]) && flat_friendly(*s.value, vshape);
    if (flat) {
      // The whole ref, element-wise: one flat, vectorisable loop.
      ctx.index.clear();
      w_.open("for (int64_t " + ctx.flat + " = 0; " + ctx.flat + " < " + std::to_string(count_of(vshape)) + "; ++" +
              ctx.flat + ") {");
    } else {
      open_loop(ctx);
    }
    std::vector<std::string> coords;
    std::string offset = view_elem_offset(v, starts, ctx, &coords);
    if (ctx.index.empty() && !vshape.empty()) offset = ctx.flat;
    std::string target = ref_base(v.ref) + "[" + offset + "]";
    std::string value = value_array.empty() ? elem(*s.value, ctx) : index_of(value_array, vshape, ctx);
    static const char* const ops[] = {"", "kdt_rt::op_add", "kdt_rt::op_sub", "kdt_rt::op_mul"};
    if (s.store_op != ir::StoreOp::Assign) value = std::string(ops[static_cast<int>(s.store_op)]) + "(" + target + ", " + value + ")";
    if (s.mask) {
      w_.open("if (" + elem(*s.mask, ctx) + ") {");
      if (options_.checks) {
        w_.line("if (!(" + in_bounds(v, coords) + ")) kdt_rt::fail(\"out-of-bounds\", " + loc(s.range) +
                ", \"a masked-on element lies outside the ref\");");
      }
      if (options_.checks) {
        w_.line("kdt_rt::check_element(" + shadow_of(v.ref) + ", static_cast<size_t>(" + offset + "), " + access_kind(s) +
                ", s.clock, " + mask_site + ");");
      }
      w_.line(target + " = " + value + ";");
      w_.close();
    } else {
      w_.line(target + " = " + value + ";");
    }
    if (flat) w_.close();
    else close_loop(ctx);
  }

  bool reads_ref(const Expr& e, int ref) {
    if (e.kind == ExprKind::Load && e.view->ref == ref) return true;
    for (const ir::ExprPtr& o : e.operands) {
      if (reads_ref(*o, ref)) return true;
    }
    return (e.mask && reads_ref(*e.mask, ref)) || (e.other && reads_ref(*e.other, ref));
  }

  // `r[v] = r[v] * 2` reads each element just before writing it: no copy needed.
  bool is_same_view_elementwise(const Expr& e, const ir::View& v) {
    if (e.kind == ExprKind::Load) return e.view->ref != v.ref || same_view(*e.view, v);
    if (e.kind == ExprKind::Reduce || e.kind == ExprKind::Dot || e.kind == ExprKind::Transpose ||
        e.kind == ExprKind::Reshape || e.kind == ExprKind::TileSlice) {
      return materialized_.count(&e) > 0;
    }
    for (const ir::ExprPtr& o : e.operands) {
      if (!is_same_view_elementwise(*o, v)) return false;
    }
    return true;
  }

  static bool same_view(const ir::View& a, const ir::View& b) {
    if (a.ref != b.ref) return false;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const ir::ViewDim& x = a.dims[d];
      const ir::ViewDim& y = b.dims[d];
      if (x.start || y.start || x.static_start != y.static_start || x.size != y.size || x.dropped != y.dropped) return false;
    }
    return true;
  }

  // ----- the launcher --------------------------------------------------------
  // With devices(N), N > 1, every ref parameter is an array of N pointers
  // (one per device); scalars are the same on every device.
  std::string signature() {
    bool multi = k_.devices > 1;
    std::string sig;
    for (auto [is_ref, i] : k_.params) {
      if (!sig.empty()) sig += ", ";
      if (is_ref) {
        const ir::Ref& r = k_.refs[i];
        sig += std::string(r.writable ? "" : "const ") + ctype(r.dtype) + (multi ? "* const* " : "* ") + r.name;
      } else {
        sig += ctype(k_.scalars[i].dtype) + " " + k_.scalars[i].name;
      }
    }
    return sig;
  }

  void emit_launcher() {
    int64_t programs = count_of(k_.grid);
    bool multi = k_.devices > 1;
    w_.line("// Runs kernel `" + k_.name + "` over its grid " + shape_string(k_.grid) +
            (multi ? " on " + std::to_string(k_.devices) + " simulated devices (one pointer per device for each ref)"
                   : std::string()) + ".");
    w_.line("// Returns 0, or 1 when a run-time check failed (described in *error).");
    w_.open("inline int " + k_.name + "(" + signature() + (signature().empty() ? "" : ", ") +
            "const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {");
    w_.line(k_.name + "_launch L;");
    w_.line("L.options = options;");
    w_.open("for (int device = 0; device < " + std::to_string(k_.devices) + "; ++device) {");
    std::string init;
    for (auto [is_ref, i] : k_.params) {
      std::string name = is_ref ? k_.refs[i].name : k_.scalars[i].name;
      init += (init.empty() ? "" : ", ") + name + (is_ref && multi ? "[device]" : "");
    }
    w_.line("L.params.push_back(" + k_.name + "_params{" + init + "});");
    if (options_.checks) {
      for (const ir::Ref& r : k_.refs) {
        if (!r.is_param) continue;
        w_.line("L.shadows.emplace_back();");
        w_.line("L.shadows.back().init(\"" + r.kd_name + "\", {" + dims_list(r.shape) + "}, " +
                (r.starts_uninitialized ? "true" : "false") + ", " + (r.writable ? "true" : "false") + ");");
      }
    }
    w_.close();
    w_.line("const std::vector<int64_t> order = kdt_rt::program_order(" + std::to_string(programs) + ", options);");
    w_.line("kdt_rt::RunError failure;");
    w_.open("bool ok = L.scheduler.run([&](int device) {");
    w_.open("for (int64_t flat : order) {");
    w_.line(k_.name + "_program(L, device, L.state(device, flat));");
    if (!multi) {
      w_.line("// One device: nothing can reach a finished program's state.");
      w_.line("L.states.erase(flat);");
    }
    w_.close();
    w_.close("}, failure);");
    if (options_.checks && multi) {
      w_.open("if (ok) {");
      w_.open("try {");
      w_.line(k_.name + "_launch_end_checks(L);");
      w_.reopen("} catch (const kdt_rt::RunFailure& f) {");
      w_.line("failure = f.error;");
      w_.line("ok = false;");
      w_.close();
      w_.close();
    }
    w_.open("if (!ok) {");
    w_.line("if (error) *error = failure;");
    w_.line("return 1;");
    w_.close();
    w_.line("return 0;");
    w_.close();
    w_.line();
  }

  const ir::Kernel& k_;
  const SourceManager& sources_;
  const CppEmitOptions& options_;
  emit::CodeWriter& w_;
  int next_temp_ = 0;
  std::map<const Expr*, std::string> materialized_;
  std::map<const Expr*, std::vector<std::string>> view_starts_;
  std::map<const Expr*, std::string> masked_sites_;
  std::map<int, std::vector<std::string>> asm_outputs_;
};

}  // namespace

std::string emit_cpp(const ir::Module& module, const SourceManager& sources, const CppEmitOptions& options) {
  emit::CodeWriter w(sources);
  w.line("// Generated by kdt " KDT_VERSION " from " + emit::CodeWriter::comment(options.input_name) + ". Do not edit.");
  w.line("// Build: c++ -std=c++17 -O2 -ffp-contract=off FILE.cpp" + std::string(options.harness ? " -o kernel" : " -c"));
  w.line("// Run-time checks: " + std::string(options.checks ? "on" : "off (--no-checks)") + ".");
  w.line("// The kdt runtime prelude (include/kdt/runtime) is embedded below.");
  w.line("#include <memory>");
  w.line("#include <cstring>");
  w.line("#include <chrono>");
  w.line("#include <limits>");
  w.line("#include <cstdint>");
  w.line("// KD never contracts a*b+c into an FMA. g++ in ISO mode (-std=c++17) does not");
  w.line("// contract by default; clang does, within a statement, unless told not to.");
  w.line("#if defined(__clang__)");
  w.line("#pragma STDC FP_CONTRACT OFF");
  w.line("#endif");
  w.set_line_directives(false);
  w.raw(kRuntimePrelude);
  w.line();
  w.line("// ===== kernels =====");
  w.line("namespace kdt_kernels {");
  w.line();
  w.set_line_directives(true);
  for (const ir::Kernel& k : module.kernels) KernelEmitter(k, sources, options, w).emit_all();
  w.line("}  // namespace kdt_kernels");
  if (options.harness && !module.kernels.empty()) {
    w.line();
    emit::emit_cpp_harness(module.kernels.front(), options, w);
  }
  return w.str();
}

}  // namespace kdt
