// The C++ target's DMAs and semaphores: one copy routine per DMA site
// (the loops discharge planned, ir::CopyPlan), the records a start issues
// and a wait retires, signals and waits through the device scheduler.
#include "cpp_kernel_emitter.h"

namespace kdt::cpp {

using emit::count_of;

// ----- DMA copies -----------------------------------------------------------
void CppKernelEmitter::emit_dma_sites() {
  for (size_t id = 0; id < k_.dmas.size(); ++id) {
    const ir::DmaSite& d = k_.dmas[id];
    w_.line("// DMA #" + std::to_string(id) + ": " + (d.add ? "dst += src" : "dst = src") + " over " +
            std::to_string(d.bytes) + " bytes.");
    emit_dma_site(static_cast<int>(id), SiteRoutine::Move);
    if (!stages(static_cast<int>(id))) continue;
    w_.line("// DMA #" + std::to_string(id) + "'s source, read at the sender's src_sem wait: the addition lands at");
    w_.line("// the receiver's wait, in the order of its waits whichever device runs first.");
    emit_dma_site(static_cast<int>(id), SiteRoutine::Stage);
  }
}

bool CppKernelEmitter::stages(int site) const { return !mpi_ && k_.dmas[site].add && remote_sites_.count(site); }

// One DMA site's routine over the loops and runs discharge laid out
// (ir::CopyPlan): Move copies or adds the source's runs into the
// destination (a staged remote addition's from its staging buffer); Stage
// copies them, in the same order, into the staging buffer.
void CppKernelEmitter::emit_dma_site(int id, SiteRoutine routine) {
  const ir::DmaSite& d = k_.dmas[id];
  const bool staged = stages(id);
  const std::string name = names_.kernel + (routine == SiteRoutine::Move ? "_dma" : "_stage") + std::to_string(id);
  const std::string record = routine == SiteRoutine::Move ? "const kdt_rt::DmaRecord& d" : "kdt_rt::DmaRecord& d";
  w_.open("static void " + name + "(" + names_.kernel + "_launch& L, " + record + ") {");
  w_.line("const " + names_.kernel + "_params& sp = L.params[static_cast<size_t>(d.src_device)];");
  w_.line("const " + names_.kernel + "_params& dp = L.params[static_cast<size_t>(d.dst_device)];");
  if (independent_) {
    // Both sides are the issuing program's: no lookup (and no lock) in the launch's states.
    w_.line(names_.kernel + "_program_state& ss = *static_cast<" + names_.kernel + "_program_state*>(d.issuer);");
    w_.line(names_.kernel + "_program_state& ds = ss;");
  } else {
    w_.line(names_.kernel + "_program_state& ss = L.state(d.src_device, d.program);");
    w_.line(names_.kernel + "_program_state& ds = L.state(d.dst_device, d.program);");
  }
  w_.line("const int64_t* starts = d.starts;");
  w_.line("(void)sp, (void)dp, (void)ss, (void)ds, (void)starts;");
  if (independent_ && d.add && k_.refs[d.dst.ref].is_param) {
    w_.line("L.pool.wait_turn(d.dst_device, ss.position);  // additions land in the program order (kdt_parallel.h)");
  }
  const std::string type = ctype(d.dtype);
  const ir::CopyPlan& plan = d.copy;
  if (routine == SiteRoutine::Stage) {
    w_.line("d.staged.resize(" + std::to_string(d.bytes) + ");");
    w_.line(type + "* staged = reinterpret_cast<" + type + "*>(d.staged.data());");
  } else if (staged) {
    w_.line("const " + type + "* staged = d.staged.empty() ? nullptr : reinterpret_cast<const " + type +
            "*>(d.staged.data());");
  }
  if (staged) w_.line("int64_t at = 0;  // in the staging buffer");
  for (size_t i = 0; i < plan.loops.size(); ++i) {
    std::string v = "i" + std::to_string(i);
    w_.open("for (int64_t " + v + " = 0; " + v + " < " + std::to_string(plan.loops[i]) + "; ++" + v + ") {");
  }
  std::string src = ref_base(d.src.ref, "s") + " + " + copy_offset(plan.src);
  std::string dst = ref_base(d.dst.ref, "d") + " + " + copy_offset(plan.dst);
  const std::string chunk = std::to_string(plan.chunk);
  if (routine == SiteRoutine::Stage) {
    w_.line("std::memcpy(staged + at, " + src + ", " + chunk + " * sizeof(" + type + "));");
  } else {
    w_.line(copy_run(id, dst, staged ? "(staged ? staged + at : " + src + ")" : src, chunk, type));
  }
  if (staged) w_.line("at += " + chunk + ";");
  for (size_t i = 0; i < plan.loops.size(); ++i) w_.close();
  w_.close();
  w_.line();
}

std::string CppKernelEmitter::copy_run(int site, const std::string& dst, const std::string& src, const std::string& count,
                                       const std::string& type) const {
  const ir::DmaSite& d = k_.dmas[site];
  if (mpi_ && d.add && remote_add_refs_.count(d.dst.ref)) {
    // Atomic with the other ranks' additions into the same elements.
    return "L.scheduler.accumulate(d.dst_device, " + dst + ", " + src + ", int64_t{" + count + "});";
  }
  if (d.add && options_.flush_subnormal_adds && d.dtype == DType::F32 && k_.refs[d.dst.ref].space == MemSpace::Global) {
    return "kdt_rt::add_run_flushing(" + dst + ", " + src + ", int64_t{" + count + "});";
  }
  if (d.add) return "kdt_rt::add_run(" + dst + ", " + src + ", int64_t{" + count + "});";
  if (mpi_ && remote_sites_.count(site)) {
    return "L.scheduler.put(d.dst_device, " + dst + ", " + src + ", " + count + " * sizeof(" + type + "));";
  }
  return "std::memcpy(" + dst + ", " + src + ", " + count + " * sizeof(" + type + "));";
}

// Moves the data of a started DMA (at its start or at the wait that retires it).
void CppKernelEmitter::emit_run_dma() {
  w_.open("[[maybe_unused]] static void " + names_.kernel + "_run_dma(" + names_.kernel + "_launch& L, kdt_rt::DmaRecord& d) {");
  w_.line("(void)L;");
  w_.open("switch (d.site) {");
  for (size_t id = 0; id < k_.dmas.size(); ++id) {
    w_.line("case " + std::to_string(id) + ": " + names_.kernel + "_dma" + std::to_string(id) + "(L, d); break;");
  }
  w_.line("default: break;");
  w_.close();
  w_.line("d.landed = true;");
  w_.close();
  w_.line();
  if (!stages_any()) return;
  w_.line("// A src_sem wait retires a DMA not yet landed: it moves it, but a remote addition only has its");
  w_.line("// source read (staged), and lands at the receiver's wait.");
  w_.open("[[maybe_unused]] static void " + names_.kernel + "_source_wait(" + names_.kernel + "_launch& L, kdt_rt::DmaRecord& d) {");
  w_.open("switch (d.site) {");
  for (size_t id = 0; id < k_.dmas.size(); ++id) {
    if (stages(static_cast<int>(id))) {
      w_.line("case " + std::to_string(id) + ": " + names_.kernel + "_stage" + std::to_string(id) + "(L, d); break;");
    }
  }
  w_.line("default: " + names_.kernel + "_run_dma(L, d); break;");
  w_.close();
  w_.close();
  w_.line();
}

bool CppKernelEmitter::stages_any() const {
  for (size_t id = 0; id < k_.dmas.size(); ++id) {
    if (stages(static_cast<int>(id))) return true;
  }
  return false;
}

// The element offset of a copy step's coordinates: captured starts come
// from the record's `starts[...]`, loop indices are `i0`, `i1`, ...
std::string CppKernelEmitter::copy_offset(const std::vector<ir::CopyCoord>& coords) {
  std::string out;
  for (const ir::CopyCoord& c : coords) {
    std::string coord = c.capture >= 0 ? "starts[" + std::to_string(c.capture) + "]" : std::to_string(c.static_start);
    if (c.loop >= 0) {
      std::string i = "i" + std::to_string(c.loop);
      coord = coord == "0" ? i : coord + " + " + i;
    }
    if (coord == "0") continue;
    std::string term = c.stride == 1 ? "(" + coord + ")" : "(" + coord + ") * " + std::to_string(c.stride);
    out += out.empty() ? term : " + " + term;
  }
  return out.empty() ? "0" : out;
}

std::string CppKernelEmitter::sem_ref(const ir::SemRef& r, const std::string& state) {
  const ir::Semaphore& sem = k_.sems[r.sem];
  // A 2-D array is stored row-major; each of its indices is checked on its own.
  const int64_t rows = sem.cols ? sem.count / sem.cols : sem.count;
  auto checked = [&](const ir::Expr& e, int64_t length) {
    std::string v = scalar(e);
    if (!options_.checks) return v;
    return "kdt_rt::checked_index(" + v + ", 1, " + std::to_string(length) + ", " + loc(e.range) +
           ", \"semaphore index\")";
  };
  std::string index = r.index ? checked(*r.index, rows) : "0";
  if (sem.cols) index = "(" + index + ") * " + std::to_string(sem.cols) + " + " + (r.col ? checked(*r.col, sem.cols) : "0");
  return state + "." + names_.sems[r.sem] + "[" + index + "]";
}

// ----- DMAs at run time ---------------------------------------------------------
void CppKernelEmitter::dma_issue(const ir::Stmt& s) {
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
  if (independent_) w_.line(d + "->issuer = &s;");
  w_.line(d + "->loc = " + loc(s.range) + ";");
  dma_locs_[s.dma_id] = loc(s.range);
  int capture = 0;
  for (const ir::View* v : {&*s.src, &*s.dst}) {
    const Shape& rs = k_.refs[v->ref].shape;
    for (size_t dim = 0; dim < v->dims.size(); ++dim) {
      const ir::ViewDim& vd = v->dims[dim];
      if (!vd.start) continue;
      std::string start = "static_cast<int64_t>(" + scalar(*vd.start) + ")";
      if (options_.checks) {
        // A block spec's copy names the spec (its location is the spec's).
        std::string what = s.pipeline && k_.refs[v->ref].is_param
                               ? "block spec of `" + k_.refs[v->ref].kd_name + "`: the block at"
                               : std::string("DMA ") + (v == &*s.src ? "source" : "destination") + " index";
        start = "kdt_rt::checked_index(" + start + ", " + std::to_string(vd.size) + ", " + std::to_string(rs[dim]) + ", " +
                loc(vd.start->range) + ", \"" + emit::CodeWriter::escape(what) + "\")";
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
    if (s.pipeline) w_.line(d + "->copies_written = true;  // a block spec's copy: unwritten elements stay so");
    w_.line(d + "->src_shadow = &" + shadow_of(s.src->ref) + ";");
    std::string dst_shadow = "&" + shadow_of(s.dst->ref, d + "->dst_device", dst_state);
    // Another rank's destination is claimed there, when the DMA arrives.
    if (mpi_ && s.device) dst_shadow = d + "->dst_device == device ? " + dst_shadow + " : nullptr";
    w_.line(d + "->dst_shadow = " + dst_shadow + ";");
    w_.line(d + "->dst_sem = &" + sem_ref(s.sem, dst_state) + ";");
    w_.line(d + "->has_src_sem = " + std::string(s.src_sem ? "true" : "false") + ";");
    w_.line("kdt_rt::claim_dma(" + d + ", s.clock);");
  } else if (stages(s.dma_id)) {
    w_.line(d + "->dst_sem = &" + sem_ref(s.sem, dst_state) + ";  // its addition lands at a wait on it");
  }
  if (mpi_ && s.device) {
    mpi_send(s, d, dst_state);
    if (s.src_sem) w_.line(sem_ref(*s.src_sem) + ".in_flight.push_back(" + d + ");");
    return;
  }
  if (free_running_) {
    w_.open("{");
    open_comm();
  }
  w_.line("if (options.eager_dma) " + names_.kernel + "_run_dma(L, *" + d + ");");
  enqueue(sem_ref(s.sem, dst_state), d);
  // The source side of a remote DMA is retired by a wait on `src_sem`.
  if (s.src_sem) enqueue(sem_ref(*s.src_sem), d);
  if (free_running_) {
    if (s.device) w_.line("L.scheduler.raised(" + d + "->dst_device);");
    w_.close();
  }
}

void CppKernelEmitter::enqueue(const std::string& sem, const std::string& dma) {
  if (free_running_) {
    w_.line("kdt_rt::enqueue(L.scheduler, " + sem + ", " + dma + ");");
  } else {
    w_.line(sem + ".in_flight.push_back(" + dma + ");");
  }
}

void CppKernelEmitter::open_comm() {
  if (free_running_) w_.line("kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);");
}

std::string CppKernelEmitter::wait_until(const std::string& ready, const std::string& blocked) {
  return "L.scheduler.wait_until(device, [&] { return " + ready + "; }, " + blocked + (free_running_ ? ", comm_" : "") + ");";
}

void CppKernelEmitter::dma_retire(const ir::Stmt& s) {
  const std::string& name = k_.sems[s.sem.sem].kd_name;
  w_.open("{");
  open_comm();
  w_.line("auto& sem_ = " + sem_ref(s.sem) + ";");
  w_.line(wait_until("!sem_.in_flight.empty()",
                     "{\"dma_wait on `" + name + "` (no DMA in flight)\", " + loc(s.range) + ", s.flat}"));
  // --dma-order chooses the DMA retired (the oldest by default).
  w_.line("std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, " + std::to_string(s.bytes) +
          ", options);");
  if (options_.checks) {
    w_.open("if (d_->bytes != " + std::to_string(s.bytes) + ") {");
    w_.line("kdt_rt::RunError e_{" + run_code(DiagCode::DmaWaitMismatch) + ", \"this wait is for " + std::to_string(s.bytes) +
            " bytes, but the DMA it retires moves \" + std::to_string(d_->bytes) + \" bytes\", " + loc(s.range) +
            ", {{\"the DMA was started here\", d_->loc}}};");
    w_.line("throw kdt_rt::RunFailure{e_};");
    w_.close();
  }
  if (options_.checks) w_.line("kdt_rt::retire_claims(*d_, &sem_, s.clock);");
  // on_wait: the data moves now, at the first wait that retires the DMA
  // (a remote addition's at the receiver's: the sender's stages its source).
  if (stages_any()) {
    w_.open("if (!d_->landed) {");
    w_.line("if (&sem_ == d_->dst_sem) " + names_.kernel + "_run_dma(L, *d_);");
    w_.line("else " + names_.kernel + "_source_wait(L, *d_);");
    w_.close();
  } else {
    w_.line("if (!d_->landed) " + names_.kernel + "_run_dma(L, *d_);");
  }
  w_.close();
}

void CppKernelEmitter::sem_signal(const ir::Stmt& s) {
  // A remote signal reaches the same program on device `target`.
  const std::string target = s.device ? "kdt_rt::checked_device(" + scalar(*s.device) + ", " +
                                            std::to_string(k_.devices) + ", " + loc(s.device->range) + ")"
                                      : std::string();
  if (mpi_) {
    // An atomic add at the target rank's copy of the semaphore; the
    // happens-before clocks follow signals within this rank only.
    w_.open("{");
    w_.line("const int target_ = " + (s.device ? target : std::string("device")) + ";");
    w_.line("auto& sem_ = " + sem_ref(s.sem, "L.state(target_, s.flat)") + ";");
    w_.line("L.scheduler.add(target_, sem_.value, " + scalar(*s.amount) + ");");
    if (options_.checks) w_.line("if (target_ == device) kdt_rt::release(sem_, s.clock);");
    w_.close();
    return;
  }
  const std::string state = s.device ? "L.state(" + target + ", s.flat)" : "s";
  if (free_running_) {
    w_.open("{");
    open_comm();
    if (s.device) {
      w_.line("const int target_ = " + target + ";");
      w_.line(sem_ref(s.sem, "L.state(target_, s.flat)") + ".value += " + scalar(*s.amount) + ";");
      w_.line("L.scheduler.raised(target_);");
    } else {
      w_.line(sem_ref(s.sem, state) + ".value += " + scalar(*s.amount) + ";");
    }
    w_.close();
    return;
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
}

void CppKernelEmitter::sem_wait(const ir::Stmt& s) {
  std::string sem = sem_ref(s.sem);
  std::string amount = scalar(*s.amount);
  w_.open("{");
  open_comm();
  w_.line("auto& sem_ = " + sem + ";");
  w_.line("const int64_t amount_ = " + amount + ";");
  w_.line(wait_until(counter("sem_") + " >= amount_",
                     "{\"sem_wait on `" + k_.sems[s.sem.sem].kd_name + "` (value \" + std::to_string(" + counter("sem_") +
                         ") + \", needs \" + std::to_string(amount_) + \")\", " + loc(s.range) + ", s.flat}"));
  w_.line(mpi_ ? "L.scheduler.add(device, sem_.value, -amount_);" : "sem_.value -= amount_;");
  if (options_.checks) w_.line("kdt_rt::acquire(s.clock, sem_);");
  w_.close();
}

std::string CppKernelEmitter::counter(const std::string& sem) const {
  return mpi_ ? "L.scheduler.load(" + sem + ".value)" : sem + ".value";
}

}  // namespace kdt::cpp
