// One kernel's C++ (the interpretation path): the target the files of the
// C++ back end share, a CLikeEmitter with the C++ hooks. Each kernel becomes
//   - a struct of its parameters (one pointer per ref, scalars by value),
//   - the body of one program (`<kernel>_program`), with tiles as fixed-size
//     arrays and element-wise expressions fused into one tight loop,
//   - one copy routine per DMA site (memcpy for contiguous runs),
//   - a launcher that runs the grid (`<kernel>(...)`).
// The files:
//   emit_cpp.cpp      the entry point, dtype spellings and literals;
//   cpp_kernel.cpp    the parameter, program-state and launch structs, the
//                     program function, leak checks and the launcher;
//   cpp_values.cpp    element loops, checked loads, reductions, dot, stores;
//   cpp_dma.cpp       DMA copy routines, issue and retire, semaphores;
//   cpp_mpi.cpp       what --devices=mpi changes: the launch in an MPI
//                     window, arrivals of remote DMAs;
//   cpp_harness.cpp   the --harness main().
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "c_like_emitter.h"
#include "kdt/diag/diagnostic.h"
#include "kdt/emit/emit_cpp.h"

namespace kdt::cpp {

using emit::LoopCtx;
using ir::Expr;
using ir::ExprKind;

extern const emit::TargetSpelling kCppSpelling;
// A constant as a C++ expression of its dtype (exact bits for floats).
std::string const_literal(const Expr& e);

class CppKernelEmitter : public emit::CLikeEmitter {
 public:
  CppKernelEmitter(const ir::Kernel& k, const SourceManager& sources, const CppEmitOptions& options, emit::CodeWriter& w)
      : CLikeEmitter(k, w, kCppSpelling), sources_(sources), options_(options) {}

  void emit_all();

 private:
  // Every statement; in a kernel that polls (sem_read), each store, DMA,
  // signal and wait tells the scheduler that its device did something.
  void stmt(const ir::Stmt& s) override;
  bool polls_ = false;
  // No remote DMA or signal and no sem_read: the programs reach no other
  // device's, so with -j they run on several threads (kdt_parallel.h).
  bool independent_ = false;
  // Remote operations but no sem_read, built without run-time checks: with
  // -j the devices run at the same time, only their communication
  // serialised (DeviceScheduler::free_running), when free_condition() holds.
  bool free_running_ = false;
  std::string free_condition() const;
  // A launch on several threads that fails runs again on one (emit_rerun_wrapper).
  bool reruns() const { return independent_ || free_running_; }
  // A remote add=true DMA reads its source at the sender's src_sem wait
  // into a staging buffer and adds it at the receiver's wait, so that
  // additions into one element land in the receiver's order (cpp_dma.cpp).
  bool stages(int site) const;
  bool stages_any() const;
  enum class SiteRoutine { Move, Stage };
  void emit_dma_site(int id, SiteRoutine routine);
  // The lock a signal, DMA start or wait holds when devices run freely.
  void open_comm();
  // A started DMA onto semaphore `sem`'s list.
  void enqueue(const std::string& sem, const std::string& dma);
  // The scheduler's wait for `ready` (a C++ condition), blocked as `blocked`.
  std::string wait_until(const std::string& ready, const std::string& blocked);
  // --devices=mpi (issue 20): each device an MPI rank (cpp_mpi.cpp).
  bool mpi_ = false;
  std::set<int> remote_sites_;     // DMA sites started with `device=`
  std::set<int> remote_add_refs_;  // refs that remote add=true DMAs accumulate into
  // ----- the kernel's structs, program and launcher (cpp_kernel.cpp) -----------------
  // The emitted constant of a run-time diagnostic code (kdt_rt::Code::OutOfBounds):
  // the prelude's kdt_rt::Code has the registry's enumerators.
  static std::string run_code(DiagCode code);
  // A KD source location as a kdt_rt::SourceLoc literal.
  std::string loc(SourceRange r);
  // `r` inside expanded call `call` (-1: none).
  std::string loc(SourceRange r, int call);
  std::string call_site_name(int call) const;
  void emit_call_sites();
  void emit_params_struct();
  // The state of one launch: parameters per device and the program states
  // of every (device, program), made when first touched (a remote DMA or
  // signal may reach a program before it runs) and kept for the launch.
  void emit_launch_struct();
  // The launch struct's `init` of a program state (both launch structs).
  void emit_state_init();
  // Pointer expression of a ref: in the program `p.`/`s.`; in a DMA copy
  // routine `sp.`/`ss.` (source side) or `dp.`/`ds.` (destination side).
  std::string ref_base(int ref, const std::string& side = "") const;
  void emit_program();
  // Every DMA retired and every semaphore back at 0, in state `s`.
  // `when_text` names the moment inside the messages' string literals.
  void emit_leak_checks(const std::string& when_text);
  void emit_sem_leak_checks(const std::vector<int>& sems, const std::string& when_text, const std::string& at,
                            const std::string& note);
  // With devices(N), a remote DMA or signal may reach a program after it
  // ended: what is left in any program's semaphores when the launch ends
  // is a leak too (the receiver never waited).
  void emit_launch_end_checks();
  // With devices(N), N > 1, every ref parameter is an array of N pointers
  // (one per device); scalars are the same on every device.
  std::string signature();
  // The parameters' names, as the launcher passes them on.
  std::string arguments();
  void emit_launcher();
  // The launcher's parts: the launch state, running the programs, the
  // result; and, for an independent kernel, the rerun of a failed
  // parallel launch on one thread.
  void emit_launch_setup();
  // The shadows of one device's ref parameters (checks on), in the launch set-up.
  void emit_param_shadows();
  void emit_run_programs();
  void emit_launch_result();
  void emit_rerun_wrapper();
  std::string stack_need();
  static std::string dims_list(const Shape& shape);
  // A tile of the program function (on its device thread's stack, which
  // the launcher sizes for all of them: kdt_rt::StackNeed). `kd_name` names
  // it in the diagnostic when the tiles do not fit.
  void declare_tile(DType dtype, const std::string& name, int64_t count, SourceRange range,
                    const std::string& kd_name);
  uint64_t tile_bytes_ = 0;
  uint64_t largest_tile_bytes_ = 0;
  SourceRange largest_tile_range_;
  std::string largest_tile_name_;

  // ----- shadows for the race and uninitialized-read checks ------------------
  int ref_params() const;
  // The shadow of a ref: parameters per device in the launch, scratch in
  // the program state.
  std::string shadow_of(int ref, const std::string& device = "device", const std::string& state = "s") const;
  std::string box_of(const ir::View& v, const std::vector<std::string>& starts) const;
  // A persistent location object (the shadow keeps pointers to it).
  std::string site(SourceRange r);

  // ----- DMAs and semaphores (cpp_dma.cpp) ----------------------------------------------
  void emit_dma_sites();
  // Moves the data of a started DMA (at its start or at the wait that retires it).
  void emit_run_dma();
  // The element offset of a DMA copy step (ir::CopyPlan's coordinates).
  std::string copy_offset(const std::vector<ir::CopyCoord>& coords);
  std::string sem_ref(const ir::SemRef& r, const std::string& state = "s");
  void dma_issue(const ir::Stmt& s) override;
  void dma_retire(const ir::Stmt& s) override;
  void sem_signal(const ir::Stmt& s) override;
  void sem_wait(const ir::Stmt& s) override;
  // A regular semaphore's value (`sem` is the semaphore): read atomically
  // with --devices=mpi, where other ranks add to it.
  std::string counter(const std::string& sem) const;
  // How the DMA copy routine of `site` moves a run: memcpy and add_run, or
  // through the MPI window when the destination may be another rank's.
  std::string copy_run(int site, const std::string& dst, const std::string& src, const std::string& count,
                       const std::string& type) const;
  // The sender's side of a remote DMA: data now, then the arrival record.
  void mpi_send(const ir::Stmt& s, const std::string& dma, const std::string& dst_state);

  // ----- --devices=mpi (cpp_mpi.cpp) ---------------------------------------------
  void emit_mpi_launch_struct();
  // A remote DMA that reached this rank, onto its destination semaphore.
  void emit_mpi_arrival();
  // The window: the ref parameters (this rank's slice), then every program's state.
  void emit_mpi_launch_setup();
  // Each output's slice back to the caller, gathered on rank 0.
  void emit_mpi_outputs();
  std::map<int, std::string> dma_locs_;  // each DMA site's start, for its arrivals

  // ----- statements and values (cpp_values.cpp) ----------------------------------------------
  void let(const ir::Stmt& s) override;
  void store_view(const ir::Stmt& s) override;
  void assert_stmt(const ir::Stmt& s) override;
  void eval(const ir::Stmt& s) override;
  void asm_stmt(const ir::Stmt& s) override;
  void loop_variable(const std::string& v) override;
  // Nested loops over `ctx.shape` with a running flat index.
  void open_loop(const LoopCtx& ctx) override;
  void close_loop(const LoopCtx& ctx) override;
  void store_tile(const std::string& name, const Shape& shape, const Expr& value) override;
  std::string declare_temp(const Expr& e, const std::string& name) override;
  // Whether every leaf of an element-wise tree has `shape` or is a scalar,
  // so that one flat index addresses all of them.
  bool flat_friendly(const Expr& e, const Shape& shape);
  std::string scalar_or_tile(const Expr& e);
  std::string const_literal(const Expr& e) override { return cpp::const_literal(e); }
  std::string leaf(const Expr& e, const LoopCtx& ctx) override;
  // Dynamic starts of a load are evaluated (and checked) once, before the loop.
  void prepare_load(const Expr& e) override;
  void prepare_sem_read(const Expr& e) override;
  std::string load(const Expr& e, const LoopCtx& ctx) override;
  // Checked against the ref unless the access is masked: masked-off
  // elements may lie outside the ref, so masked accesses check element by
  // element instead.
  std::string checked_start(const std::string& value, const ir::View& v, size_t d, bool masked) override;
  std::string divisor(const Expr& e, const std::string& b) override;
  std::string mesh_coordinate(const Expr& e, size_t axis, const std::string& c) override;
  void scope_enter(const ir::Stmt& s) override;
  void scope_exit(const ir::Stmt& s) override;
  void block_begin(const ir::Stmt& s) override;
  void block_end(const ir::Stmt& s) override;
  void reduce(const Expr& e, const std::string& name) override;
  void dot(const Expr& e, const std::string& name) override;
  void transpose(const Expr& e, const std::string& name) override;
  std::string reshape(const Expr& e, const std::string& name) override;
  void tile_slice(const Expr& e, const std::string& name) override;
  std::string in_bounds(const ir::View& v, const std::vector<std::string>& coords);
  // `+=` and friends read what they write.
  static std::string access_kind(const ir::Stmt& s);
  // `r[v] = r[v] * 2` reads each element just before writing it: no copy needed.
  bool same_elements(const Expr& e, const ir::View& v);

  const SourceManager& sources_;
  const CppEmitOptions& options_;
  std::map<const Expr*, std::string> masked_sites_;
};

}  // namespace kdt::cpp
