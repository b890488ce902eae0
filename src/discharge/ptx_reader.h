// A reader for the PTX templates of asm blocks (spec section 8): statements
// separated by `;`, `{ }` scopes, `.reg` declarations, guards, opcodes with
// modifiers and operands. Positions are the line and column inside the
// template (the template strings joined with newlines, `%%` kept as `%%`).
#pragma once

#include <string>
#include <vector>

namespace kdt::ptx {

struct Pos {
  int line = 1;    // 1-based line of the template (one per template string)
  int column = 1;  // 1-based column inside that line
};

struct Operand {
  enum class Kind {
    AsmOperand,  // `%name`: a KD operand of the asm
    Register,    // a name: a declared register, or `%%name` (spelled `%name`)
    Immediate,   // an integer or float literal
    Other,       // anything else (vector braces, addresses, ...): blocks
  };
  Kind kind = Kind::Other;
  std::string text;  // the name (without `%` for AsmOperand; `%p0` for `%%p0`) or literal
  bool negated = false;  // `!p`
  std::string second;    // `p|q`: the second destination
  Pos pos;
};

struct Statement {
  enum class Kind { Instruction, RegDecl, OpenScope, CloseScope, Other };
  Kind kind = Kind::Other;
  std::string text;      // the statement as written (for messages)
  Pos pos;
  // Instruction
  std::string guard;     // predicate register of `@p` / `@!p`, empty if none
  bool guard_negated = false;
  std::string opcode;    // `add`
  std::vector<std::string> modifiers;  // `rn`, `f32` (without dots), in order
  std::vector<Operand> operands;
  // RegDecl: `.reg .TYPE a, b<4>;` (names expanded)
  std::string reg_type;  // `f32`, `pred`
  std::vector<std::string> reg_names;
};

struct ReadResult {
  std::vector<Statement> statements;
  bool ok = true;
  std::string error;  // a syntax error
  Pos error_pos;
};

ReadResult read_ptx(const std::string& text);

}  // namespace kdt::ptx
