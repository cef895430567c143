// The latency benchmark (benchmarks/latency/latency_benchmark): its ranks must pair up.
#include "benchmarks/latency/latency_benchmark.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace distbench::latency {
namespace {

TEST(Latency, RanksMustPairUp) {
  EXPECT_NO_THROW(check_pairs(2));
  EXPECT_NO_THROW(check_pairs(8));
  for (int n : {1, 3, 5}) {
    try {
      check_pairs(n);
      FAIL() << n;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find(std::to_string(n) + " ranks do not pair up"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace distbench::latency
