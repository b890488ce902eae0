// The C-like kernel emitter both back ends derive from (Slang's
// CLikeSourceEmitter model). The base owns what the C++ and CUDA targets
// share: the statement walk, the value engine (element loops, broadcasting,
// materialisation into temporaries, views and their offsets) and the
// names of temporaries. A target keeps only its hooks: how an element loop
// runs (a serial loop nest or a block-stride loop over threads), where a
// temporary lives (an array or shared memory), the run-time checks, DMAs,
// semaphores, inline PTX, the kernel entry and its launcher.
//
//   c_like_statements.cpp   the statement walk
//   c_like_values.cpp       values, views, temporaries
//   target_names.cpp        the C++/CUDA spelling of KD's names
#pragma once

#include <map>
#include <string>
#include <vector>

#include "c_types.h"
#include "code_writer.h"
#include "kdt/ir/ir.h"
#include "loop_shapes.h"
#include "target_names.h"

namespace kdt::emit {

using ir::Expr;
using ir::ExprKind;

// What distinguishes the targets in the code the base prints. Both
// runtime preludes have one operator API: `op_add(a, b)`, `maximum(a, b)`,
// `math::exp(x)`, `cmp_value(h)` deduce their type from the operands (the
// emitted operands have exactly the KD dtype's C type); `int_div<T>`,
// `shl<T>`, `convert<T>` name it.
struct TargetSpelling {
  const char* runtime;        // namespace of the runtime prelude: kdt_rt or kdt_cu
  const char* temp_suffix;    // appended to internal names ("_" keeps KD names free on CUDA)
  const char* flat_prefix;    // first letter of an element loop's flat index
  bool flat_loops;            // an element loop may run one flat counter without per-dimension indices
  bool loads_ahead;           // loads are evaluated (and checked) ahead of the expression around them
};

class CLikeEmitter {
 public:
  virtual ~CLikeEmitter() = default;

 protected:
  CLikeEmitter(const ir::Kernel& k, CodeWriter& w, const TargetSpelling& target) : k_(k), names_(k), w_(w), target_(target) {}

  // ----- names ----------------------------------------------------------------------
  std::string ctype(DType t) const { return c_type(t, target_.runtime); }
  // `name` in the runtime's namespace.
  std::string rt(const std::string& name) const { return std::string(target_.runtime) + "::" + name; }
  std::string fresh(const char* base) { return std::string(base) + std::to_string(next_temp_++) + target_.temp_suffix; }
  const std::string& local_name(int l) const { return names_.locals[l]; }
  // A new element loop over `shape`: one index per dimension and a flat index.
  LoopCtx new_ctx(const Shape& shape);

  // ----- statements (c_like_statements.cpp) ---------------------------------------------
  virtual void block(const ir::Block& b);
  void nested_block(const ir::Block& b);  // block(), then the lines belong to the enclosing statement again
  virtual void stmt(const ir::Stmt& s);
  void if_chain(const std::vector<ir::IfClause>& clauses, size_t i);
  // The statements each target writes its own way.
  virtual void let(const ir::Stmt& s) = 0;
  virtual void store_view(const ir::Stmt& s) = 0;
  virtual void assert_stmt(const ir::Stmt& s) = 0;
  virtual void eval(const ir::Stmt& s) = 0;
  virtual void asm_stmt(const ir::Stmt& s) = 0;
  virtual void sem_signal(const ir::Stmt& s) = 0;
  virtual void sem_wait(const ir::Stmt& s) = 0;
  // Before discharge (CUDA) a DMA is a start and a wait; after it (C++)
  // an issue and a retire. A target is given the pair it reads.
  virtual void dma_start(const ir::Stmt&) {}
  virtual void dma_wait(const ir::Stmt&) {}
  virtual void dma_issue(const ir::Stmt&) {}
  virtual void dma_retire(const ir::Stmt&) {}
  // Scoped declarations (section 17): the C++ path's entry and exit checks;
  // nothing on the compiled path, where scoped scratch and semaphores are
  // the kernel's (semaphores keep their counts between entries).
  virtual void scope_enter(const ir::Stmt&) {}
  virtual void scope_exit(const ir::Stmt&) {}
  // Block specs (section 13): run-time checks only, none on the compiled path.
  virtual void block_begin(const ir::Stmt&) {}
  virtual void block_end(const ir::Stmt&) {}
  // The KD loop variable `v` (int32) from its 64-bit counter `v_it`.
  virtual void loop_variable(const std::string& v) = 0;

  // ----- element loops (target hooks) ---------------------------------------------------------
  virtual void open_loop(const LoopCtx& ctx) = 0;
  virtual void close_loop(const LoopCtx& ctx) = 0;
  // Writes tile `value` into the array `name` of `shape`.
  virtual void store_tile(const std::string& name, const Shape& shape, const Expr& value) = 0;
  // Declares the temporary `name` that holds `e` (a scalar, or an array
  // of e's shape) and returns its name.
  virtual std::string declare_temp(const Expr& e, const std::string& name) = 0;

  // ----- values (c_like_values.cpp) -------------------------------------------------------
  // The value of a rank-0 expression.
  std::string scalar(const Expr& e);
  // Computes the parts of `e` that are not element-wise (reductions, dot,
  // transposes, ...) into temporaries before the element loop.
  void prepare(const Expr& e);
  // Element (ctx) of `e`.
  std::string elem(const Expr& e, const LoopCtx& ctx);
  std::string binary(const Expr& e, const std::string& a, const std::string& b);
  // Computes `e` into a new temporary (array or scalar), or into `name`
  // where given, and returns its name.
  std::string materialize(const Expr& e, std::string name = "");
  // An array (or scalar) holding `e`'s elements in row-major order.
  std::string materialize_array(const Expr& e);
  // A `?:` or scalar `&&`/`||` with each lazy operand in its own branch, into a temporary.
  std::string materialize_lazy(const Expr& e);
  // The starts of a view's dimensions: literals, or named temporaries
  // holding the dynamic ones (`masked`: the access is masked).
  std::vector<std::string> view_starts(const ir::View& v, bool masked);
  // Offset of the view element addressed by the loop's trailing indices;
  // `coords`, when given, receives each ref dimension's coordinate.
  std::string view_elem_offset(const ir::View& v, const std::vector<std::string>& starts, const LoopCtx& ctx,
                               std::vector<std::string>* coords = nullptr);
  // The loop position given by per-dimension indices alone.
  static LoopCtx at_index(const std::vector<std::string>& index) {
    LoopCtx ctx;
    ctx.index = index;
    return ctx;
  }
  // Offset in the source tile of element (ctx) of a tile slice.
  std::string tile_slice_offset(const Expr& e, const LoopCtx& ctx);
  // What both targets' reductions start from: the operand as an array and
  // the result declared; f16/bf16 accumulate in f32 (spec section 1).
  struct Reduction {
    std::string src;     // the operand's elements, row-major
    bool sum = false;    // sum (else max or min)
    bool narrow = false; // f16/bf16: the accumulator is a float
    std::string acc_t;   // the accumulator's C type
    // Along an axis: the operand as [outer, len, inner], reduced over len.
    int64_t outer = 1, len = 1, inner = 1;
  };
  Reduction begin_reduction(const Expr& e, const std::string& name);
  // An element as the accumulator's type, and the accumulator as the result's.
  std::string to_acc(const Reduction& r, const std::string& v) const { return r.narrow ? rt("to_f32(") + v + ")" : v; }
  std::string from_acc(const Expr& e, const Reduction& r, const std::string& acc) const {
    return r.narrow ? rt("convert<") + ctype(e.type.dtype) + ">(" + acc + ")" : acc;
  }
  // What both targets' `dot` starts from: both operands as row-major arrays,
  // C[M, N] = A[M, K] B[K, N], the accumulator type (the node's dtype: f32,
  // f64, i32 or i64, ir/lower.cpp), and the result declared.
  struct DotOperands {
    std::string a, b;
    int64_t M = 0, K = 0, N = 0;
    DType in = DType::F32;
    std::string acc_t;
  };
  // The operands of `dot` `e`, materialized; begin_dot also declares its result `name`.
  DotOperands dot_operands(const Expr& e);
  DotOperands begin_dot(const Expr& e, const std::string& name);
  // `target += e` for a `dot` `e` whose result has target's shape and type,
  // written into target in one step where the back end has one (the CUDA
  // tensor cores' accumulators); false to take the general way.
  virtual bool accumulate_dot(const std::string& target, const Expr& e) { return false; }
  // The operand of a `dot` or a reduction as an array: materialize_array,
  // or a load read in place where view_in_place allows (their results are
  // arrays of their own, so nothing writes the operand meanwhile).
  std::string operand_array(const Expr& e);
  // A pointer to load `e`'s elements where they already form a row-major
  // array in memory the back end may read directly; empty where not (the
  // C++ path copies, checking every element).
  virtual std::string view_in_place(const Expr& e) { return ""; }
  // Whether `e` reads local `local`.
  static bool reads_local(const Expr& e, int local);
  // An operand element as the accumulator's type; `convert_same_int`: an
  // integer operand converts even where its type is the accumulator's.
  std::string widen(const Expr& e, const DotOperands& d, const std::string& v, bool convert_same_int) const {
    if (d.in == e.type.dtype && (!convert_same_int || is_float(d.in))) return v;
    return rt("convert<") + d.acc_t + ">(" + v + ")";
  }
  bool reads_ref(const Expr& e, int ref) const;
  static bool same_view(const ir::View& a, const ir::View& b);
  static bool is_materialized_kind(ExprKind k) {
    return k == ExprKind::Reduce || k == ExprKind::Dot || k == ExprKind::Transpose || k == ExprKind::Reshape ||
           k == ExprKind::TileSlice;
  }

  // ----- value hooks ------------------------------------------------------------------------
  virtual std::string const_literal(const Expr& e) = 0;
  // Program and device ids, scalar parameters, semaphore reads, PTX operations.
  virtual std::string leaf(const Expr& e, const LoopCtx& ctx) = 0;
  virtual void prepare_load(const Expr& e) = 0;
  virtual void prepare_sem_read(const Expr& e) = 0;
  virtual std::string load(const Expr& e, const LoopCtx& ctx) = 0;
  // Element (ctx) of tile-or-scalar local `e` (CUDA: a tile may live in registers).
  virtual std::string local_elem(const Expr& e, const LoopCtx& ctx) {
    return index_of(local_name(e.local), e.type.shape, ctx);
  }
  // A dynamic start as the target checks it.
  virtual std::string checked_start(const std::string& value, const ir::View& v, size_t d, bool masked) = 0;
  // The divisor of an integer `/` or `%` as the target checks it.
  virtual std::string divisor(const Expr& e, const std::string& b) = 0;
  // Coordinate `axis` of a `device=(...)` list as the target checks it.
  virtual std::string mesh_coordinate(const Expr& e, size_t axis, const std::string& c) = 0;
  // The non-element-wise values.
  virtual void reduce(const Expr& e, const std::string& name) = 0;
  virtual void dot(const Expr& e, const std::string& name) = 0;
  virtual void transpose(const Expr& e, const std::string& name) = 0;
  // Returns the name holding the value (a reshape may alias its operand).
  virtual std::string reshape(const Expr& e, const std::string& name) = 0;
  virtual void tile_slice(const Expr& e, const std::string& name) = 0;

  const ir::Kernel& k_;
  const TargetNames names_;  // what the emitted code calls the kernel's names
  CodeWriter& w_;
  const TargetSpelling& target_;
  int next_temp_ = 0;
  int in_while_ = 0;  // how many `while` loops enclose what is being emitted
  int call_ = -1;     // the expanded function call the statement being emitted comes from
  std::map<const Expr*, std::string> materialized_;
  std::map<const Expr*, std::vector<std::string>> view_starts_;
  std::map<int, std::vector<std::string>> asm_outputs_;
};

}  // namespace kdt::emit
