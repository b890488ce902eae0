// The C++ target's kernel layout: the parameter, program-state and launch
// structs, the program function, the leak checks and the launcher.
#include "cpp_kernel_emitter.h"

namespace kdt::cpp {

using emit::count_of;

void CppKernelEmitter::emit_all() {
  ir::for_each_expr(k_, [&](const Expr& e) { polls_ = polls_ || e.kind == ExprKind::SemRead; });
  bool remote = false;
  ir::for_each_stmt(k_.body, [&](const ir::Stmt& s) { remote = remote || s.device; });
  for (const ir::Semaphore& sem : k_.sems) remote = remote || sem.peer_raised;
  mpi_ = options_.mpi;
  ir::for_each_stmt(k_.body, [&](const ir::Stmt& s) {
    if (s.kind != ir::StmtKind::DmaIssue || !s.device) return;
    remote_sites_.insert(s.dma_id);
    if (s.add) remote_add_refs_.insert(s.dst->ref);
  });
  independent_ = !polls_ && !remote && !mpi_;
  free_running_ = remote && !polls_ && !mpi_ && !options_.checks && k_.devices > 1;
  emit_params_struct();
  emit_call_sites();
  emit_dma_sites();
  emit_run_dma();
  emit_program();
  if (mpi_) emit_mpi_arrival();
  if (options_.checks && (k_.devices > 1 || mpi_) && !independent_) emit_launch_end_checks();
  emit_launcher();
}

void CppKernelEmitter::stmt(const ir::Stmt& s) {
  CLikeEmitter::stmt(s);
  if (!polls_) return;
  switch (s.kind) {
    case ir::StmtKind::Store:
    case ir::StmtKind::DmaIssue:
    case ir::StmtKind::DmaRetire:
    case ir::StmtKind::SemSignal:
    case ir::StmtKind::SemWait: w_.line("L.scheduler.note_effect(device);"); break;
    default: break;
  }
}

std::string CppKernelEmitter::run_code(DiagCode code) {
  switch (code) {
#define KDT_DIAG(id, name, severity, phase, summary) \
  case DiagCode::id: return "kdt_rt::Code::" #id;
#include "kdt/diag/diagnostics.def"
#undef KDT_DIAG
  }
  return "kdt_rt::Code::InternalError";
}

std::string CppKernelEmitter::loc(SourceRange r) { return loc(r, call_); }

std::string CppKernelEmitter::loc(SourceRange r, int call) {
  if (!r.valid()) return "kdt_rt::SourceLoc{\"\", 0, 0, 0, 0}";
  LineColumn lc = sources_.position(r.file, r.begin);
  return "kdt_rt::SourceLoc{\"" + emit::CodeWriter::escape(sources_.file(r.file).path) + "\", " +
         std::to_string(lc.line) + ", " + std::to_string(lc.column) + ", " + std::to_string(r.begin) + ", " +
         std::to_string(r.end) + (call >= 0 ? ", &" + call_site_name(call) : "") + "}";
}

std::string CppKernelEmitter::call_site_name(int call) const { return names_.kernel + "_call" + std::to_string(call); }

// The expanded function calls, outermost first: a run-time diagnostic
// inside one carries a note at each (kdt_rt::CallSite).
void CppKernelEmitter::emit_call_sites() {
  if (k_.calls.empty()) return;
  w_.line("// The calls of KD functions expanded in `" + names_.kernel + "`, for the notes of run-time diagnostics.");
  for (size_t i = 0; i < k_.calls.size(); ++i) {
    const ir::CallSite& c = k_.calls[i];
    w_.line("[[maybe_unused]] static const kdt_rt::CallSite " + call_site_name(static_cast<int>(i)) + " = {\"" +
            emit::CodeWriter::escape(c.function) + "\", " + loc(c.at, c.caller) + "};");
  }
  w_.line();
}

// ----- parameters -----------------------------------------------------------
void CppKernelEmitter::emit_params_struct() {
  w_.line("// Parameters of kernel `" + names_.kernel + "`: one pointer per ref (row-major), scalars by value.");
  w_.open("struct " + names_.kernel + "_params {");
  for (auto [is_ref, i] : k_.params) {
    if (is_ref) {
      const ir::Ref& r = k_.refs[i];
      w_.line(std::string(r.writable ? "" : "const ") + ctype(r.dtype) + "* " + names_.refs[i] + ";  // " +
              type_string(Type::ref(r.dtype, r.shape, r.space)) + (r.writable ? "" : ", in"));
    } else {
      w_.line(ctype(k_.scalars[i].dtype) + " " + names_.scalars[i] + ";");
    }
  }
  w_.close("};");
  w_.line();
  // Scratch and semaphores of one program.
  w_.line("// Scratch buffers and semaphores of one program (one instance per program).");
  w_.open("struct " + names_.kernel + "_program_state {");
  for (size_t i = 0; i < k_.refs.size(); ++i) {
    const ir::Ref& r = k_.refs[i];
    if (r.is_param) continue;
    w_.line("alignas(64) " + ctype(r.dtype) + " " + names_.refs[i] + "[" + std::to_string(count_of(r.shape)) + "];");
    if (options_.checks) w_.line("kdt_rt::RefShadow " + names_.refs[i] + "_shadow_;");
  }
  for (size_t i = 0; i < k_.sems.size(); ++i) {
    const ir::Semaphore& s = k_.sems[i];
    w_.line(std::string(s.kind == SemKind::Dma ? "kdt_rt::DmaSemaphore " : "kdt_rt::RegularSemaphore ") + names_.sems[i] + "[" +
            std::to_string(s.count) + "];");
  }
  if (options_.checks) w_.line("kdt_rt::ProgramClock clock;  // happens-before, for the cross-program race check");
  w_.line("int64_t program[" + std::to_string(k_.grid.size()) + "];  // program ids");
  w_.line("int64_t flat = 0;  // flattened program index");
  if (independent_) w_.line("int64_t position = 0;  // in the program order (add=true DMAs land in its order)");
  w_.close("};");
  w_.line();
  emit_launch_struct();
}

// The state of one launch: parameters per device and the program states.
// With remote DMAs or signals, every (device, program)'s, made when first
// touched (a peer may reach a program before it runs) and kept for the
// launch. In an independent launch, one per worker (a pool thread, or a
// device's thread), made new for each program it runs: nothing reaches a
// program's state but the program, and no program allocates one.
void CppKernelEmitter::emit_launch_struct() {
  if (mpi_) return emit_mpi_launch_struct();
  std::string n = names_.kernel;
  std::string state = n + "_program_state";
  w_.open("struct " + n + "_launch {");
  w_.line("std::vector<" + n + "_params> params;  // one set per device");
  if (options_.checks) w_.line("std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device");
  w_.line("kdt_rt::RunOptions options;");
  w_.line("kdt_rt::DeviceScheduler scheduler{" + std::to_string(k_.devices) + "};");
  if (independent_) {
    w_.line("kdt_rt::ProgramPool pool;  // -j (kdt_parallel.h)");
    w_.line("std::vector<std::unique_ptr<" + state + ">> worker_states;  // one per worker, sized before the launch");
    w_.open(state + "& state(int worker, int device, int64_t flat) {");
    w_.line("auto& slot = worker_states[static_cast<size_t>(worker)];");
    w_.open("if (!slot) {");
    w_.line("slot = std::make_unique<" + state + ">();");
    w_.reopen("} else {");
    w_.line("kdt_rt::renew(*slot);");
    w_.close();
    w_.line("init(*slot, device, flat);");
    w_.line("return *slot;");
    w_.close();
  } else {
    w_.line("// By device * programs + flat index; ordered, so that the launch-end checks are deterministic.");
    w_.line("std::map<int64_t, std::unique_ptr<" + state + ">> states;");
    if (free_running_) w_.line("std::mutex states_mutex;  // free-running devices look states up at the same time");
    w_.open(state + "& state(int device, int64_t flat) {");
    if (free_running_) w_.line("std::lock_guard<std::mutex> lock(states_mutex);");
    w_.line("auto& slot = states[int64_t{device} * " + std::to_string(count_of(k_.grid)) + " + flat];");
    w_.open("if (!slot) {");
    w_.line("slot = std::make_unique<" + state + ">();");
    w_.line("init(*slot, device, flat);");
    w_.close();
    w_.line("return *slot;");
    w_.close();
  }
  emit_state_init();
  w_.close("};");
  w_.line();
}

// The launch struct's `init`: a program state's index, ids and shadows.
void CppKernelEmitter::emit_state_init() {
  w_.open("static void init(" + names_.kernel + "_program_state& s, int device, int64_t flat) {");
  w_.line("(void)device;");
  w_.line("s.flat = flat;");
  if (options_.checks) w_.line("s.clock.init(device, flat, " + std::to_string(k_.devices) + ");");
  if (options_.checks) {
    for (size_t i = 0; i < k_.refs.size(); ++i) {
      const ir::Ref& r = k_.refs[i];
      if (!r.is_param) w_.line("s." + names_.refs[i] + "_shadow_.init(\"" + r.kd_name + "\", {" + dims_list(r.shape) + "}, true, false);");
    }
  }
  int64_t stride = 1;
  for (size_t d = k_.grid.size(); d-- > 0;) {
    w_.line("s.program[" + std::to_string(d) + "] = flat / " + std::to_string(stride) + " % " +
            std::to_string(k_.grid[d]) + ";");
    stride *= k_.grid[d];
  }
  w_.close();
}

// Pointer expression of a ref: in the program `p.`/`s.`; in a DMA copy
// routine `sp.`/`ss.` (source side) or `dp.`/`ds.` (destination side).
std::string CppKernelEmitter::ref_base(int ref, const std::string& side) const {
  const ir::Ref& r = k_.refs[ref];
  return (r.is_param ? side + "p." : side + "s.") + names_.refs[ref];
}

// ----- the program body ------------------------------------------------------
void CppKernelEmitter::emit_program() {
  w_.line("// One program of `" + names_.kernel + "`.");
  w_.open("static void " + names_.kernel + "_program(" + names_.kernel + "_launch& L, int device, " + names_.kernel +
          "_program_state& s) {");
  w_.line("const " + names_.kernel + "_params& p = L.params[static_cast<size_t>(device)];");
  w_.line("const kdt_rt::RunOptions& options = L.options;");
  w_.line("(void)p, (void)options;");
  block(k_.body);
  // The checks when the program ends belong to the kernel's closing brace,
  // where a debugger stops before the program returns, as in C.
  w_.source_line(emit::closing_brace(k_.range));
  if (options_.checks) emit_leak_checks("the program ends");
  w_.close();
  w_.restore({});  // then runtime glue: lines of the generated file
  w_.line();
}

// Every DMA retired and every semaphore back at 0, in state `s`.
// `when_text` names the moment inside the messages' string literals.
void CppKernelEmitter::emit_leak_checks(const std::string& when_text) {
  std::vector<int> all(k_.sems.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  emit_sem_leak_checks(all, when_text, loc(k_.range), "");
}

// The checks of `sems`; a regular semaphore's leak is reported at `at`,
// a DMA's at its start, with a note at `at` when `note` is given.
void CppKernelEmitter::emit_sem_leak_checks(const std::vector<int>& sems, const std::string& when_text,
                                            const std::string& at, const std::string& note) {
  for (int i : sems) {
    const ir::Semaphore& sem = k_.sems[i];
    const std::string& sem_name = names_.sems[i];
    std::string name = sem.is_array ? "`" + sem.kd_name + "[\" + std::to_string(k_) + \"]`" : "`" + sem.kd_name + "`";
    std::string sem_k = "s." + sem_name + "[k_]";
    w_.open("for (int64_t k_ = 0; k_ < " + std::to_string(sem.count) + "; ++k_) {");
    if (sem.kind == SemKind::Dma) {
      std::string message = "\"this DMA is never retired: " + when_text + " with it in flight on " + name + "\"";
      w_.open("if (!" + sem_k + ".in_flight.empty()) {");
      if (note.empty()) {
        w_.line("kdt_rt::fail(" + run_code(DiagCode::SemaphoreLeak) + ", " + sem_k + ".in_flight.front()->loc, " + message + ");");
      } else {
        w_.line("kdt_rt::RunError e_{" + run_code(DiagCode::SemaphoreLeak) + ", " + message + ", " + sem_k +
                ".in_flight.front()->loc, {{\"" + note + "\", " + at + "}}};");
        w_.line("throw kdt_rt::RunFailure{e_};");
      }
    } else {
      w_.open("if (" + counter(sem_k) + " != 0) {");
      w_.line("kdt_rt::fail(" + run_code(DiagCode::SemaphoreLeak) + ", " + at + ", \"semaphore " + name + " is \" + std::to_string(" +
              counter(sem_k) + ") + \" when " + when_text + "; it must be back at 0\");");
    }
    w_.close();
    w_.close();
  }
}

// ----- scoped declarations (section 17) ---------------------------------------
void CppKernelEmitter::scope_enter(const ir::Stmt& s) {
  if (!options_.checks) return;
  for (int r : s.scope_refs) w_.line("kdt_rt::enter_scope(" + shadow_of(r) + ", " + loc(s.range) + ");  // uninitialised at each entry");
}

// No DMA in flight on the block's semaphores or into or out of its
// scratch; its semaphores that no peer can raise back at 0 (a peer's
// signal for the next entry may already be there).
void CppKernelEmitter::scope_exit(const ir::Stmt& s) {
  if (!options_.checks) return;
  for (int r : s.scope_refs) w_.line("kdt_rt::check_scope_scratch(" + shadow_of(r) + ", " + loc(s.range) + ");");
  std::vector<int> checked;
  for (int i : s.scope_sems) {
    if (k_.sems[i].kind == SemKind::Dma || !k_.sems[i].peer_raised) checked.push_back(i);
  }
  emit_sem_leak_checks(checked, "its block ends", loc(s.range), "the block ends here");
}

// ----- block specs (section 13) ----------------------------------------------
void CppKernelEmitter::block_begin(const ir::Stmt& s) {
  if (!options_.checks) return;
  const ir::ViewDim& slot = s.view->dims[0];
  std::string at = slot.start ? scalar(*slot.start) : std::to_string(slot.static_start);
  w_.line("kdt_rt::forget_block(" + shadow_of(s.view->ref) + ", " + at + ");  // a new output block: uninitialised");
}

void CppKernelEmitter::block_end(const ir::Stmt& s) {
  if (!options_.checks) return;
  const ir::Semaphore& sems = k_.sems[s.scope_sems[0]];
  w_.line("kdt_rt::check_block_step(" + shadow_of(s.scope_refs[0]) + ", s." + names_.sems[s.scope_sems[0]] + ", " +
          std::to_string(sems.count) + ", \"" + emit::CodeWriter::escape(s.message) + "\", " + loc(s.range) + ");");
}

// With devices(N), a remote DMA or signal may reach a program after it
// ended: what is left in any program's semaphores when the launch ends
// is a leak too (the receiver never waited).
void CppKernelEmitter::emit_launch_end_checks() {
  int64_t programs = count_of(k_.grid);
  w_.line("// Semaphores of every program when the launch ends (remote DMAs and signals may arrive after a program ended).");
  w_.open("[[maybe_unused]] static void " + names_.kernel + "_launch_end_checks(" + names_.kernel + "_launch& L) {");
  if (mpi_) {
    // This rank's programs: each rank checks its own.
    w_.line("const int device = L.scheduler.rank();");
    w_.open("for (int64_t flat_ = 0; flat_ < " + std::to_string(programs) + "; ++flat_) {");
    w_.line(names_.kernel + "_program_state& s = L.state(device, flat_);");
    w_.line("const std::string when_ = \"the launch ends (device \" + std::to_string(device) + \", program \" + std::to_string(s.flat) + \")\";");
  } else {
    w_.open("for (const auto& [key_, state_] : L.states) {");
    w_.line(names_.kernel + "_program_state& s = *state_;");
    w_.line("const std::string when_ = \"the launch ends (device \" + std::to_string(key_ / " + std::to_string(programs) +
            ") + \", program \" + std::to_string(s.flat) + \")\";");
  }
  emit_leak_checks("\" + when_ + \"");
  w_.close();
  w_.close();
  w_.line();
}

// ----- the launcher --------------------------------------------------------
// With devices(N), N > 1, every ref parameter is an array of N pointers
// (one per device); scalars are the same on every device.
std::string CppKernelEmitter::signature() {
  bool multi = k_.devices > 1;
  std::string sig;
  for (auto [is_ref, i] : k_.params) {
    if (!sig.empty()) sig += ", ";
    if (is_ref) {
      const ir::Ref& r = k_.refs[i];
      sig += std::string(r.writable ? "" : "const ") + ctype(r.dtype) + (multi ? "* const* " : "* ") + names_.refs[i];
    } else {
      sig += ctype(k_.scalars[i].dtype) + " " + names_.scalars[i];
    }
  }
  return sig;
}

std::string CppKernelEmitter::arguments() {
  std::string args;
  for (auto [is_ref, i] : k_.params) args += (args.empty() ? "" : ", ") + (is_ref ? names_.refs[i] : names_.scalars[i]);
  return args;
}

void CppKernelEmitter::emit_launcher() {
  bool multi = k_.devices > 1;
  std::string sig = signature() + (signature().empty() ? "" : ", ");
  w_.line("// Runs kernel `" + names_.kernel + "` over its grid " + shape_string(k_.grid) +
          (mpi_     ? " on " + std::to_string(k_.devices) + " MPI ranks, this rank as its device (one pointer per device for each ref)"
           : multi ? " on " + std::to_string(k_.devices) + " simulated devices (one pointer per device for each ref)"
                   : std::string()) +
          (independent_ ? ", on options.jobs threads" : free_running_ ? ", options.jobs of them at once" : "") + ".");
  w_.line("// Returns 0, or 1 when a run-time check failed (described in *error).");
  if (reruns()) {
    w_.open("static int " + names_.kernel + "_run(" + sig + "const kdt_rt::RunOptions& options, kdt_rt::RunError* error) {");
  } else {
    w_.open("inline int " + names_.kernel + "(" + sig +
            "const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {");
  }
  emit_launch_setup();
  emit_run_programs();
  emit_launch_result();
  w_.close();
  w_.line();
  if (reruns()) emit_rerun_wrapper();
}

void CppKernelEmitter::emit_launch_setup() {
  if (mpi_) return emit_mpi_launch_setup();
  bool multi = k_.devices > 1;
  w_.line(names_.kernel + "_launch L;");
  w_.line("L.options = options;");
  w_.open("for (int device = 0; device < " + std::to_string(k_.devices) + "; ++device) {");
  std::string init;
  for (auto [is_ref, i] : k_.params) {
    std::string name = is_ref ? names_.refs[i] : names_.scalars[i];
    init += (init.empty() ? "" : ", ") + name + (is_ref && multi ? "[device]" : "");
  }
  w_.line("L.params.push_back(" + names_.kernel + "_params{" + init + "});");
  emit_param_shadows();
  w_.close();
}

// Inside the launch's loop over devices: the shadows of a device's ref parameters.
void CppKernelEmitter::emit_param_shadows() {
  if (!options_.checks) return;
  for (const ir::Ref& r : k_.refs) {
    if (!r.is_param) continue;
    w_.line("L.shadows.emplace_back();");
    w_.line("L.shadows.back().init(\"" + r.kd_name + "\", {" + dims_list(r.shape) + "}, " +
            (r.starts_uninitialized ? "true" : "false") + ", " + (r.writable ? "true" : "false") +
            (independent_ ? ", true" : "") + ");");
  }
}

std::string CppKernelEmitter::stack_need() {
  if (tile_bytes_ == 0) return "{}";
  return "kdt_rt::StackNeed{" + std::to_string(tile_bytes_) + ", " + loc(largest_tile_range_) + ", \"" +
         emit::CodeWriter::escape(largest_tile_name_) + "\"}";
}

void CppKernelEmitter::emit_run_programs() {
  std::string programs = std::to_string(count_of(k_.grid));
  w_.line("const std::vector<int64_t> order = kdt_rt::program_order(" + programs + ", options);");
  w_.line("kdt_rt::RunError failure;");
  if (independent_) {
    w_.line("L.worker_states.resize(static_cast<size_t>(kdt_rt::workers(options, " + std::to_string(k_.devices) + ")));");
    w_.line("// The program at `position` of the order on `device`, run by `worker`.");
    w_.open("auto program = [&](int worker, int device, int64_t position) {");
    w_.line(names_.kernel + "_program_state& s = L.state(worker, device, order[static_cast<size_t>(position)]);");
    w_.line("s.position = position;");
    w_.line(names_.kernel + "_program(L, device, s);");
    w_.close("};");
    w_.line("bool ok = kdt_rt::run_independent(L.scheduler, L.pool, " + std::to_string(k_.devices) + ", " + programs +
            ", options, program, failure, " + stack_need() + ");");
    return;
  }
  if (free_running_) w_.line("if (" + free_condition() + ") L.scheduler.free_running(options.jobs, kdt_rt::available_cores());");
  w_.open("bool ok = L.scheduler.run([&](int device) {");
  w_.open("for (int64_t flat : order) {");
  w_.line(names_.kernel + "_program(L, device, L.state(device, flat));");
  if (k_.devices == 1 && !mpi_) {
    w_.line("// One device: nothing can reach a finished program's state.");
    w_.line("L.states.erase(flat);");
  }
  w_.close();
  w_.close("}, failure" + (tile_bytes_ ? ", " + stack_need() : std::string()) + ");");
}

void CppKernelEmitter::emit_launch_result() {
  if (options_.checks && (k_.devices > 1 || mpi_) && !independent_) {
    w_.open("if (ok) {");
    w_.open("try {");
    w_.line(names_.kernel + "_launch_end_checks(L);");
    w_.reopen("} catch (const kdt_rt::RunFailure& f) {");
    w_.line("failure = f.error;");
    w_.line("ok = false;");
    w_.close();
    if (mpi_) w_.line("ok = L.scheduler.agree(ok);  // every rank's checks passed");
    w_.close();
  }
  if (mpi_) emit_mpi_outputs();
  w_.open("if (!ok) {");
  w_.line("if (error) *error = failure;");
  w_.line("return 1;");
  w_.close();
  w_.line("return 0;");
}

// Whether a launch that may run free does: with eager DMAs a remote
// addition lands when its sender starts it, in the order the senders come.
std::string CppKernelEmitter::free_condition() const {
  return std::string("kdt_rt::runs_free(options)") + (stages_any() ? " && !options.eager_dma" : "");
}

// A parallel or free-running launch that fails runs again on one thread
// from the inout parameters it started with, so that it reports what -j 1
// reports (kdt_parallel.h, kdt_scheduler.h).
void CppKernelEmitter::emit_rerun_wrapper() {
  std::string sig = signature() + (signature().empty() ? "" : ", ");
  std::string args = arguments() + (arguments().empty() ? "" : ", ");
  std::string run = names_.kernel + "_run(" + args;
  w_.line("// Runs kernel `" + names_.kernel + "`: on options.jobs threads, and when that fails, again on one thread");
  w_.line("// from the same inout parameters, so that a failure is reported as on one thread.");
  w_.open("inline int " + names_.kernel + "(" + sig +
          "const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {");
  const std::string parallel = free_running_ ? free_condition()
                                             : "kdt_rt::runs_parallel(options, " +
                                                   std::to_string(k_.devices * count_of(k_.grid)) + ")";
  w_.line("if (!" + parallel + ") return " + run + "options, error);");
  w_.line("kdt_rt::ParameterSnapshot inouts;");
  for (auto [is_ref, i] : k_.params) {
    const ir::Ref& r = k_.refs[i];
    if (!is_ref || !r.writable || r.starts_uninitialized) continue;
    std::string bytes = std::to_string(count_of(r.shape)) + " * sizeof(" + ctype(r.dtype) + ")";
    if (k_.devices > 1) {
      w_.line("for (int device = 0; device < " + std::to_string(k_.devices) + "; ++device) inouts.keep(" +
              names_.refs[i] + "[device], " + bytes + ");");
    } else {
      w_.line("inouts.keep(" + names_.refs[i] + ", " + bytes + ");");
    }
  }
  w_.line("if (" + run + "options, nullptr) == 0) return 0;");
  w_.line("inouts.restore();");
  w_.line("kdt_rt::RunOptions one_thread = options;");
  w_.line("one_thread.jobs = 1;");
  w_.line("return " + run + "one_thread, error);");
  w_.close();
  w_.line();
}

void CppKernelEmitter::declare_tile(DType dtype, const std::string& name, int64_t count, SourceRange range,
                                    const std::string& kd_name) {
  w_.line("alignas(64) " + ctype(dtype) + " " + name + "[" + std::to_string(count) + "];");
  // Each rounded up to its 64-byte alignment.
  const uint64_t bytes = (static_cast<uint64_t>(count) * dtype_bytes(dtype) + 63) / 64 * 64;
  tile_bytes_ += bytes;
  if (bytes > largest_tile_bytes_) {
    largest_tile_bytes_ = bytes;
    largest_tile_range_ = range;
    largest_tile_name_ = kd_name;
  }
}

std::string CppKernelEmitter::dims_list(const Shape& shape) {
  std::string out;
  for (int64_t d : shape) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

// ----- shadows for the race and uninitialized-read checks ------------------
int CppKernelEmitter::ref_params() const {
  int n = 0;
  for (const ir::Ref& r : k_.refs) n += r.is_param;
  return n;
}

// The shadow of a ref: parameters per device in the launch, scratch in
// the program state.
std::string CppKernelEmitter::shadow_of(int ref, const std::string& device, const std::string& state) const {
  const ir::Ref& r = k_.refs[ref];
  if (r.is_param) return "L.shadows[static_cast<size_t>(" + device + ") * " + std::to_string(ref_params()) + " + " +
                         std::to_string(ref) + "]";
  return state + "." + names_.refs[ref] + "_shadow_";
}

std::string CppKernelEmitter::box_of(const ir::View& v, const std::vector<std::string>& starts) const {
  std::string b = "kdt_rt::Box{" + std::to_string(v.dims.size()) + ", {";
  for (size_t d = 0; d < v.dims.size(); ++d) b += (d ? ", " : "") + starts[d];
  b += "}, {";
  for (size_t d = 0; d < v.dims.size(); ++d) b += (d ? ", " : "") + std::to_string(v.dims[d].dropped ? 1 : v.dims[d].size);
  return b + "}}";
}

// A persistent location object (the shadow keeps pointers to it).
std::string CppKernelEmitter::site(SourceRange r) {
  std::string name = fresh("site");
  w_.line("[[maybe_unused]] static const kdt_rt::SourceLoc " + name + " = " + loc(r) + ";");
  return "&" + name;
}

}  // namespace kdt::cpp
