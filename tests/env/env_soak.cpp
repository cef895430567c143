// A job formed through env:// that keeps its connector busy (allgathers and barriers, checked) for a while: what the
// env:// tests kill, stop or fail mid-run. Errors end it as distbench's main does: one line, then the job.
//
//   env_soak SECONDS [TIMEOUT_S] [FAIL_RANK FAIL_AFTER_S]
#include "backends/registry.hpp"
#include "core/comm/connector.hpp"
#include "core/error.hpp"
#include "tests/support/test_step.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  using namespace distbench;
  using Clock = std::chrono::steady_clock;
  if (argc < 2) {
    std::fprintf(stderr, "usage: env_soak SECONDS [TIMEOUT_S] [FAIL_RANK FAIL_AFTER_S]\n");
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const double timeout_s = argc > 2 ? std::atof(argv[2]) : 10.0;
  const int fail_rank = argc > 4 ? std::atoi(argv[3]) : -1;
  const double fail_after = argc > 4 ? std::atof(argv[4]) : 0.0;
  std::unique_ptr<Connector> c;
  try {
    c = make_connector(argc, argv, {"env", timeout_s});
    std::printf("rank %d of %d formed the job on %s\n", c->rank(), c->size(), c->hostname().c_str());
    std::fflush(stdout);
    const auto start = Clock::now();
    for (int round = 0; std::chrono::duration<double>(Clock::now() - start).count() < seconds; ++round) {
      const auto values = allgather_value(*c, c->rank() + round, test_step());
      for (int r = 0; r < c->size(); ++r) {
        if (values[static_cast<std::size_t>(r)] != r + round) throw failure("soak: an allgather came back wrong");
      }
      c->barrier(test_step());
      if (c->rank() == fail_rank && std::chrono::duration<double>(Clock::now() - start).count() > fail_after) {
        throw Error(ExitCode::wrong_results, "soak: failing on purpose");  // a code of its own, to see it spread
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  } catch (const Error& e) {
    if (c && c->size() > 1) {
      std::fprintf(stderr, "error: rank %d (%s): %s\n", c->rank(), c->hostname().c_str(), e.what());
      std::fflush(stderr);
      c->abort(static_cast<int>(e.code()), e.what());
    }
    std::fprintf(stderr, "error: %s\n", e.what());
    return static_cast<int>(e.code());
  }
  return 0;
}
