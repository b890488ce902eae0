// The builder's state, shared by build_expr.cpp (typed expressions and
// views) and build_kernel.cpp (parameters, statements and the phases that
// make a kernel). Internal to the generator.
#pragma once
#include <deque>
#include <string>
#include <vector>

#include "builder.h"
#include "model.h"

namespace kdt::gen {

// How many of the generator's float values (short dyadic fractions, see
// Builder::init_data) one element may sum before the sum could round.
constexpr int64_t kExactFloatTerms = 24;

// What a @global parameter is for; it decides who may touch it.
enum class Role {
  Input,   // `in`: read by anyone, never written
  Block,   // `out`: program p writes only its own block; read back after written
  Acc,     // `inout`: only accumulating DMAs (from any program or device)
  Scratch, // @shared: read only once written
  Shared,  // racy kernels only
};

struct RefState {
  std::string name;
  Role role = Role::Input;
  DType dtype = DType::F32;
  Shape shape;             // the parameter's shape (per device)
  std::vector<IndexEntry> block;  // the entries that select the program's block
  Shape block_shape;       // shape of the block view
  bool written = false;    // the block (or scratch) is initialised for every program
  bool busy = false;       // an in-flight DMA reads or writes it
  bool exact = false;      // floats only: small dyadic values whose sums stay exact
  int64_t terms = 0;       // Acc: how many additions may reach one element
};

struct Binding {
  std::string name;
  DType dtype;
  Shape shape;
};

class Builder {
 public:
  explicit Builder(Choices& ch) : ch_(ch) {}
  Built build();

 private:
  // --- expressions (build_expr.cpp) ---
  ExprPtr expr(DType dt, const Shape& shape, int depth);
  ExprPtr leaf(DType dt, const Shape& shape);
  ExprPtr compound(DType dt, const Shape& shape, int depth);
  ExprPtr bool_expr(const Shape& shape, int depth);
  ExprPtr literal(DType dt, bool weak);
  ExprPtr small_literal(DType dt, int64_t v, bool weak);
  ExprPtr index_expr(int64_t m, bool allow_constant = true);  // an i32 scalar in [0, m)
  ExprPtr pid();
  ExprPtr asm_expr(DType dt, const Shape& shape, int depth);
  ExprPtr reduce_expr(DType dt, const Shape& shape, int depth);
  // A view of a readable ref of dtype dt whose shape is `shape`, or null.
  ExprPtr load_leaf(DType dt, const Shape& shape);
  ExprPtr masked_load(DType dt, const Shape& shape);
  // ds(start, n) into a dimension of length len, start a non-constant index
  // in [0, len), and its `mask`: iota(i32[n], 0) + start < len, sometimes
  // && a random bool. The slice may run past the end; the mask keeps those
  // elements off.
  IndexEntry masked_ds(int64_t len, int64_t n, ExprPtr& mask);
  // Entries that take `shape` out of a ref of shape `ref_shape`, or false.
  bool view_entries(const Shape& ref_shape, const Shape& shape, std::vector<IndexEntry>& out, bool allow_dynamic);
  // A sub-view of a block: the block's entries, then sub-selections of its dims.
  View sub_view(const RefState& r, Shape& shape_out);
  Shape random_shape(int max_rank, int64_t max_elems);
  DType pick_dtype();
  DType pick_any_dtype();

  // --- statements and phases (build_kernel.cpp) ---
  std::string fresh(const char* prefix);
  RefState& add_input(DType dt, const Shape& shape);
  // Appends parameter p and its state (name, role, dtype, shape).
  RefState& add_param(const Param& p, Role role);
  RefState& add_block_out(DType dt);
  RefState& add_scratch(DType dt, const Shape& shape);
  std::string add_sem(bool dma, int64_t count = 0);
  SemRef sem_ref(const std::string& name, int64_t count);
  void emit(Stmt s);
  // r[entries] of a random shape of r's rank and at most max_elems elements
  // (its shape in shape_out), or all of r when no such view exists.
  View part_view(const RefState& r, int64_t max_elems, Shape& shape_out);
  // Blocks already written and not in a DMA's flight.
  std::vector<RefState*> idle_written_blocks();
  // Turns an assignment or store into `op=`, op one of + - *.
  void make_compound(Stmt& s);
  // dma_start(src, dst, a fresh DMA semaphore[, add=true]), maybe a `let`
  // (of depth let_depth) while `busy` are marked busy, then its dma_wait.
  void dma_then_wait(const View& src, const View& dst, bool add, const std::vector<RefState*>& busy, int let_depth);
  void let_binding(int depth);
  void phase_store();
  void phase_loop();
  void phase_if();
  void phase_dma_in();
  void phase_dma_out();
  void phase_dma_group();
  void phase_accumulate();
  void phase_regular_sem();
  void phase_masked_store();
  void phase_ring();
  void phase_remote_add();
  void phase_barrier();
  void phase_racy();
  void phase_protocol_bug();  // build_protocol.cpp
  void ensure_outputs();
  // An accumulation target of dtype dt that can take `terms` more additions
  // per element (float sums of the generator's values stay exact up to
  // kExactFloatTerms).
  RefState& acc_for(DType dt, int64_t terms);
  void init_data(Param& p, bool exact_floats);
  View full_view(const RefState& r);
  View block_view(const RefState& r);
  // A source view for a DMA of `shape` and dtype dt: an input or an
  // initialised, idle scratch; float sources for accumulation must be exact.
  bool dma_source(DType dt, const Shape& shape, bool need_exact, View& out, RefState** from);

  Choices& ch_;
  Kernel k_;
  std::deque<RefState> refs_;  // parameters and scratch, in creation order
  std::vector<std::vector<Binding>> scopes_{1};
  std::vector<DType> dtypes_;   // the kernel's working dtypes
  Block* out_ = nullptr;        // where statements go
  int counter_ = 0;
  int loop_depth_ = 0;
  std::string loop_var_;        // innermost loop variable, usable in indices
  bool in_fallback_ = false;    // only the asm inputs are visible
  std::vector<Binding> fallback_names_;
  bool racy_ = false;
  std::string bug_;             // the run-time code a deliberate protocol bug must get
  int64_t repeat_ = 1;          // iterations of the enclosing loops
  int64_t programs_ = 1;
};

RefState* find_ref(std::deque<RefState>& refs, const std::string& name);

}  // namespace kdt::gen
