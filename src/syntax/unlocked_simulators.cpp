#include "unlocked_simulators.h"

#include <atn/ParserATNSimulator.h>
#include <atn/PredictionContext.h>
#include <dfa/DFA.h>
#include <dfa/DFAState.h>

#include <vector>

namespace kdt::syntax {

namespace {

using antlr4::dfa::DFAState;

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

void use_unlocked_simulators(KDParser& parser) {
  static Dfas dfas(parser.getATN());
  parser.setInterpreter(new UnlockedParserSimulator(&parser, parser.getATN(), dfas.decisions, dfas.contexts));
}

}  // namespace kdt::syntax
