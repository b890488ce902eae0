#include "kdt/discharge/discharge.h"

#include <algorithm>

#include "ptx_translate.h"

namespace kdt {

namespace {

// The view's element set without its start expressions: the dynamic
// starts are captured when the DMA starts (see DmaSite).
ir::View capture_shape(const ir::View& v) {
  ir::View out;
  out.ref = v.ref;
  for (const ir::ViewDim& d : v.dims) {
    ir::ViewDim c;
    c.static_start = d.static_start;
    c.size = d.size;
    c.dropped = d.dropped;
    c.captured = d.start != nullptr;
    out.dims.push_back(std::move(c));
  }
  return out;
}

// The coordinates of a copy step in view `v` of a ref of `ref_shape`: the
// view's leading `loops` dimensions follow the copy loops; the captured
// starts are numbered on from `capture`.
std::vector<ir::CopyCoord> copy_coords(const ir::View& v, const Shape& ref_shape, size_t loops, int& capture) {
  std::vector<int64_t> strides = row_major_strides(ref_shape);
  std::vector<ir::CopyCoord> out;
  size_t view_dim = 0;
  for (size_t d = 0; d < v.dims.size(); ++d) {
    const ir::ViewDim& dim = v.dims[d];
    ir::CopyCoord c;
    c.stride = strides[d];
    if (dim.captured) c.capture = capture++;
    else c.static_start = dim.static_start;
    if (!dim.dropped) {
      if (view_dim < loops) c.loop = static_cast<int>(view_dim);
      ++view_dim;
    }
    out.push_back(c);
  }
  return out;
}

// A DMA's copy: loops over the leading dimensions, contiguous runs of the
// trailing ones that both views hold contiguously.
ir::CopyPlan plan_copy(const ir::Kernel& k, const ir::View& src, const ir::View& dst) {
  const Shape& src_ref = k.refs[src.ref].shape;
  const Shape& dst_ref = k.refs[dst.ref].shape;
  Shape shape = src.shape();
  size_t tail = std::min(src.contiguous_tail(src_ref), dst.contiguous_tail(dst_ref));
  size_t loops = shape.size() - tail;
  ir::CopyPlan plan;
  plan.loops.assign(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(loops));
  for (size_t i = loops; i < shape.size(); ++i) plan.chunk *= shape[i];
  int capture = 0;
  plan.src = copy_coords(src, src_ref, loops, capture);
  plan.dst = copy_coords(dst, dst_ref, loops, capture);
  return plan;
}

class Discharger {
 public:
  Discharger(ir::Kernel& k, DiagnosticEngine& diags) : k_(k), diags_(diags) {}

  bool run() {
    block(k_.body);
    for (ir::AsmBlock& a : k_.asms) {
      if (a.fallback) block(*a.fallback);
    }
    k_.discharged = true;
    return ok_;
  }

 private:
  void block(ir::Block& b) {
    for (ir::StmtPtr& s : b) stmt(*s);
  }

  void stmt(ir::Stmt& s) {
    switch (s.kind) {
      case ir::StmtKind::DmaStart: {
        // Every DMA start is one site whose copy runs at the start (eager)
        // or at the wait that retires it (on_wait); see the C++ runtime.
        ir::DmaSite site;
        site.src = capture_shape(*s.src);
        site.dst = capture_shape(*s.dst);
        site.add = s.add;
        site.bytes = s.bytes;
        site.dtype = k_.refs[s.src->ref].dtype;
        site.range = s.range;
        site.copy = plan_copy(k_, site.src, site.dst);
        s.dma_id = static_cast<int>(k_.dmas.size());
        k_.dmas.push_back(std::move(site));
        s.kind = ir::StmtKind::DmaIssue;
        break;
      }
      case ir::StmtKind::DmaWait:
        s.kind = ir::StmtKind::DmaRetire;
        break;
      case ir::StmtKind::AsmStmt: asm_stmt(s); break;
      case ir::StmtKind::For:
      case ir::StmtKind::While: block(s.body); break;
      case ir::StmtKind::If:
        for (ir::IfClause& c : s.clauses) block(c.body);
        break;
      default: break;
    }
  }

  void asm_stmt(ir::Stmt& s) {
    ir::AsmBlock& a = k_.asms[s.asm_id];
    if (a.fallback) return;
    // Without a fallback, translate the PTX itself when every instruction
    // belongs to the exact subset (docs/ptx.md); otherwise say which one
    // blocks, where in the template, and offer the fallback skeleton.
    ptx::TranslateResult t = ptx::translate_asm(k_, s.asm_id);
    if (t.ok) return;
    // The suggested fallback must not let the program run with made-up
    // outputs: it fails (`assert-failed`) where it runs until its author
    // replaces it. The assignments after the assert are never reached; they
    // only make the fallback complete (asm-fallback-incomplete).
    std::string skeleton = " fallback { assert(false, \"write this fallback in plain KD, or use --emit=cuda\");";
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      skeleton += " " + a.output_names[i] + " = " + (is_float(a.outputs[i].second) ? "0.0" : "0") + ";";
    }
    skeleton += " }";
    SourceRange end{a.range.file, a.range.end, a.range.end};
    std::string where = "template line " + std::to_string(t.pos.line) + ", column " + std::to_string(t.pos.column);
    diags_.report(DiagCode::UnsupportedDischarge, a.range,
                  "this asm block has no `fallback` and its PTX cannot be translated exactly: `" + t.instruction +
                      "` (" + where + "): " + t.reason)
        .note("add a `fallback { ... }` in plain KD that assigns every output, or use --emit=cuda; the "
              "suggested fallback stops the run with `assert-failed` until its body is written; docs/ptx.md "
              "lists the PTX subset kdt translates")
        .fixit(end, skeleton);
    ok_ = false;
  }

  ir::Kernel& k_;
  DiagnosticEngine& diags_;
  bool ok_ = true;
};

}  // namespace

bool discharge_module(ir::Module& module, DiagnosticEngine& diags) {
  bool ok = true;
  for (ir::Kernel& k : module.kernels) ok = Discharger(k, diags).run() && ok;
  return ok;
}

}  // namespace kdt
