#include "benchmarks/collective/peer_counts.hpp"

#include <algorithm>

namespace distbench::collective {

PeerCounts osu_counts(std::uint64_t bytes) {
  constexpr std::uint64_t kLargeMessage = 8192;  // OSU's LARGE_MESSAGE_SIZE
  return bytes <= kLargeMessage ? PeerCounts{1000, 100} : PeerCounts{100, 10};
}

PeerCounts imb_counts(std::uint64_t bytes) {
  constexpr std::uint64_t kMessagesPerSample = 1000, kOverallVolume = 40ull << 20;  // IMB's MSGSPERSAMPLE, OVERALL_VOL
  const std::uint64_t n = bytes == 0 ? kMessagesPerSample
                                     : std::max<std::uint64_t>(1, std::min(kOverallVolume / bytes, kMessagesPerSample));
  const std::uint64_t warm =
      n / 10 >= 10 ? n / 10 : std::min<std::uint64_t>(10, n);  // WARMUP_PERCENT, MIN_WARMUP_ITERS
  return {static_cast<int>(n), static_cast<int>(warm)};
}

PeerCounts with_given_counts(const SweepPlan& plan, PeerCounts counts) {
  if (plan.iters_given > 0) counts.iterations = plan.iters_given;
  if (plan.warmup_given >= 0) counts.warmup = plan.warmup_given;
  return counts;
}

}  // namespace distbench::collective
