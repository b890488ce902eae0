// The kernel IR: typed, explicit and structured. Every load, store, DMA,
// semaphore operation, asm block and loop is its own node with the source
// range it came from. Lowered from the checked AST (lower.cpp); rewritten by
// discharge; read by the emitters.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kdt/source/source_manager.h"
#include "kdt/source/type.h"

namespace kdt::ir {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

// A ref declared by the kernel: a parameter or a scratch buffer.
// Names in the IR are KD's, unique within the kernel (lower.cpp gives a
// shadowed name a suffix); the emitters rename those C++ or CUDA cannot
// hold (emit/target_names.h). `kd_name` keeps the KD spelling where the
// outside world sees it: the .npy file of a parameter, `--input NAME=`,
// the kernel in a run summary.
struct Ref {
  std::string name;
  std::string kd_name;
  DType dtype = DType::F32;
  Shape shape;
  MemSpace space = MemSpace::Global;
  bool is_param = false;
  bool writable = true;  // false for `in` parameters
  bool is_output = false;  // `out`/`inout`
  bool starts_uninitialized = false;  // `out` parameters and scratch
  std::string block_of;  // scratch: the block-spec parameter whose buffers these are (section 13)
};

struct Semaphore {
  std::string name;
  std::string kd_name;
  SemKind kind = SemKind::Dma;
  int64_t count = 1;  // array length (1 for a single semaphore; rows x cols for 2-D)
  bool is_array = false;
  int64_t cols = 0;   // a 2-D array's columns (`sem s[2, 3]`), 0 otherwise
  bool peer_raised = false;  // a remote DMA or signal (`device=`) names it
};

struct ScalarParam {
  std::string name;
  std::string kd_name;
  DType dtype = DType::F32;
};

// One dimension of a view: a dropped dimension (`index`), or a range of
// `size` elements starting at `start` (constant when `start` is null).
struct ViewDim {
  ExprPtr start;  // dynamic start or index; null for a static one
  int64_t static_start = 0;
  int64_t size = 1;
  bool dropped = false;
  // In a DmaSite: the start was dynamic and is captured when the DMA starts.
  bool captured = false;
};

// An element set of a ref: what DMAs, loads and stores act on.
struct View {
  int ref = -1;
  std::vector<ViewDim> dims;  // one per ref dimension
  Shape shape() const;
  bool is_whole(const Ref& r) const;
  // The number of trailing view dimensions contiguous in the ref (of
  // `ref_shape`): the innermost ones that cover their ref dimension whole,
  // plus the first that does not. A DMA moves runs of that many.
  size_t contiguous_tail(const Shape& ref_shape) const;
};

enum class ExprKind {
  Const,        // int_value / float_value / bool (dtype in type)
  Local,        // a binding: `local`
  ScalarParam,  // `index`
  ProgramId,    // axis `index`
  DeviceId,
  Load,         // view, optional mask and other
  Unary,        // op
  Binary,       // op
  Select,       // scalar condition ? a : b
  Where,        // element-wise
  Cast,
  Math,         // name
  Fill,         // operand: the scalar value, broadcast to `type.shape`
  Iota,         // axis `index`
  Reduce,       // name (sum/max/min), axis `index` (-1: all), keepdims
  Broadcast,
  Reshape,
  Transpose,
  Dot,
  TileSlice,    // static indexing of a tile value: `tile_dims`
  SemRead,
  AsmOutput,    // output `index` of asm block `asm_id` (evaluated by an AsmStmt)
  PtxOp,        // a translated PTX instruction: kdt_rt::ptx::`name`(operands...),
                // exact to the PTX ISA (discharge/ptx_translate.cpp)
  MeshDevice,   // `device=(d0, d1, ...)`: the linear id of one coordinate per mesh
                // axis (operands), each checked against its axis on the C++ path
};

enum class UnaryOp { Neg, Not, BitNot };
enum class ReduceOp { Sum, Max, Min };
enum class BinaryOp { Mul, Div, Rem, Add, Sub, Shl, Shr, BitAnd, BitXor, BitOr, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
const char* op_name(UnaryOp op);
const char* op_name(BinaryOp op);

struct SemRef {
  int sem = -1;
  ExprPtr index;  // for arrays (a 2-D array's row); null means element 0
  ExprPtr col;    // for 2-D arrays: the column
};

struct Expr {
  ExprKind kind = ExprKind::Const;
  Type type;  // Value: dtype and shape
  SourceRange range;
  int64_t int_value = 0;
  double float_value = 0;
  int local = -1;
  int index = -1;
  int asm_id = -1;
  bool keepdims = false;
  UnaryOp unary = UnaryOp::Neg;
  BinaryOp binary = BinaryOp::Add;
  ReduceOp reduce = ReduceOp::Sum;  // Reduce
  std::string name;                 // Math, Reduce, PtxOp: the function, for printing and spelling
  std::vector<ExprPtr> operands;
  std::optional<View> view;      // Load
  ExprPtr mask, other;           // Load
  std::vector<ViewDim> tile_dims;  // TileSlice (static starts only)
  std::optional<SemRef> sem;     // SemRead
};

struct Local {
  std::string name;  // unique within the kernel
  Type type;
  bool mutable_ = false;
  bool internal = false;  // made by discharge, named for the target already
  std::string kd_name;    // the KD spelling (diagnostics); empty: `name`
  const std::string& spelled() const { return kd_name.empty() ? name : kd_name; }
};

// An inline-asm block. The compiled path uses the template; the
// interpretation path uses `fallback` (discharge fills it).
struct AsmBlock {
  std::string ptx;  // the template joined with newlines
  bool is_volatile = false;
  std::vector<std::string> clobbers;
  std::vector<std::pair<int, DType>> inputs;   // local of each input operand (scalar inside)
  std::vector<std::pair<int, DType>> outputs;  // local of each output operand
  std::vector<std::string> input_names, output_names;
  std::vector<ExprPtr> input_values;  // the operand expressions (tiles broadcast)
  Shape shape;                        // the element-wise shape
  std::optional<Block> fallback;
  SourceRange range;
};

enum class StmtKind {
  Let,        // local = value (declaration)
  Assign,     // local = value
  Store,      // view (op)= value, optional mask
  For,        // local in lo..hi step
  While,      // while value (a bool scalar, evaluated before every iteration) { body }
  If,         // clauses
  Assert,
  Eval,       // an expression evaluated for effect (none today)
  AsmStmt,    // evaluates asm block `asm_id`, defining its AsmOutput values
  DmaStart,
  DmaWait,
  SemSignal,
  SemWait,
  // Discharged forms (discharge.cpp):
  DmaIssue,   // start DMA `dma_id`: capture its views, move data if eager
  DmaRetire,  // retire the oldest DMA on `sem` of `bytes`, moving data if on_wait
  // Scoped declarations (section 17): a block other than the kernel body
  // entered (its scratch `scope_refs` uninitialised again) and left (no DMA
  // in flight on `scope_sems` or into/out of `scope_refs`; its semaphores
  // that peers cannot raise back at 0).
  ScopeEnter,
  ScopeExit,
  // Block specs (section 13, block_specs.cpp): an output block whose index
  // changed starts uninitialised in its buffer (`view`, one slot of the
  // double buffer); at the end of a step, only the pipeline's copies (on
  // `scope_sems`) may be in flight on the buffer (`scope_refs`) of the
  // block-spec parameter `message`.
  BlockBegin,
  BlockEnd,
};

enum class StoreOp { Assign, Add, Sub, Mul };

struct IfClause {
  ExprPtr cond;  // null: else
  Block body;
};

struct Stmt {
  StmtKind kind = StmtKind::Eval;
  SourceRange range;
  int local = -1;
  ExprPtr value;
  std::optional<View> view;         // Store; DmaWait (size only)
  ExprPtr mask;                     // Store
  StoreOp store_op = StoreOp::Assign;
  ExprPtr lo, hi;                   // For
  int64_t step = 1;
  Block body;                       // For, While
  std::vector<IfClause> clauses;    // If
  std::string message;              // Assert
  int asm_id = -1;
  // DMAs and semaphores.
  std::optional<View> src, dst;
  SemRef sem;
  std::optional<SemRef> src_sem;
  ExprPtr device;                   // remote target, null for local
  ExprPtr amount;                   // SemSignal/SemWait
  bool add = false;
  // A block-spec pipeline's copy (section 13): it carries which elements
  // were ever written instead of requiring its source written.
  bool pipeline = false;
  int64_t bytes = 0;                // DMA byte count
  int dma_id = -1;                  // DmaIssue: index into Kernel::dmas
  std::vector<int> scope_refs;      // ScopeEnter, ScopeExit: scratch declared in the block
  std::vector<int> scope_sems;      // ScopeExit: semaphores declared in the block
  // The first statement of an expanded function call: the instance
  // (`f<T = bf16>`) and the call, for the comment printed above it.
  std::string inlined;
  SourceRange inlined_at;
  // The expanded call this statement comes from (an index into
  // Kernel::calls); -1 for the kernel's own statements.
  int call = -1;
};

// A call of a KD function that lowering expanded: the instance, where it
// was called, and the call that statement itself came from (-1: none).
struct CallSite {
  std::string function;
  SourceRange at;
  int caller = -1;
};

// One ref dimension's coordinate in a step of a DMA's copy: its start
// (static, or captured start number `capture` of the DMA) plus the index
// of copy loop `loop` when one runs over it; `stride` elements apart in
// the ref (row-major).
struct CopyCoord {
  int64_t static_start = 0;
  int capture = -1;
  int loop = -1;
  int64_t stride = 1;
};

// How a DMA moves its data, as discharge lays it out: nested loops of
// `loops` iterations over the view's leading dimensions, each step
// moving `chunk` contiguous elements from the source's coordinates to the
// destination's, copied or (with the site's `add`) added element by element.
struct CopyPlan {
  std::vector<int64_t> loops;
  int64_t chunk = 1;
  std::vector<CopyCoord> src, dst;  // one per ref dimension
};

// A DMA start site after discharge: the copy it performs. Dynamic starts
// are captured at the start, in dimension order, source first.
struct DmaSite {
  View src, dst;
  bool add = false;
  int64_t bytes = 0;
  DType dtype = DType::F32;
  SourceRange range;
  CopyPlan copy;
};

struct Kernel {
  std::string name;
  std::string kd_name;
  SourceRange range;
  SourceRange body_range;  // `{ ... }` of the kernel body
  std::vector<int64_t> grid;  // the parallel axes: one program per index tuple
  // The sequential axes (section 13), which each program runs as its steps.
  std::vector<int64_t> steps;
  int64_t devices = 1;
  std::vector<int64_t> mesh;            // one size per mesh axis (section 15); product = devices
  std::vector<std::string> mesh_axes;   // their names, empty when unnamed
  std::optional<int64_t> threads;
  std::vector<Ref> refs;           // parameters first (in order), then scratch
  std::vector<ScalarParam> scalars;
  // Parameter order: (is_ref, index into refs/scalars).
  std::vector<std::pair<bool, int>> params;
  std::vector<Semaphore> sems;
  std::vector<Local> locals;
  std::vector<AsmBlock> asms;
  std::vector<DmaSite> dmas;
  std::vector<CallSite> calls;
  Block body;
  bool discharged = false;
};

struct Module {
  std::vector<Kernel> kernels;
};

// Calls `f` on every expression of `k` (its body and asm fallbacks),
// outer before inner (walk.cpp).
void for_each_expr(const Kernel& k, const std::function<void(const Expr&)>& f);

// Calls `f` on every statement of `b`, each before the statements nested in
// it (its body, then its if-clauses' bodies), in program order (walk.cpp).
void for_each_stmt(const Block& b, const std::function<void(const Stmt&)>& f);

// `--emit=ir` / `--emit=discharged-ir`.
std::string print_module(const Module& module, const SourceManager& sources);

}  // namespace kdt::ir
