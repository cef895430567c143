// A case's checks (-c): what the timed calls left, the verification calls, and a rooted case from another root.
// Every count is summed over all ranks; each step (poisoning, a checked call, counting) is armed on its own.
#pragma once

#include "benchmarks/collective/measure.hpp"

#include <cstdint>
#include <vector>

namespace distbench::collective {

class TimedCase;

// What every case starts from: its send region filled with its pattern.
void fill_send(World& world, Communicator& comm, const CaseSetup& setup);

// The results the timed calls leave, checked where they are the result of one call (timed_result_checkable): before
// the samples (after the warm-up and the calibration, outside every timer, in a step of its own) each position's
// result region is poisoned and its input filled; after them (in the counting step) the wrong elements of what the
// last timed call at each position left are counted.
class TimedResults {
 public:
  TimedResults(World& world, Communicator& comm, const CaseSetup& setup, const TimedCase& timed);

  void prepare(Watchdog& watchdog) const;
  std::int64_t count_wrong(Watchdog& watchdog) const;

 private:
  World& world_;
  Communicator& comm_;
  const CaseSetup& setup_;
  std::vector<CollectiveCall> positions_;
};

// Whether what the timed calls of `call` leave is the result of one call (see case_check.cpp).
bool timed_result_checkable(const CollectiveCall& call);

// -c N verifications (the case's own call, as its method runs it) and, for a rooted collective, one from another
// root: their wrong elements added; -1 when N is 0.
std::int64_t verify_case(World& world, Communicator& comm, const SweepPlan& plan, const CaseSetup& setup,
                         TimedCase& timed, Watchdog& watchdog);

}  // namespace distbench::collective
