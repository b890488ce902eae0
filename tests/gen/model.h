// The program model: a small typed tree of one KD kernel, built by
// builder.cpp, printed by print.cpp and evaluated by eval.cpp. It holds only
// what the generator produces, with every type already decided.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scalar.h"

namespace kdt::gen {

using Shape = std::vector<int64_t>;
int64_t element_count(const Shape& s);
// NumPy broadcasting of two shapes; ModelError (eval.h) when they do not
// broadcast.
Shape broadcast_shape(const Shape& a, const Shape& b);
// Whether `from` broadcasts to exactly `to`.
bool broadcasts_to(const Shape& from, const Shape& to);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// One entry of a view: r[i, :, a:b, ds(s, n)].
struct IndexEntry {
  enum class Kind { Scalar, Full, Slice, Ds } kind = Kind::Full;
  ExprPtr index;       // Scalar: an i32 expression; Ds: the start
  int64_t start = 0;   // Slice
  int64_t size = 0;    // Slice and Ds
};

struct View {
  std::string ref;
  std::vector<IndexEntry> entries;  // missing trailing entries mean `:`
  bool ellipsis = false;            // print a trailing `...` (or `r[...]` when empty)
};

struct Expr {
  enum class Kind {
    Literal,     // scalar of `dtype`, value in `bits`; `weak` prints it bare
    Name,        // a let/var binding or the loop variable
    Load,        // a view in an expression
    MaskedLoad,  // load(view, mask=operands[0], other=operands[1])
    ProgramId,   // program_id(axis)
    NumPrograms,
    DeviceId,
    NumDevices,
    SemRead,     // sem_read(sem)
    Unary,       // unop(operands[0])
    Binary,      // operands[0] binop operands[1]; Max/Min print as maximum/minimum
    Where,       // where(c, a, b)
    Cast,        // dtype(operands[0])
    Iota,        // iota(dtype[shape], axis)
    Full,        // full(dtype[shape], operands[0]) / zeros / ones
    Reduce,      // sum/max/min(operands[0], axis=axis, keepdims=keepdims); axis -1: all
    Dot,
    Transpose,
    Reshape,
    Broadcast,
    TileSlice,   // operands[0][start:start+size] on the first dimension
    Asm,         // see AsmBlock
  };
  Kind kind;
  DType dtype = DType::I32;
  Shape shape;
  uint64_t bits = 0;
  bool weak = false;
  std::string name;  // Name; SemRead's semaphore; Reduce: sum/max/min; Full: zeros/ones/full
  View view;
  UnOp unop = UnOp::Neg;
  BinOp binop = BinOp::Add;
  int axis = 0;
  bool keepdims = false;
  int64_t start = 0, size = 0;
  std::vector<ExprPtr> operands;
  // Asm: PTX template lines, input names (operands are their values),
  // the output's name, and the fallback expression over the input names
  // (null: no fallback, the PTX itself is translated by kdt).
  std::vector<std::string> asm_lines;
  std::vector<std::string> asm_inputs;
  std::vector<DType> asm_input_dtypes;
  std::string asm_output;
  ExprPtr asm_fallback;
  // The model's own meaning of a fallback-free asm (a small PTX program).
  std::string ptx_op;
};

struct SemRef {
  std::string name;
  ExprPtr index;  // null for a plain semaphore
};

struct Stmt;
using Block = std::vector<Stmt>;

struct Stmt {
  enum class Kind {
    Let,         // let name = expr;
    Var,         // var name = expr;
    Assign,      // name = expr; or name op= expr (compound: binop set, `compound`)
    Store,       // view = expr; or view op= expr
    MaskedStore, // store(view, expr, mask=mask);
    DmaStart,    // dma_start(src, dst, sem, add=, src_sem=, device=)
    DmaWait,     // dma_wait(sem, view)
    SemSignal,   // sem_signal(sem, amount, device=)
    SemWait,     // sem_wait(sem, amount)
    For,         // for name in lo..hi step step { body }
    If,          // if cond { body } else { else_body }
    Assert,      // assert(cond)
    Comment,     // a line comment (name)
  };
  Kind kind;
  std::string name;
  ExprPtr expr;       // value, condition, amount, device, loop bounds' lo
  ExprPtr hi;         // loop upper bound
  ExprPtr mask;
  ExprPtr device;     // remote DMA / signal target
  bool compound = false;
  BinOp op = BinOp::Add;
  int64_t step = 1;
  View view;          // store target, DMA source, wait view
  View dst;           // DMA destination
  SemRef sem;
  SemRef src_sem;     // remote DMA: the sender's semaphore
  bool add = false;
  Block body, else_body;
};

enum class Mode { In, Out, InOut, Scalar };

struct Param {
  std::string name;
  Mode mode = Mode::In;
  DType dtype = DType::F32;
  Shape shape;  // per device
  std::vector<uint64_t> init;  // In/InOut/Scalar: per-device data, device-major
};

struct Scratch {
  std::string name;
  DType dtype;
  Shape shape;
};

struct Sem {
  std::string name;
  bool dma = true;
  int64_t count = 0;  // 0: a plain semaphore, else an array
};

struct Kernel {
  std::string name;
  std::vector<Param> params;
  Shape grid;
  int devices = 1;
  std::vector<Scratch> scratch;
  std::vector<Sem> sems;
  Block body;
  std::string comment;  // what the kernel exercises, printed at the top
};

}  // namespace kdt::gen
