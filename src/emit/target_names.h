// The C++/CUDA spelling of every name of a kernel. The IR keeps KD's
// names (made unique within the kernel by lowering); an emitter prints
// them through this table, which renames a name that the emitted code
// cannot hold: a keyword, a macro of the included headers, a name of the
// runtimes or of the emitters' own variables. The renamed form is
// `kd_NAME` (docs/language.md, "Names").
#pragma once

#include <string>
#include <vector>

#include "kdt/ir/ir.h"

namespace kdt::emit {

// Whether the emitted code cannot use `name` as it is.
bool is_reserved_name(const std::string& name);

// `name` as emitted code spells it: `kd_` + name when reserved. One to
// one: every `kd_...` name is itself reserved.
std::string target_name(const std::string& name);

struct TargetNames {
  explicit TargetNames(const ir::Kernel& k);
  std::string kernel;
  std::vector<std::string> refs, scalars, sems, locals;
};

}  // namespace kdt::emit
