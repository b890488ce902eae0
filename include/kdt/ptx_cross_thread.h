// The PTX instructions whose meaning involves other threads (spec section 8,
// docs/ptx.md): one list for the checker, which warns about some of them
// (`asm-cross-lane`), and for discharge, which translates none of them (an
// asm that uses one needs a `fallback` on the interpretation path).
#pragma once

#include <string_view>

namespace kdt::ptx {

struct CrossThreadInstruction {
  std::string_view mnemonic;  // the opcode, before its first `.`
  // Warned as `asm-cross-lane`: a thread's values or progress depend on
  // other threads. Memory ordering and launch control (`fence`, `membar`,
  // `mbarrier`, `griddepcontrol`) are not: KD code writes them with an empty
  // `fallback {}`, which is right on the interpretation path.
  bool warned;
};

inline constexpr CrossThreadInstruction kCrossThreadInstructions[] = {
    {"shfl", true},      {"vote", true},   {"bar", true},        {"barrier", true},       {"ldmatrix", true},
    {"stmatrix", true},  {"movmatrix", true}, {"mma", true},     {"wgmma", true},         {"match", true},
    {"redux", true},     {"activemask", true}, {"elect", true},  {"fence", false},        {"membar", false},
    {"mbarrier", false}, {"griddepcontrol", false},
};

// The entry of `mnemonic`, or null when it is not a cross-thread instruction.
inline const CrossThreadInstruction* find_cross_thread(std::string_view mnemonic) {
  for (const CrossThreadInstruction& i : kCrossThreadInstructions) {
    if (i.mnemonic == mnemonic) return &i;
  }
  return nullptr;
}

}  // namespace kdt::ptx
