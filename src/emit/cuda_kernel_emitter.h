// One kernel's CUDA (the compiled path, issue 6): the emitter class that
// the files of the CUDA back end share. The mapping is in docs/cuda.md:
//   emit_cuda.cpp      the entry point, dtype spellings and literals;
//   cuda_kernel.cpp    shared-memory layout, the __global__ function, the
//                      launchers (one device, devices(N));
//   cuda_values.cpp    statements, block-stride element loops, values,
//                      reductions, dot, stores;
//   cuda_dma.cpp       DMAs (bulk copies, cp.async, cooperative, remote) and
//                      the semaphores other devices raise;
//   cuda_asm.cpp       inline PTX.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "code_writer.h"
#include "kdt/diag/engine.h"
#include "kdt/dtype.h"
#include "kdt/emit/emit_cuda.h"
#include "kdt/ir/ir.h"
#include "loop_shapes.h"

namespace kdt::cuda {

using emit::contiguous_tail;
using emit::count_of;
using emit::index_of;
using emit::LoopCtx;
using emit::strides_of;
using ir::Expr;
using ir::ExprKind;

// The CUDA spelling of a dtype, and its size in bytes.
std::string ctype(DType t);
inline int64_t elem_size(DType t) { return dtype_bytes(t); }
// sm_90 -> 90.
int arch_number(const std::string& arch);
// A constant as a CUDA expression of its dtype (exact bits for floats).
std::string const_literal(const Expr& e);

constexpr int64_t kQueue = 8;              // kdt_cu::kQueue: DMAs in flight per semaphore element
constexpr int64_t kMaxTx = (1 << 20) - 1;  // bytes one mbarrier phase can count

class KernelEmitter {
 public:
  KernelEmitter(const ir::Kernel& k, const SourceManager& sources, const CudaEmitOptions& options,
                DiagnosticEngine& diags, emit::CodeWriter& out)
      : k_(k), sources_(sources), options_(options), diags_(diags), out_(out), w_(sources),
        arch_(arch_number(options.arch)) {
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

  // devices(N) > 1: the semaphores another device may raise (every regular
  // one, and every DMA semaphore that is the destination semaphore of a
  // remote DMA) become 64-bit counters in the per-device sync buffer,
  // `sync_slots_` per program; the peers of every remote destination ref
  // go into the kernel's peer table.
  void layout_sync(const ir::Block& b);
  bool sync_sem(int sem) const { return sync_base_.count(sem) != 0; }
  // The counter of semaphore element `r` of this program on `device`
  // (this device when empty).
  std::string sync_counter(const ir::SemRef& r, const std::string& device = "");
  std::string ref_base(int ref) const;
  std::string local_name(int l) const { return k_.locals[l].name; }
  // Internal names end in `_` so that KD names keep their spelling.
  std::string fresh(const char* base) { return std::string(base) + std::to_string(next_temp_++) + "_"; }

  // ----- kernel and launcher ------------------------------------------------------------
  // The C type of a parameter: a device pointer for a ref, a value for a scalar.
  std::string param_type(bool is_ref, int i) const;
  std::string param_name(bool is_ref, int i) const { return is_ref ? k_.refs[i].name : k_.scalars[i].name; }

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
  void block(const ir::Block& b);
  std::string sem_index(const ir::SemRef& r) { return r.index ? "(" + scalar(*r.index) + ")" : "0"; }

  void stmt(const ir::Stmt& s);
  void if_chain(const std::vector<ir::IfClause>& clauses, size_t i);

  // ----- element loops ------------------------------------------------------------------------
  LoopCtx new_ctx(const Shape& shape);
  // A block-stride loop: every element belongs to one thread. Barriers on
  // both sides order it against everything the block did before and after.
  void open_loop(const LoopCtx& ctx);
  void close_loop();
  void store_tile(const std::string& name, const Shape& shape, const Expr& value);
  std::string scalar(const Expr& e);
  void prepare(const Expr& e);
  std::vector<std::string> view_starts(const ir::View& v);
  // Offset of the view element addressed by the trailing loop indices.
  std::string view_elem_offset(const ir::View& v, const std::vector<std::string>& starts,
                               const std::vector<std::string>& index);
  std::string elem(const Expr& e, const LoopCtx& ctx);
  std::string binary(const Expr& e, const std::string& a, const std::string& b);
  // A shared-memory array (or, for rank 0, a register) holding `e`.
  std::string declare_temp(const Expr& e, const std::string& name);
  std::string materialize(const Expr& e);
  std::string materialize_lazy(const Expr& e);
  std::string materialize_array(const Expr& e);
  bool reads_ref(const Expr& e, int ref);
  // `r[v] = r[v] * 2`: each element is read by the thread that writes it.
  bool same_elements(const Expr& e, const ir::View& v);
  static bool same_view(const ir::View& a, const ir::View& b);
  void store_view(const ir::Stmt& s);

  // ----- DMAs ---------------------------------------------------------------------------------
  // The dtypes cp.reduce.async.bulk .add takes (i64 as .u64; f16/bf16 with .noftz).
  static bool bulk_add_dtype(DType t);
  // Whether every row of a DMA can move in `width`-byte pieces: the row
  // length and both views' outer strides are multiples of `width` bytes.
  bool rows_divisible(const ir::View& src, const ir::View& dst, size_t tail, int64_t row_bytes, int64_t width) const;
  void dma_start(const ir::Stmt& s);
  // A remote DMA's source has been read: its `src_sem` completes now.
  // The cooperative path of a DMA: the whole block copies (or accumulates,
  // with atomics into @global) element by element into `dst_base`, then a barrier.
  void cooperative_copy(const ir::Stmt& s, const std::vector<std::string>& src_starts,
                        const std::vector<std::string>& dst_starts, const std::string& dst_base);
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
  void asm_stmt(const ir::Stmt& s);
  const ir::Kernel& k_;
  const SourceManager& sources_;
  const CudaEmitOptions& options_;
  DiagnosticEngine& diags_;
  emit::CodeWriter& out_;
  emit::CodeWriter w_;
  int arch_;
  int threads_ = 128;
  int64_t top_ = 0, peak_ = 0, red_off_ = 0;
  int next_temp_ = 0;
  std::map<int, int64_t> ref_off_, bar_off_;
  std::map<int, int64_t> sync_base_;  // devices(N) > 1: semaphore -> first counter slot
  int64_t sync_slots_ = 0;           // counters per program
  std::set<int> peer_refs_;          // refs written by remote DMAs
  std::map<const Expr*, std::string> materialized_;
  std::map<const Expr*, std::vector<std::string>> view_starts_;
  std::map<int, std::vector<std::string>> asm_outputs_;
};
}  // namespace kdt::cuda
