#include "kdt/syntax/ast.h"

namespace kdt::ast {

const char* unary_op_spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Not: return "!";
    case UnaryOp::BitNot: return "~";
  }
  return "?";
}

const char* binary_op_spelling(BinaryOp op) {
  static const char* const spellings[] = {"*", "/", "%",  "+",  "-",  "<<", ">>", "&",  "^",
                                          "|", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  return spellings[static_cast<int>(op)];
}

std::string AsmBlock::joined_template() const {
  std::string joined;
  for (size_t i = 0; i < strings.size(); ++i) {
    if (i) joined += '\n';
    joined += strings[i].text;
  }
  return joined;
}

}  // namespace kdt::ast
