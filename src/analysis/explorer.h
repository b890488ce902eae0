// Runs one kernel's program over every path that what is known statically
// allows (spec section 18) and returns the errors certain on all of them.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "protocol_state.h"

namespace kdt::analysis {

// Past this many statement visits (summed over the paths followed) the
// analysis gives up on a kernel and claims nothing: the documented
// unrolling limit.
constexpr int64_t kMaxWork = 200000;
// More paths than this at a join are merged into one that keeps only what
// they agree on (a less precise but still certain view).
constexpr size_t kMaxPaths = 16;

class Explorer {
 public:
  explicit Explorer(const ir::Kernel& kernel) : k_(kernel), eval_(kernel) {}

  // The errors that every path has, in the order the first path met them;
  // nullopt when the kernel ran past kMaxWork.
  std::optional<std::vector<Finding>> run();

  // After run(): the most DMAs in flight at once on one element of DMA
  // semaphore `sem` over every path (0: none started), or nullopt when no
  // bound is known (the analysis gave up, or lost track of the semaphore:
  // a peer raises it, an unknown index, a loop it did not unroll).
  std::optional<int64_t> in_flight_bound(int sem) const;

 private:
  using States = std::vector<State>;
  struct Effects {
    std::vector<int> locals, sems;
    bool protocol = false;  // DMAs, semaphores, scope ends or asserts inside
  };

  void block(const ir::Block& b, States& states);
  // Moves the paths that stopped to finished_.
  void retire_stopped(States& states);
  void if_stmt(const ir::Stmt& s, States& states);
  void for_stmt(const ir::Stmt& s, States& states);
  // False when the path cannot go on (blocked for ever, a failed assert).
  bool simple(const ir::Stmt& s, State& st);
  bool dma_start(const ir::Stmt& s, State& st);
  bool dma_wait(const ir::Stmt& s, State& st);
  bool sem_op(const ir::Stmt& s, State& st);
  void scope_exit(const ir::Stmt& s, State& st);
  void end_of_program(State& st);

  // The checks of reads and writes against the DMAs in flight.
  void reads(const ir::Expr* e, const ir::Stmt& s, State& st);
  void read_view(const ViewValue& v, const ir::Stmt& s, SourceRange range, State& st);
  void write_view(const ViewValue& v, const ir::Stmt& s, bool dma, bool add, State& st);

  ViewValue view(const ir::View& v, const State& st);
  // The semaphore element `r` names, or null when it is untracked (an
  // element the analysis cannot decide untracks the whole array).
  SemSlot* slot(const ir::SemRef& r, State& st, int64_t* index = nullptr);
  void havoc(const ir::Block& body, State& st);
  // Untracks semaphore `sem` on path `st` (and its in-flight count).
  void forget(State& st, int sem);
  const Effects& effects(const ir::Block& body);
  void add(State& st, Finding f);
  States join(States states);

  const ir::Kernel& k_;
  Evaluator eval_;
  States finished_;
  int64_t work_ = 0;
  bool gave_up_ = false;
  std::map<const ir::Block*, Effects> effects_;
  std::map<int, int64_t> most_in_flight_;  // by DMA semaphore, over every path
  std::set<int> unbounded_;                // DMA semaphores started on while untracked
};

// Two views of one ref certainly share an element.
bool certainly_overlap(const ViewValue& a, const ViewValue& b);

}  // namespace kdt::analysis
