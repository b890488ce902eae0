// What --devices=mpi changes in a kernel's C++ (issue 20; kdt_mpi.h has
// the runtime): the launch keeps this rank's ref parameters and every
// program's state in its MPI window, so that another rank reaches them at
// the same displacement; a remote DMA sends its data and an arrival record;
// each output is gathered on rank 0.
#include "cpp_kernel_emitter.h"

namespace kdt::cpp {

using emit::count_of;

// The launch struct: `params` holds this rank's parameters once per device,
// since a remote copy of anything has the local copy's layout; `state()`
// is the program's state in the window, the same object on every rank.
void CppKernelEmitter::emit_mpi_launch_struct() {
  std::string n = names_.kernel;
  std::string state = n + "_program_state";
  w_.open("struct " + n + "_launch {");
  w_.line("std::vector<" + n + "_params> params;  // this rank's, once per device: each rank's have this layout");
  if (options_.checks) w_.line("std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device (this rank's are used)");
  w_.line("kdt_rt::RunOptions options;");
  w_.line("kdt_rt::MpiScheduler scheduler{" + std::to_string(k_.devices) + "};");
  w_.line("char* states = nullptr;  // every program's state, in the window (kdt_mpi.h)");
  w_.line("// Program `flat`'s state; device `device`'s copy is at the same displacement of its window.");
  w_.open(state + "& state(int device, int64_t flat) {");
  w_.line("(void)device;");
  w_.line("return reinterpret_cast<" + state + "*>(states)[flat];");
  w_.close();
  w_.open("~" + n + "_launch() {");
  w_.line("if (!states) return;");
  w_.line("for (int64_t flat = 0; flat < " + std::to_string(count_of(k_.grid)) + "; ++flat) state(0, flat).~" + state + "();");
  w_.close();
  emit_state_init();
  w_.close("};");
  w_.line();
}

// The sender's side of a DMA started with `device=`: to this rank, the
// simulated devices' record; to another, the data moves now (MPI_Put or
// MPI_Accumulate, complete before the record) and the record follows.
void CppKernelEmitter::mpi_send(const ir::Stmt& s, const std::string& dma, const std::string& dst_state) {
  std::string sem = sem_ref(s.sem, dst_state);
  w_.open("if (" + dma + "->dst_device == device) {");
  w_.line("if (options.eager_dma) " + names_.kernel + "_run_dma(L, *" + dma + ");");
  w_.line(sem + ".in_flight.push_back(" + dma + ");");
  w_.reopen("} else {");
  w_.line(names_.kernel + "_run_dma(L, *" + dma + ");");
  w_.line("const int64_t sem_offset_ = reinterpret_cast<const char*>(&" + sem + ") - reinterpret_cast<const char*>(&" +
          dst_state + ");");
  w_.line("L.scheduler.arrive(" + dma + "->dst_device, kdt_rt::mpi_arrival(*" + dma + ", sem_offset_));");
  w_.close();
}

// A remote DMA's record, drained from this rank's inbox: landed already,
// on its destination semaphore's list until a wait retires it; its source
// is the sender's to retire.
void CppKernelEmitter::emit_mpi_arrival() {
  std::string n = names_.kernel;
  w_.line("// A remote DMA that reached this rank (kdt_mpi.h): on its destination semaphore's list, landed.");
  w_.open("[[maybe_unused]] static void " + n + "_arrival(" + n + "_launch& L, const kdt_rt::MpiArrival& a) {");
  w_.line("const int device = L.scheduler.rank();");
  w_.line(n + "_program_state& s = L.state(device, a.program);");
  w_.line("auto d = std::make_shared<kdt_rt::DmaRecord>();");
  w_.line("d->site = a.site;");
  w_.line("d->bytes = a.bytes;");
  w_.line("d->landed = true;");
  w_.line("d->src_device = a.src_device;");
  w_.line("d->dst_device = device;");
  w_.line("d->program = a.program;");
  w_.line("std::memcpy(d->starts, a.starts, sizeof d->starts);");
  w_.line("d->add = a.add != 0;");
  w_.line("d->dst_box = a.dst_box;");
  w_.line("d->has_src_sem = true;  // the sender retires the source side");
  w_.line("auto& sem_ = *reinterpret_cast<kdt_rt::DmaSemaphore*>(reinterpret_cast<char*>(&s) + a.sem_offset);");
  w_.line("d->dst_sem = &sem_;");
  w_.open("switch (a.site) {");
  for (int site : remote_sites_) {
    w_.open("case " + std::to_string(site) + ":");
    w_.line("d->loc = " + dma_locs_[site] + ";");
    if (options_.checks) w_.line("d->dst_shadow = &" + shadow_of(k_.dmas[site].dst.ref) + ";");
    w_.close("break;");
  }
  w_.line("default: break;");
  w_.close();
  if (options_.checks) w_.line("if (d->dst_shadow) kdt_rt::claim_arrival(d);");
  w_.line("sem_.in_flight.push_back(d);");
  w_.close();
  w_.line();
}

// The window holds each ref parameter (64-byte aligned; this rank's slice,
// copied in) and then every program's state, made before any rank runs.
void CppKernelEmitter::emit_mpi_launch_setup() {
  std::string n = names_.kernel;
  std::string state = n + "_program_state";
  bool multi = k_.devices > 1;
  w_.line(n + "_launch L;");
  w_.line("L.options = options;");
  w_.open("if (std::string why = L.scheduler.size_problem(); !why.empty()) {");
  w_.line("if (error) *error = kdt_rt::RunError{" + run_code(DiagCode::LimitExceeded) + ", why, {\"\", 0, 0, 0, 0}, {}};");
  w_.line("return 1;");
  w_.close();
  w_.line("const int rank = L.scheduler.rank();");
  std::string offsets;
  uint64_t at = 0;
  std::string init;
  std::vector<std::string> copies;
  for (auto [is_ref, i] : k_.params) {
    std::string name = is_ref ? names_.refs[i] : names_.scalars[i];
    if (!is_ref) {
      init += (init.empty() ? "" : ", ") + name;
      continue;
    }
    const ir::Ref& r = k_.refs[i];
    const uint64_t bytes = static_cast<uint64_t>(count_of(r.shape)) * dtype_bytes(r.dtype);
    std::string where = "window + " + std::to_string(at);
    init += (init.empty() ? "" : ", ") + std::string("reinterpret_cast<") + ctype(r.dtype) + "*>(" + where + ")";
    if (!r.starts_uninitialized) {
      copies.push_back("std::memcpy(" + where + ", " + name + (multi ? "[rank]" : "") + ", " + std::to_string(bytes) + ");");
    }
    at += (bytes + 63) / 64 * 64;
  }
  w_.line("// The window: the ref parameters, then the states of the " + std::to_string(count_of(k_.grid)) + " programs.");
  w_.line("char* window = L.scheduler.allocate(" + std::to_string(at) + " + sizeof(" + state + ") * " +
          std::to_string(count_of(k_.grid)) + ");");
  for (const std::string& c : copies) w_.line(c);
  w_.line("L.states = window + " + std::to_string(at) + ";");
  w_.open("for (int64_t flat = 0; flat < " + std::to_string(count_of(k_.grid)) + "; ++flat) {");
  w_.line("new (&L.state(rank, flat)) " + state + "();");
  w_.line(n + "_launch::init(L.state(rank, flat), rank, flat);");
  w_.close();
  w_.line("const " + n + "_params local{" + init + "};");
  w_.open("for (int device = 0; device < " + std::to_string(k_.devices) + "; ++device) {");
  w_.line("L.params.push_back(local);");
  emit_param_shadows();
  w_.close();
  w_.line("L.scheduler.on_arrival = [&L](const kdt_rt::MpiArrival& a) { " + n + "_arrival(L, a); };");
}

void CppKernelEmitter::emit_mpi_outputs() {
  bool multi = k_.devices > 1;
  w_.open("if (ok) {");
  for (auto [is_ref, i] : k_.params) {
    if (!is_ref || !k_.refs[i].is_output) continue;
    const ir::Ref& r = k_.refs[i];
    std::string bytes = std::to_string(static_cast<uint64_t>(count_of(r.shape)) * dtype_bytes(r.dtype));
    std::string mine = names_.refs[i] + (multi ? "[rank]" : "");
    w_.line("std::memcpy(" + mine + ", L.params[0]." + names_.refs[i] + ", " + bytes + ");");
    if (multi) w_.line("L.scheduler.gather(reinterpret_cast<void* const*>(" + names_.refs[i] + "), " + bytes + ");");
  }
  w_.close();
}

}  // namespace kdt::cpp
