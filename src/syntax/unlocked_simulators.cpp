#include "unlocked_simulators.h"

#include <atn/LexerATNSimulator.h>
#include <atn/ParserATNSimulator.h>
#include <atn/PredictionContext.h>
#include <dfa/DFA.h>
#include <dfa/DFAState.h>

#include <vector>

namespace kdt::syntax {

namespace {

using antlr4::dfa::DFAState;

// LexerATNSimulator::getExistingTargetState without the lock.
class UnlockedLexerSimulator : public antlr4::atn::LexerATNSimulator {
 public:
  using LexerATNSimulator::LexerATNSimulator;

 protected:
  DFAState* getExistingTargetState(DFAState* s, size_t t) override {
    if (t > MAX_DFA_EDGE) return nullptr;
    auto edge = s->edges.find(t - MIN_DFA_EDGE);
    return edge == s->edges.end() ? nullptr : edge->second;
  }
};

// ParserATNSimulator::getExistingTargetState without the lock.
class UnlockedParserSimulator : public antlr4::atn::ParserATNSimulator {
 public:
  using ParserATNSimulator::ParserATNSimulator;

 protected:
  DFAState* getExistingTargetState(DFAState* previous, size_t t) override {
    auto edge = previous->edges.find(t);
    return edge == previous->edges.end() ? nullptr : edge->second;
  }
};

// One DFA per decision of an ATN, as the generated recognizers keep theirs.
struct Dfas {
  explicit Dfas(const antlr4::atn::ATN& atn) {
    for (size_t i = 0; i < atn.getNumberOfDecisions(); ++i) decisions.emplace_back(atn.getDecisionState(i), i);
  }
  std::vector<antlr4::dfa::DFA> decisions;
  antlr4::atn::PredictionContextCache contexts;
};

}  // namespace

std::mutex& parse_lock() {
  static std::mutex lock;
  return lock;
}

void use_unlocked_simulators(KDLexer& lexer) {
  static Dfas dfas(lexer.getATN());
  // setInterpreter deletes the simulator the generated constructor made,
  // and the recognizer deletes this one when it is destroyed.
  lexer.setInterpreter(new UnlockedLexerSimulator(&lexer, lexer.getATN(), dfas.decisions, dfas.contexts));
}

void use_unlocked_simulators(KDParser& parser) {
  static Dfas dfas(parser.getATN());
  parser.setInterpreter(new UnlockedParserSimulator(&parser, parser.getATN(), dfas.decisions, dfas.contexts));
}

}  // namespace kdt::syntax
