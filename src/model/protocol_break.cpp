#include "model/protocol_break.hpp"

#include "core/measure/sizes.hpp"
#include "core/measure/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench::model {
namespace {

constexpr double kBreakRatio = 1.3;      // as breaks.cpp's cliff
constexpr double kHeaderAllowance = 64;  // ob1's match and rendezvous headers are 14-40 bytes
constexpr std::size_t kMinSide = 3;      // cases on each side: a median of two is their mean, one cliff moves it

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, 50);
}

std::string bytes_text(double b) { return format_bytes(static_cast<std::uint64_t>(b)); }

}  // namespace

bool past_limit(double message, double limit) { return std::isfinite(message) && message > limit - kHeaderAllowance; }

std::vector<ProtocolBreak> protocol_breaks(const std::vector<ProtocolPoint>& points, double limit) {
  std::vector<ProtocolBreak> out;
  std::size_t i = 0;
  while (i < points.size()) {
    std::size_t j = i;
    while (j < points.size() && points[j].nranks == points[i].nranks) ++j;
    std::vector<double> below, past;
    ProtocolBreak b;
    b.nranks = points[i].nranks;
    for (std::size_t k = i; k < j; ++k) {
      const ProtocolPoint& p = points[k];
      if (!std::isfinite(p.message) || !(p.model > 0)) continue;
      if (past_limit(p.message, limit)) {
        past.push_back(p.measured / p.model);
        if (b.first_past == 0) b.first_past = p.bytes;
        b.last_past = p.bytes;
      } else {
        below.push_back(p.measured / p.model);
      }
    }
    if (below.size() >= kMinSide && past.size() >= kMinSide) {
      b.ratio_below = median(below);
      b.ratio_past = median(past);
      b.below = below.size();
      const double r = b.ratio_past / b.ratio_below;
      if (r >= kBreakRatio || r <= 1 / kBreakRatio) out.push_back(b);
    }
    i = j;
  }
  return out;
}

std::string describe(const ProtocolBreak& b, const EagerLimit& limit) {
  const std::string sizes = b.first_past == b.last_past
                                ? bytes_text(b.first_past)
                                : fmt::format("{} .. {}", bytes_text(b.first_past), bytes_text(b.last_past));
  return fmt::format(
      "p={}, {}: one step's message is past {} ({}, {}; {}): these sizes take {:.2f}x the model's "
      "time, the {} below it {:.2f}x. Open MPI sends such messages by rendezvous (a request, the "
      "receiver's go-ahead, then the data); fit one side of the limit (--fit-sizes) or move it "
      "(mpirun --mca {} BYTES) to keep one protocol",
      b.nranks, sizes, limit.parameter, bytes_text(limit.bytes), limit.source, limit.transport, b.ratio_past,
      b.below == 1 ? std::string("size") : fmt::format("{} sizes", b.below), b.ratio_below, limit.parameter);
}

}  // namespace distbench::model
