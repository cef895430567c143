#include "cli/startup_clock.hpp"

#include "core/device/pattern.hpp"

#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace distbench::cli {

double seconds_since_process_start() {
  constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  std::ifstream in("/proc/self/stat");
  std::string stat;
  if (!std::getline(in, stat)) return kUnknown;
  // Field 22, starttime, in clock ticks after boot; the fields after the name, which ends with the last ')'
  const auto name_end = stat.rfind(')');
  if (name_end == std::string::npos) return kUnknown;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  unsigned long long start_ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) start_ticks = std::strtoull(field.c_str(), nullptr, 10);
  }
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  timespec now{};
  if (start_ticks == 0 || ticks_per_second <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return kUnknown;
  const double since_boot = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
  const double age = since_boot - static_cast<double>(start_ticks) / static_cast<double>(ticks_per_second);
  return age >= 0 ? age : kUnknown;
}

void time_first_collective(World& world, StartupClock& clock, double timeout_s, const ArmedStep& step) {
  Device& device = world.device();
  Communicator& comm = world.communicator(world_partition(world.connector().size()), step);
  auto send = device.allocate(sizeof(float));
  auto recv = device.allocate(sizeof(float));
  CollectiveCall call;
  call.collective = Collective::allreduce;
  call.send = {send.get(), 0};
  call.recv = {recv.get(), 0};
  call.count = 1;
  call.dtype = DType::float32;
  call.op = ReduceOp::sum;
  const PatternParams pattern = make_pattern(call.collective, call.op, call.dtype, comm.size());
  device.fill(call.send, 1, call.dtype, FillSpec{pattern, comm.rank()});
  device.synchronize();
  comm.run(call, step);
  comm.synchronize(Seconds(timeout_s));
  clock.first_collective_done = StartupClock::Clock::now();
}

namespace {

double between(StartupClock::Clock::time_point from, StartupClock::Clock::time_point to) {
  if (from == StartupClock::Clock::time_point{} || to == StartupClock::Clock::time_point{} || to < from)
    return std::numeric_limits<double>::quiet_NaN();
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

std::vector<StartupRank> gather_startup(Connector& connector, const StartupClock& clock,
                                        const std::vector<std::string>& hosts, const ArmedStep& step) {
  connector.barrier(step);  // the ranks' common instant: each says how long ago it entered main()
  const double since_main = between(clock.main_entered, StartupClock::Clock::now());
  std::array<double, kStartupPhases.size() + 1> mine{};
  mine[0] = clock.launch_s;
  mine[1] = between(clock.main_entered, clock.connect_begun);
  mine[2] = between(clock.connect_begun, clock.connected);
  mine[3] = between(clock.connected, clock.backend_chosen);
  mine[4] = between(clock.backend_chosen, clock.world_formed);
  mine[5] = between(clock.world_formed, clock.first_collective_done);
  mine[kStartupTotal] = std::isnan(clock.launch_s)
                            ? std::numeric_limits<double>::quiet_NaN()
                            : clock.launch_s + between(clock.main_entered, clock.first_collective_done);
  mine[kStartupPhases.size()] = since_main;
  const auto all = gather_vector(connector, std::span<const double>(mine), connector.root_rank(), step);
  if (!connector.is_root()) return {};
  double earliest = 0;  // the longest since main(): the rank that began first
  for (const auto& r : all)
    if (r.size() == mine.size() && !std::isnan(r.back())) earliest = std::max(earliest, r.back());
  std::vector<StartupRank> ranks;
  for (std::size_t i = 0; i < all.size(); ++i) {
    StartupRank r;
    r.rank = static_cast<int>(i);
    r.host = i < hosts.size() ? hosts[i] : std::string();
    r.seconds.fill(std::numeric_limits<double>::quiet_NaN());
    r.late_s = std::numeric_limits<double>::quiet_NaN();
    if (all[i].size() == mine.size()) {
      std::copy_n(all[i].begin(), kStartupPhases.size(), r.seconds.begin());
      r.late_s = earliest - all[i].back();
    }
    ranks.push_back(std::move(r));
  }
  return ranks;
}

}  // namespace distbench::cli
