#include "core/comm/checker_everywhere.hpp"

#include "core/comm/connector.hpp"
#include "core/error.hpp"

#include <memory>
#include <random>

namespace distbench {

void check_checker_everywhere(World& world, Watchdog& watchdog, std::span<const CheckerCase> cases) {
  const ArmedStep step = watchdog.arm(StepKind::setup, "checking the checker on known-corrupted results");
  std::unique_ptr<Error> problem;
  try {
    std::random_device seeds;
    for (const CheckerCase& c : cases) check_checker(world.device(), c, seeds());
  } catch (const Error& e) {
    problem = std::make_unique<Error>(e);
  }
  raise_if_any(world.connector(), problem.get(), step);
}

}  // namespace distbench
