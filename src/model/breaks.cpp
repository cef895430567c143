#include "model/breaks.hpp"

#include "core/measure/sizes.hpp"

#include <fmt/format.h>

#include <cmath>

namespace distbench::model {
namespace {

constexpr double kCliffRatio = 1.3;
// Page faults explain a slow case when they touch a fair share of its bytes: a fault or two per operation (a library's
// bookkeeping) does not make a 256 KiB message twice as slow.
constexpr double kPageBytes = 4096;
constexpr double kFaultedShare = 1.0 / 16;

// `causes`: those of the points before i.
std::string cause_of(const std::vector<PointFacts>& points, const std::vector<std::string>& causes, std::size_t i) {
  const PointFacts& p = points[i];
  const bool slower = p.measured > p.model;
  if (slower && std::isfinite(p.faults_per_op) && p.faults_per_op >= 1 &&
      p.faults_per_op * kPageBytes >= kFaultedShare * p.bytes) {
    return fmt::format("page faults ({:.0f} per operation: buffers touched the first time; try --malloc-reuse)",
                       p.faults_per_op);
  }
  if (slower && i > 0 && points[i - 1].nranks == p.nranks && !points[i - 1].refused && points[i - 1].measured > 0 &&
      points[i - 1].model > 0) {
    const double grew = p.measured / points[i - 1].measured;
    const double expected = p.model / points[i - 1].model;
    if (grew > kCliffRatio * expected) {
      return fmt::format(
          "a cliff: {:.1f}x the time of {} where the model grows {:.1f}x (a protocol switch, e.g. "
          "eager to rendezvous, or data beyond a cache)",
          grew, format_bytes(static_cast<std::uint64_t>(points[i - 1].bytes)), expected);
    }
  }
  if (slower && i > 0 && points[i - 1].nranks == p.nranks && points[i - 1].refused &&
      (causes[i - 1].rfind("a cliff", 0) == 0 || causes[i - 1].rfind("after the cliff", 0) == 0)) {
    std::size_t first = i - 1;
    while (first > 0 && points[first - 1].nranks == p.nranks && causes[first].rfind("after the cliff", 0) == 0) --first;
    return fmt::format("after the cliff at {}: still slower than the model",
                       format_bytes(static_cast<std::uint64_t>(points[first].bytes)));
  }
  if (p.latency_share >= 0.5) {
    return "latency-bound: alpha is most of the time here, and per-call costs vary with the size beyond one alpha";
  }
  if (!slower) return "faster than the model: data still in a cache, or a cheaper protocol at this size";
  return "slower than the model: contention, or the library switching algorithm at this size";
}

// The cause's first words, which group consecutive points ("a cliff" whatever its figures).
std::string cause_kind(const std::string& cause) {
  const auto cut = cause.rfind("after the cliff", 0) == 0 ? cause.find(':') : cause.find_first_of(":(");
  std::string kind = cause.substr(0, cut);
  while (!kind.empty() && kind.back() == ' ') kind.pop_back();
  return kind;
}

}  // namespace

std::vector<std::string> break_causes(const std::vector<PointFacts>& points) {
  std::vector<std::string> out(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].refused) out[i] = cause_of(points, out, i);
  }
  return out;
}

std::vector<std::string> break_ranges(const std::vector<PointFacts>& points, const std::vector<std::string>& causes) {
  std::vector<std::string> lines;
  std::size_t i = 0;
  while (i < points.size()) {
    if (!points[i].refused) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < points.size() && points[j + 1].refused && points[j + 1].nranks == points[i].nranks &&
           cause_kind(causes[j + 1]) == cause_kind(causes[i])) {
      ++j;
    }
    const std::string sizes = i == j
                                  ? format_bytes(static_cast<std::uint64_t>(points[i].bytes))
                                  : fmt::format("{} .. {}", format_bytes(static_cast<std::uint64_t>(points[i].bytes)),
                                                format_bytes(static_cast<std::uint64_t>(points[j].bytes)));
    lines.push_back(fmt::format("p={}, {}: {}", points[i].nranks, sizes, i == j ? causes[i] : cause_kind(causes[i])));
    i = j + 1;
  }
  return lines;
}

}  // namespace distbench::model
