// One kernel's CUDA (the compiled path, issue 6): the emitter class that
// the files of the CUDA back end share. The mapping is in docs/cuda.md:
//   emit_cuda.cpp      the entry point, dtype spellings and literals;
//   cuda_kernel.cpp    shared-memory layout, the __global__ function, the
//                      launchers (one device, devices(N));
//   cuda_values.cpp    statements, block-stride element loops, values,
//                      reductions, dot, stores;
//   cuda_dma.cpp       DMAs (bulk copies, cp.async, cooperative, remote) and
//                      the semaphores other devices raise;
//   cuda_staging.cpp   remote DMAs into @shared: staging rings in the
//                      receiver's sync buffer, applied by its waits;
//   cuda_registers.cpp tile values held in registers;
//   cuda_asm.cpp       inline PTX.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "c_like_emitter.h"
#include "code_writer.h"
#include "kdt/diag/engine.h"
#include "kdt/source/dtype.h"
#include "kdt/emit/emit_cuda.h"
#include "kdt/ir/ir.h"
#include "kdt/runtime/cuda/kdt_cuda_limits.h"
#include "loop_shapes.h"

namespace kdt::cuda {

using emit::count_of;
using emit::index_of;
using emit::LoopCtx;
using ir::Expr;
using ir::ExprKind;

// The CUDA spelling of a dtype, and its size in bytes.
std::string ctype(DType t);
inline int64_t elem_size(DType t) { return dtype_bytes(t); }
// sm_90 -> 90.
int arch_number(const std::string& arch);
// A constant as a CUDA expression of its dtype (exact bits for floats).
std::string const_literal(const Expr& e);

// DMAs in flight per semaphore element, and the bytes of one mbarrier: the
// CUDA runtime's own constants (plain C++), so the layout cannot drift.
constexpr int64_t kQueue = kdt_cu::kQueue;
constexpr int64_t kMaxQueue = kdt_cu::kMaxQueue;
constexpr int64_t kMbarBytes = kdt_cu::kMbarBytes;
constexpr int64_t kMaxTx = (1 << 20) - 1;  // bytes one mbarrier phase can count

// The body of a kernel is written into its own buffer (the shared-memory
// layout it allocates is known only at its end): a base listed before
// CLikeEmitter, so that the writer exists when the base is given it.
struct CudaBody {
  explicit CudaBody(const SourceManager& sources) : body_(sources) {}
  emit::CodeWriter body_;
};

extern const emit::TargetSpelling kCudaSpelling;

class KernelEmitter : private CudaBody, public emit::CLikeEmitter {
 public:
  KernelEmitter(const ir::Kernel& k, const SourceManager& sources, const CudaEmitOptions& options,
                DiagnosticEngine& diags, emit::CodeWriter& out)
      : CudaBody(sources), CLikeEmitter(k, body_, kCudaSpelling), sources_(sources), options_(options), diags_(diags),
        out_(out), arch_(arch_number(options.arch)) {
    threads_ = k.threads ? *k.threads : options.threads;
    if (threads_ <= 0) threads_ = 128;
  }

  bool emit();

 private:
  // ----- shared-memory layout ---------------------------------------------------------
  int64_t alloc(int64_t bytes);
  std::string smem_ptr(DType t, int64_t off);
  // Scratch refs, mbarriers and the reduction buffer come first.
  void layout_state();
  bool use_bulk() const { return arch_ >= 90; }
  bool use_mbarriers() const { return arch_ >= 80; }
  bool multi_device() const { return k_.devices > 1; }
  // Issue 19, item 1: the in-flight queue of each local DMA semaphore holds
  // the most DMAs the program has in flight on one element (the static
  // analysis's bound, analysis/explorer.h), kQueue where none is known; a
  // bound over kMaxQueue is refused (invalid-declaration).
  bool size_queues();
  int64_t queue_cap(int sem) const { return queue_cap_.count(sem) ? queue_cap_.at(sem) : kQueue; }
  std::map<int, int64_t> queue_cap_;
  // Global refs written through the generic proxy (issue 19, item 5): a
  // bulk copy of them is preceded by fence.proxy.async.global.
  std::set<int> generic_global_writes_;
  // --devices=nvshmem (issue 20): the devices are NVSHMEM PEs (cuda_nvshmem.cpp).
  bool nvshmem() const { return options_.nvshmem && multi_device(); }
  // Signal, wait and read of a sync counter: through the peer table, or NVSHMEM's signal operations.
  // `device` is the target ("": this device).
  std::string signal_counter(const ir::SemRef& r, const std::string& device, const std::string& amount);
  std::string wait_counter(const ir::SemRef& r, const std::string& amount, const std::string& site);
  std::string read_counter(const ir::SemRef& r);
  // A remote copy (not add=true) as nvshmem_putmem_nbi per contiguous run.
  void put_runs(const ir::Stmt& s, const std::vector<std::string>& src_starts, const std::vector<std::string>& dst_starts,
                const std::string& device);
  // The multi-device launcher of --devices=nvshmem: this PE's grid, by nvshmemx_collective_launch.
  void emit_nvshmem_launcher();
  // `#ifndef __CUDACC_RTC__` and the constants of a devices(N) launcher (K_devices, K_threads, ...).
  void emit_multi_device_constants();
  // The shared-memory check and opt-in a single-device or NVSHMEM launcher starts with.
  void emit_shared_memory_opt_in();

  // devices(N) > 1: the semaphores another device may raise (every regular
  // one, and every DMA semaphore that is the destination semaphore of a
  // remote DMA) become 64-bit counters in the per-device sync buffer,
  // `sync_slots_` per program; the peers of every remote destination ref
  // go into the kernel's peer table.
  void layout_sync(const ir::Block& b);

  // ----- staging (cuda_staging.cpp) -------------------------------------------------------
  // devices(N) > 1, spec section 7: a remote DMA into `@shared` cannot
  // write a peer's shared memory, so every DMA on its destination semaphore
  // (a *staged* semaphore) lands in a ring of kQueue slots per (program,
  // semaphore element) in the receiver's sync buffer: the sender claims a
  // slot, writes the source packed with the DMA's site and destination
  // starts, publishes it and raises the counter; the receiver's wait takes
  // the oldest slot and copies (or adds) it into its own memory. False, with
  // `remote-shared`, where a staged semaphore also counts a DMA's source
  // reads (`src_sem=`): its waits could not tell the two apart.
  bool layout_staging();
  bool staged(int sem) const { return staging_.count(sem) != 0; }
  // The ring of semaphore element `r` of this program on `device` (this device when empty).
  std::string stage_ring(const ir::SemRef& r, const std::string& device = "");
  void staged_dma_start(const ir::Stmt& s, const std::string& device, const std::vector<std::string>& src_starts,
                        const std::vector<std::string>& dst_starts);
  // The lambda a staged semaphore's waits share; after the counter wait, a
  // wait takes the oldest slot and applies it.
  void emit_stage_apply(int sem);
  void staged_wait(const ir::Stmt& s);
  // Per staged semaphore: where its rings start in a program's staging
  // area, one slot's bytes, and its DMAs (their index is the site id).
  struct Staging {
    int64_t offset = 0, slot_bytes = 0, payload = 0;
    std::vector<const ir::Stmt*> dmas;
  };
  std::map<int, Staging> staging_;
  int64_t stage_bytes_ = 0;  // one program's staging area
  // The counters' part of a sync buffer (before the staging areas).
  int64_t counter_bytes() const { return (emit::count_of(k_.grid) * sync_slots_ * 8 + 15) / 16 * 16; }

  bool sync_sem(int sem) const { return sync_base_.count(sem) != 0; }
  // The counter of semaphore element `r` of this program on `device`
  // (this device when empty).
  std::string sync_counter(const ir::SemRef& r, const std::string& device = "");
  std::string ref_base(int ref) const;

  // ----- kernel and launcher ------------------------------------------------------------
  // The C type of a parameter: a device pointer for a ref, a value for a scalar.
  std::string param_type(bool is_ref, int i) const;
  std::string param_name(bool is_ref, int i) const { return is_ref ? names_.refs[i] : names_.scalars[i]; }

  // A name the emitter declares for this kernel (`K_kernel`, `K_blocks`,
  // `K_peers`, ...), as its launcher refers to it: qualified, so that a
  // parameter spelled the same does not hide it.
  std::string own(const char* suffix) const { return "kdt_kernels::" + names_.kernel + suffix; }
  // The kernel's parameters; devices(N) > 1 adds the peer table and the device id.
  std::string params_decl();
  // devices(N) > 1: what a device needs to reach its peers.
  void emit_peer_table();
  void emit_kernel();
  void emit_launcher();
  // devices(N) > 1: every parameter becomes an array indexed by device.
  // The launcher zeroes the sync buffers, makes every device's stream wait
  // until all of them are zero (a peer may signal at once), checks that the
  // grid can be co-resident and starts a cooperative launch per device.
  void emit_multi_device_launcher();
  void emit_body();

  // ----- statements -----------------------------------------------------------------------
  // Temporaries in shared memory live until the end of their block or statement.
  void block(const ir::Block& b) override;
  void stmt(const ir::Stmt& s) override;
  std::string sem_index(const ir::SemRef& r) {
    std::string row = r.index ? "(" + scalar(*r.index) + ")" : "0";
    const int64_t cols = k_.sems[r.sem].cols;
    if (!cols) return row;
    return "(" + row + " * " + std::to_string(cols) + " + " + (r.col ? "(" + scalar(*r.col) + ")" : "0") + ")";
  }
  void let(const ir::Stmt& s) override;
  void store_view(const ir::Stmt& s) override;
  void assert_stmt(const ir::Stmt& s) override;
  void eval(const ir::Stmt& s) override;
  void sem_signal(const ir::Stmt& s) override;
  void sem_wait(const ir::Stmt& s) override;
  void dma_wait(const ir::Stmt& s) override;
  void loop_variable(const std::string& v) override;

  // ----- element loops ------------------------------------------------------------------------
  // A block-stride loop: every element belongs to one thread. Barriers on
  // both sides order it against everything the block did before and after.
  void open_loop(const LoopCtx& ctx) override;
  void close_loop(const LoopCtx& ctx) override;
  void store_tile(const std::string& name, const Shape& shape, const Expr& value) override;
  void declare_indices(const LoopCtx& ctx);

  // ----- tile values in registers (cuda_registers.cpp) ---------------------------------------
  // Issue 19, item 10: a tile value every read of which is its own
  // element in a loop of its shape lives in a register array per thread.
  void plan_register_tiles();
  int64_t register_slots(const Shape& shape) const;
  bool reads_registers(const Expr& e) const;
  bool reads_shared_state(const Expr& e) const;
  std::string local_elem(const Expr& e, const LoopCtx& ctx) override;
  LoopCtx element_loop(const Shape& shape, const std::string& into, const std::vector<const Expr*>& values);
  std::set<int> register_tiles_;          // locals held in registers
  std::set<std::string> register_names_;  // and their names
  // Tiles to and from @global rows in 16-byte pieces (issue 19, item 10):
  // each emits the vector copy and opens the `else` of its run-time
  // alignment test, where the element loop goes (false: nothing emitted).
  bool open_vector_loop(const ir::View& v, const std::vector<std::string>& starts, const Shape& shape,
                        const std::string& tile, std::string* row);
  void close_vector_loop();
  std::vector<std::string> open_row_pieces(const Shape& shape, size_t tail, int64_t per_row);
  bool vector_load(const std::string& name, const Shape& shape, const Expr& value);
  bool vector_store(const ir::Stmt& s, const std::vector<std::string>& starts);
  // A shared-memory array (or, for rank 0, a register) holding `e`.
  std::string declare_temp(const Expr& e, const std::string& name) override;

  // ----- values -------------------------------------------------------------------------------
  std::string const_literal(const Expr& e) override { return cuda::const_literal(e); }
  std::string leaf(const Expr& e, const LoopCtx& ctx) override;
  void prepare_load(const Expr& e) override { view_starts_[&e] = view_starts(*e.view, false); }
  void prepare_sem_read(const Expr& e) override;
  std::string load(const Expr& e, const LoopCtx& ctx) override;
  // The GPU has no run-time checks.
  std::string checked_start(const std::string& value, const ir::View&, size_t, bool) override { return value; }
  std::string divisor(const Expr&, const std::string& b) override { return b; }
  std::string mesh_coordinate(const Expr&, size_t, const std::string& c) override { return c; }
  void reduce(const Expr& e, const std::string& name) override;
  void dot(const Expr& e, const std::string& name) override;
  int mma_step(DType in, DType acc) const;
  bool mma_applies(const Expr& e) const;
  bool wgmma_applies(const Expr& e) const;
  bool accumulate_dot(const std::string& target, const Expr& e) override;
  bool whole_shared_ref(const ir::View& v) const;
  std::string view_in_place(const Expr& e) override;
  // A block barrier, left out right after another (barrier_holds_at_).
  void barrier();
  void pointer_line(const std::string& text);
  bool readable_in_place(const Expr& e) const;
  void find_lets_in_place(const ir::Block& b);
  void emit_dot(const Expr& e, const DotOperands& d, const std::string& c, bool accumulate);
  void transpose(const Expr& e, const std::string& name) override;
  std::string reshape(const Expr& e, const std::string& name) override;
  void tile_slice(const Expr& e, const std::string& name) override;
  // `r[v] = r[v] * 2`: each element is read by the thread that writes it.
  bool same_elements(const Expr& e, const ir::View& v);

  // ----- DMAs ---------------------------------------------------------------------------------
  // The dtypes cp.reduce.async.bulk .add takes (i64 as .u64; f16/bf16 with .noftz).
  static bool bulk_add_dtype(DType t);
  // Whether every row of a DMA can move in `width`-byte pieces: the row
  // length and both views' outer strides are multiples of `width` bytes.
  bool rows_divisible(const ir::View& src, const ir::View& dst, size_t tail, int64_t row_bytes, int64_t width) const;
  // How a DMA is lowered: by the whole block (Coop), by one thread's bulk
  // copy or bulk reduce (sm_90), or by every thread's cp.async (sm_80+).
  enum class DmaRoute { Coop, G2S, S2G, S2GAdd, G2SAsync };
  DmaRoute bulk_route(const ir::Stmt& s) const;
  // The contiguous innermost dimensions a DMA's rows span, and their bytes.
  size_t dma_tail(const ir::Stmt& s, int64_t* row_bytes) const;
  // Issue 19, item 6: an add=true DMA into @global goes to the bulk reduce
  // engine (async proxy) or to atomics (generic proxy); the two must not
  // meet on the same elements in one launch. A ref takes the bulk reduce
  // only if every add=true DMA into it can, with a run-time alignment test
  // that gives the same answer for all of them (static offsets aligned to
  // 16 bytes, dynamic starts only where a step moves 16-byte multiples):
  // then it depends on the ref's base alone. Otherwise all go to atomics.
  bool bulk_add_eligible(const ir::Stmt& s) const;
  std::set<int> atomic_add_refs_;
  // Issue 19, item 9: a bulk DMA of several rows between a box of a global
  // parameter and a contiguous shared region goes through a tensor map (one
  // `cp.async.bulk.tensor` instead of one copy per row). A map per (ref,
  // box shape), encoded by the launcher (kdt_cuda_tensor.h).
  struct TensorMapUse {
    int ref;
    Shape box;  // per ref dimension, 1 where the view drops it
    bool add;   // a reduce-add's map (f32: flushing subnormals)
    bool operator==(const TensorMapUse& o) const { return ref == o.ref && box == o.box && add == o.add; }
  };
  static constexpr size_t kMaxTensorMaps = 8;  // 1 KiB of kernel parameters
  static constexpr const char* kTensorMapsSuffix = "_tensor_maps";  // the maps' struct: KERNEL_tensor_maps
  void plan_tensor_maps();
  std::vector<TensorMapUse> tensor_maps_;      // the kernel's map table, in order
  std::map<const ir::Stmt*, int> tensor_dma_;  // DMA -> its map's index
  // The thread-0 issue of a bulk DMA through its map; `smem` its shared side.
  void tensor_dma_issue(const ir::Stmt& s, int map, const std::vector<std::string>& global_starts, const std::string& smem,
                        const std::string& bar);
  void emit_tensor_maps_type();
  void emit_tensor_maps_encode();
  void dma_start(const ir::Stmt& s) override;
  // A remote DMA's source has been read: its `src_sem` completes now.
  // The cooperative path of a DMA: the whole block copies (or accumulates,
  // with atomics into @global) element by element into `dst_base`, then a barrier.
  void cooperative_copy(const ir::Stmt& s, const std::vector<std::string>& src_starts,
                        const std::vector<std::string>& dst_starts, const std::string& dst_base);
  // One element of DMA `s` landing: `dst = value`, or with `add=true` an
  // atomic add into @global (peers may add too) or a plain add into @shared.
  std::string copy_element(const ir::Stmt& s, const std::string& dst, const std::string& value);
  // The in-flight queue of DMA semaphore element `r` (semaphores no peer raises).
  std::string dma_queue(const ir::SemRef& r);
  // A C string literal "FILE:LINE:COL: WHAT" for the runtime's failures at `s`.
  std::string site(const ir::Stmt& s, const std::string& what) const;
  void source_read(const ir::Stmt& s);
  // Peers may add into the same @global memory: system scope then.
  std::string atomic_add() const { return multi_device() ? "kdt_cu::atomic_add<true>" : "kdt_cu::atomic_add"; }

  // devices(N) > 1, a DMA whose destination semaphore another device may
  // raise (a remote DMA, or a local one on such a semaphore): the block
  // copies through the destination device's peer pointer, then raises the
  // semaphore's counter there by the byte count (system-scope release).
  // The source has been read when the copy is done: `src_sem` completes at once.
  void device_dma_start(const ir::Stmt& s);

  // ----- inline PTX ---------------------------------------------------------------------------------
  static const char* constraint(DType t);
  static std::string carrier(DType t);
  static std::string to_carrier(DType t, const std::string& v);
  static std::string from_carrier(DType t, const std::string& v);
  // The template with `%name` renamed to `%N` (outputs first), as C string pieces.
  std::string asm_template(const ir::AsmBlock& a);
  void asm_stmt(const ir::Stmt& s) override;

  const SourceManager& sources_;
  const CudaEmitOptions& options_;
  DiagnosticEngine& diags_;
  emit::CodeWriter& out_;
  int arch_;
  int threads_ = 128;
  int64_t top_ = 0, peak_ = 0, red_off_ = 0;
  std::map<int, int64_t> ref_off_, bar_off_;
  std::map<int, int64_t> sync_base_;  // devices(N) > 1: semaphore -> first counter slot
  std::set<int> read_dma_sems_;       // DMA semaphores (queues) that sem_read reads
  // `q.unwaited += bytes` (or -=) when sem_read reads the queue's semaphore.
  void count_unwaited(int sem, const std::string& q, int64_t bytes, bool started);
  int64_t sync_slots_ = 0;           // counters per program
  std::set<int> peer_refs_;          // refs written by remote DMAs
  size_t barrier_holds_at_ = static_cast<size_t>(-1);  // w_'s line count right after the last barrier
  std::set<const ir::Stmt*> lets_in_place_;            // tile lets that name their elements in place
  std::string predeclared_;  // a `let`'s array that a reduction, dot, transpose or slice writes directly
};
}  // namespace kdt::cuda
