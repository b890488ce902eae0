// check_dma_protocol: runs the path explorer on every kernel that has DMAs
// or semaphores and reports its certain errors as `dma-protocol`, with the
// path (iteration, step, branch) and notes at the statements involved.
#include "kdt/analysis/dma_protocol.h"

#include <string>

#include "explorer.h"

namespace kdt {

namespace {

using analysis::Finding;
using analysis::Problem;
using analysis::Site;

class Reporter {
 public:
  Reporter(const ir::Kernel& k, const SourceManager& sources, DiagnosticEngine& diags)
      : k_(k), sources_(sources), diags_(diags) {}

  void report(const Finding& f) {
    DiagnosticBuilder d = diags_.report(DiagCode::DmaProtocol, f.range, message(f) + path(f.at));
    calls(d, f.at);
    switch (f.problem) {
      case Problem::Leak:
        d.note("no `dma_wait` on `" + sem(f) + "` retires it before the program ends");
        if (f.at.ctx.empty() && f.at.stmt->call < 0) leak_fixit(d, f);
        break;
      case Problem::ScopeLeak:
      case Problem::RegularScopeLeak: d.note("the block ends here", f.other.stmt->range); break;
      case Problem::NothingToRetire:
        if (f.other.stmt) d.note("the last DMA on `" + sem(f) + "` was retired here" + path(f.other), f.other.stmt->range);
        break;
      case Problem::WaitMismatch: d.note("the DMA was started here" + path(f.other), f.other.stmt->range); break;
      case Problem::RegularBlocked:
        if (f.other.stmt) d.note("`" + sem(f) + "` was last signalled here" + path(f.other), f.other.stmt->range);
        break;
      case Problem::RegularLeak: break;
      case Problem::ReadInFlight:
      case Problem::WriteInFlight:
      case Problem::WriteSource:
      case Problem::DmaOverlap:
        d.note("the DMA was started here" + path(f.other) + " and is retired only by a `dma_wait` on `" + sem(f) + "`",
               f.other.stmt->range);
        break;
    }
  }

 private:
  std::string message(const Finding& f) const {
    const std::string s = "`" + sem(f) + "`";
    if (f.at.stmt->pipeline && (f.problem == Problem::DmaOverlap || f.problem == Problem::WriteSource)) {
      return "the block spec of `" + ref(f.ref) + "` copies a block into its buffer while an in-flight DMA " +
             (f.problem == Problem::WriteSource ? "reads" : "writes") + " that buffer, on every execution";
    }
    switch (f.problem) {
      case Problem::Leak:
        return "this DMA is never retired: on every execution the program ends with it in flight on " + s;
      case Problem::ScopeLeak:
        if (f.ref >= 0) {
          return "this DMA is never retired: on every execution the block that declares `" + ref(f.ref) +
                 "` ends with it in flight on " + s;
        }
        return "this DMA is never retired: on every execution the block that declares " + s +
               " ends with the DMA in flight on it";
      case Problem::RegularLeak:
        return s + " is signalled " + std::to_string(f.a) + " more time" + (f.a == 1 ? "" : "s") +
               " than it is waited: on every execution the program ends with it at " + std::to_string(f.a) + ", not 0";
      case Problem::RegularScopeLeak:
        return "on every execution the block that declares " + s + " ends with it at " + std::to_string(f.a) +
               ", not 0";
      case Problem::NothingToRetire:
        return "this wait has no DMA to retire: on every execution nothing is in flight on " + s +
               " here, and no other program or device can start one";
      case Problem::WaitMismatch:
        return "this wait is for " + std::to_string(f.a) + " bytes, but the DMA it retires (in `fifo` order) moves " +
               std::to_string(f.b) + " bytes";
      case Problem::RegularBlocked:
        return "this `sem_wait` never returns: on every execution " + s + " is at " + std::to_string(f.a) +
               " here, the wait needs " + std::to_string(f.b) + ", and no other program or device can raise it";
      case Problem::ReadInFlight:
        return "read of `" + ref(f.ref) + "` elements that an in-flight DMA is writing, on every execution";
      case Problem::WriteInFlight:
        return "write of `" + ref(f.ref) + "` elements that an in-flight DMA is writing, on every execution";
      case Problem::WriteSource:
        return "write of `" + ref(f.ref) + "` elements that an in-flight DMA is reading, on every execution";
      case Problem::DmaOverlap:
        return "this DMA writes `" + ref(f.ref) +
               "` elements that an in-flight DMA is writing (only two `add=true` DMAs may), on every execution";
    }
    return "";
  }

  std::string sem(const Finding& f) const {
    const ir::Semaphore& s = k_.sems[f.sem];
    if (!s.is_array) return s.kd_name;
    if (s.cols > 0) return s.kd_name + "[" + std::to_string(f.slot / s.cols) + ", " + std::to_string(f.slot % s.cols) + "]";
    return s.kd_name + "[" + std::to_string(f.slot) + "]";
  }

  std::string ref(int r) const {
    const ir::Ref& ref = k_.refs[r];
    return ref.block_of.empty() ? ref.kd_name : ref.block_of;
  }

  uint32_t line(SourceRange r) const { return sources_.position(r.file, r.begin).line; }

  // " (in step `k` = 2, iteration `i` = 0)": the decisions on the way.
  std::string path(const Site& site) const {
    std::string out;
    for (const analysis::Frame& f : site.ctx) {
      const ir::Stmt& s = *f.stmt;
      if (s.kind == ir::StmtKind::If && !written_if(s)) continue;
      out += out.empty() ? " (in " : ", ";
      if (s.kind == ir::StmtKind::For) {
        const bool steps = !k_.steps.empty() && is_top_level(s);
        const std::string& name = k_.locals[s.local].spelled();
        if (steps && k_.steps.size() > 1) out += "step " + std::to_string(f.value);
        else out += std::string(steps ? "step `" : "iteration `") + name + "` = " + std::to_string(f.value);
      } else if (written_if(s)) {
        const ir::IfClause& clause = s.clauses[static_cast<size_t>(f.value)];
        if (!clause.cond) out += "the `else` branch of the `if` at line " + std::to_string(line(s.range));
        else if (f.value == 0) out += "the `if` branch at line " + std::to_string(line(s.range));
        else out += "the `else if` branch at line " + std::to_string(line(clause.cond->range));
      }
    }
    return out.empty() ? out : out + ")";
  }

  // An `if` of the KD text, not one lowering made (a block-spec pipeline's,
  // a `?:`-chosen descriptor's), which the user would not recognise.
  bool written_if(const ir::Stmt& s) const {
    const std::string& text = sources_.file(s.range.file).text;
    return text.compare(s.range.begin, 2, "if") == 0;
  }

  bool is_top_level(const ir::Stmt& s) const {
    for (const ir::StmtPtr& t : k_.body) {
      if (t.get() == &s) return true;
    }
    return false;
  }

  // The calls a statement of an inlined function came through.
  void calls(DiagnosticBuilder& d, const Site& site) const {
    for (int c = site.stmt->call; c >= 0; c = k_.calls[c].caller) {
      d.note("in the call of `" + k_.calls[c].function + "` here", k_.calls[c].at);
    }
  }

  // The wait that retires a leaked DMA, inserted before the kernel's
  // closing brace (after every use), where the DMA is a statement of the
  // kernel body whose arguments can be read back from the source.
  void leak_fixit(DiagnosticBuilder& d, const Finding& f) const {
    const SourceRange r = f.range;
    const std::string& text = sources_.file(r.file).text;
    std::string call = text.substr(r.begin, r.end - r.begin);
    while (!call.empty() && (call.back() == ';' || call.back() == ' ')) call.pop_back();
    const std::string head = "dma_start(";
    if (call.compare(0, head.size(), head) != 0 || call.back() != ')') return;  // `let c = dma_start(...)` too
    std::vector<std::string> positional;
    std::string src_sem;
    int depth = 0;
    std::string arg;
    for (size_t i = head.size(); i + 1 <= call.size(); ++i) {
      const char c = i + 1 == call.size() ? ',' : call[i];
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') --depth;
      if (c == ',' && depth == 0) {
        const size_t b = arg.find_first_not_of(" \t\n"), e = arg.find_last_not_of(" \t\n");
        const std::string a = b == std::string::npos ? "" : arg.substr(b, e - b + 1);
        const size_t eq = a.find('=');
        if (eq == std::string::npos || a.compare(0, 2, "==") == 0) positional.push_back(a);
        else if (a.compare(0, eq, "src_sem") == 0) src_sem = a.substr(eq + 1);
        arg.clear();
      } else {
        arg += c;
      }
    }
    const bool receive = f.b != 0;
    std::string wait;
    if (positional.size() == 1) wait = std::string(receive ? "dma_wait_recv(" : "dma_wait_send(") + positional[0] + ")";
    else if (positional.size() == 3 && receive) wait = "dma_wait(" + positional[2] + ", " + positional[1] + ")";
    else if (positional.size() == 3 && !src_sem.empty()) wait = "dma_wait(" + src_sem + ", " + positional[0] + ")";
    else return;
    const uint32_t brace = k_.body_range.end - 1;
    if (k_.body_range.file != r.file || brace >= text.size() || text[brace] != '}') return;
    const size_t line_start = text.rfind('\n', brace) == std::string::npos ? 0 : text.rfind('\n', brace) + 1;
    const size_t dma_line = text.rfind('\n', r.begin) == std::string::npos ? 0 : text.rfind('\n', r.begin) + 1;
    const std::string indent = text.substr(dma_line, text.find_first_not_of(" \t", dma_line) - dma_line);
    if (text.find_first_not_of(" \t", line_start) == brace) {
      const uint32_t at = static_cast<uint32_t>(line_start);
      d.fixit(SourceRange{r.file, at, at}, indent + wait + ";\n");
    } else {
      d.fixit(SourceRange{r.file, brace, brace}, wait + "; ");
    }
  }

  const ir::Kernel& k_;
  const SourceManager& sources_;
  DiagnosticEngine& diags_;
};

bool has_protocol_ops(const ir::Kernel& k) {
  bool found = false;
  ir::for_each_stmt(k.body, [&](const ir::Stmt& s) {
    found = found || s.kind == ir::StmtKind::DmaStart || s.kind == ir::StmtKind::DmaWait ||
            s.kind == ir::StmtKind::SemSignal || s.kind == ir::StmtKind::SemWait;
  });
  return found;
}

}  // namespace

DmaProtocolStats check_dma_protocol(const ir::Module& module, const SourceManager& sources, DiagnosticEngine& diags) {
  DmaProtocolStats stats;
  for (const ir::Kernel& k : module.kernels) {
    ++stats.kernels;
    if (!has_protocol_ops(k)) continue;
    std::optional<std::vector<Finding>> findings = analysis::Explorer(k).run();
    if (!findings) {
      ++stats.gave_up;
      continue;
    }
    Reporter reporter(k, sources, diags);
    for (const Finding& f : *findings) reporter.report(f);
    stats.errors += findings->size();
  }
  return stats;
}

}  // namespace kdt
