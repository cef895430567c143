// GoogleTest under mpirun: ranks other than 0 drop the usual report and print only their failures, with the rank.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>

namespace distbench::mpitest {

class RankFailurePrinter final : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.summary());
  }

 private:
  int rank_;
};

// On ranks other than 0: no XML output (every rank would get the same path), failures only.
inline void quiet_unless_rank0(int rank) {
  if (rank == 0) return;
  ::testing::GTEST_FLAG(output) = "";
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new RankFailurePrinter(rank));
}

}  // namespace distbench::mpitest
