// Sequential grid axes and block specs (spec section 13), lowered before
// the two paths part: a program runs its sequence's steps as a loop, and
// each block-spec parameter becomes a double buffer in scratch with one
// semaphore per buffer, filled and written back by explicit DMAs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kdt/ir/ir.h"

namespace kdt::ir {

// A sequential axis: the local holding its index in the current step, and
// the one holding it in the next step (for the prefetch).
struct SequentialAxis {
  int local = -1;
  int next_local = -1;
  int64_t extent = 1;
};

// The steps of a program: its sequential axes, nested in declaration
// order; `step` is the loop's local when there are several axes (with one,
// the axis's own local is the loop variable).
struct Sequence {
  std::vector<SequentialAxis> axes;
  int step = -1;
  SourceRange range;  // the first sequential axis in the grid
  int64_t steps() const {
    int64_t n = 1;
    for (const SequentialAxis& a : axes) n *= a.extent;
    return n;
  }
};

// A block-spec parameter as lowering hands it over.
struct BlockSpecPlan {
  std::string name;  // the parameter's KD name
  int array = -1;    // ref: the parameter, the whole array
  int buffers = -1;  // ref: scratch [2, B...] (or [1, B...] for one step)
  int sems = -1;     // semaphore array: one per buffer
  int slot = -1;     // local: the buffer of the current step (-1 for one step)
  Shape block;
  bool copy_in = false;     // `in`, `inout`
  bool write_back = false;  // `out`, `inout`
  std::vector<ExprPtr> index;       // the block index in the current step
  std::vector<ExprPtr> next_index;  // in the next step (several steps only)
  SourceRange range;
};

// Makes a local the pipeline needs: a name to make unique, its dtype, mutability.
using NewLocal = std::function<int(const std::string& name, DType dtype, bool is_mutable)>;

// The kernel body that runs `body` as the steps of `seq`, with the block
// specs' copies in, write-backs and checks around each step.
Block lower_block_specs(Kernel& k, const Sequence& seq, std::vector<BlockSpecPlan>& specs, Block body,
                        const NewLocal& new_local);

}  // namespace kdt::ir
