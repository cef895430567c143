#include "benchmarks/train/bucket_check.hpp"

#include "core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <span>

namespace distbench::train {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 18;  // gradients per exchange: 1 MiB from each rank

double gamma_k(double k, double u) { return k * u / (1.0 - k * u); }

std::string bucket_list(const std::vector<std::size_t>& buckets) {
  constexpr std::size_t kShown = 8;
  std::string out;
  for (std::size_t i = 0; i < buckets.size() && i < kShown; ++i) out += fmt::format("{}{}", i ? ", " : "", buckets[i]);
  if (buckets.size() > kShown) out += fmt::format(" and {} more", buckets.size() - kShown);
  return out;
}

}  // namespace

double reduction_error_bound(DType wire, std::size_t ranks, double abs_sum) {
  const auto n = static_cast<double>(ranks);
  const bool bf16 = wire == DType::bfloat16;
  const double library =
      bf16 ? gamma_k(n, std::ldexp(1.0, -8) + std::ldexp(1.0, -23)) : gamma_k(n - 1, std::ldexp(1.0, -24));
  const double reference = gamma_k(n, std::ldexp(1.0, -53));
  // Below float's normal range a rounding's error is absolute: half the subnormal spacing per rounding.
  const double subnormal = n * std::numeric_limits<float>::denorm_min();
  return (library + reference) * abs_sum + subnormal;
}

BucketCheck::BucketCheck(Connector& connector, std::vector<int> replicas, Mlp& model, const DataParallel& dp,
                         DType wire)
    : connector_(connector),
      replicas_(std::move(replicas)),
      model_(model),
      dp_(dp),
      wire_(wire),
      local_(model.parameters(), 0.0f) {
  const bool mine = std::find(replicas_.begin(), replicas_.end(), connector_.rank()) != replicas_.end();
  const bool inside =
      std::all_of(replicas_.begin(), replicas_.end(), [this](int r) { return r >= 0 && r < connector_.size(); });
  if (!mine || !inside || replicas_.size() != dp_.replicas()) {
    throw failure(
        fmt::format("train --check: rank {} would check its buckets against ranks {}, where its reduction "
                    "sums over a data-parallel group of {} ranks including itself",
                    connector_.rank(), fmt::join(replicas_, ","), dp_.replicas()));
  }
}

void BucketCheck::before_reduce(std::size_t bucket) {
  const std::size_t first = dp_.first_element(bucket), n = dp_.buckets()[bucket].elements;
  model_.math().download(local_.data() + first, model_.grads() + first, n * sizeof(float));
}

Communicator& BucketCheck::reductions(Communicator& real) {
  held_.emplace(real);
  return *held_;
}

std::string BucketCheck::describe(int step, std::size_t bucket, std::size_t element, double found, double expected,
                                  double bound) const {
  std::string where = fmt::format("element {}", element);
  const auto& tensors = model_.tensors();
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const std::size_t at = model_.tensor_offset(k);
    if (element >= at && element < at + tensors[k].elements) {
      where += fmt::format(" ({}[{}])", tensors[k].name, element - at);
    }
  }
  return fmt::format(
      "step {}, bucket {}, rank {}, {}: reduced {:.9g}, the replicas' gradients sum to {:.9g} (bound "
      "{:.3g})",
      step, bucket, connector_.rank(), where, found, expected, bound);
}

BucketCheckResult BucketCheck::verify(int step, const ArmedStep& armed) {
  const std::size_t n = model_.parameters();
  std::vector<float> reduced(n);
  model_.math().download(reduced.data(), model_.grads(), n * sizeof(float));
  std::vector<std::pair<std::size_t, ReducedPart>> checked;  // (bucket, a part of it this rank checks)
  for (std::size_t b = 0; b < dp_.buckets().size(); ++b) {
    for (const ReducedPart& p : dp_.reduced_parts(b)) {
      if (p.count > 0) checked.emplace_back(b, p);
    }
  }
  // The same number of exchanges on every rank, whatever part of the model each holds.
  std::size_t rounds = (n + kChunk - 1) / kChunk;
  for (const std::size_t r : allgather_value(connector_, rounds, armed)) rounds = std::max(rounds, r);
  Findings found;
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::size_t from = std::min(n, round * kChunk), to = std::min(n, from + kChunk);
    const Chunk chunk{from, to, exchange(from, to, armed)};
    for (const auto& [bucket, part] : checked) check_part(step, bucket, part, chunk, reduced, found);
  }
  return over_ranks(found, armed);
}

std::vector<std::vector<std::byte>> BucketCheck::exchange(std::size_t from, std::size_t to, const ArmedStep& armed) {
  auto parts = connector_.allgather(std::as_bytes(std::span<const float>(local_.data() + from, to - from)), armed);
  for (const int r : replicas_) {
    if (parts[static_cast<std::size_t>(r)].size() != (to - from) * sizeof(float)) {
      throw failure(fmt::format(
          "train --check: rank {} holds {} gradients from element {} where rank {} holds {}: "
          "replicas of different shapes",
          r, parts[static_cast<std::size_t>(r)].size() / sizeof(float), from, connector_.rank(), to - from));
    }
  }
  return parts;
}

void BucketCheck::check_part(int step, std::size_t bucket, const ReducedPart& part, const Chunk& chunk,
                             const std::vector<float>& reduced, Findings& found) const {
  const std::size_t lo = std::max(chunk.from, part.element), hi = std::min(chunk.to, part.element + part.count);
  for (std::size_t j = lo; j < hi; ++j) {
    double sum = 0, abs_sum = 0;
    for (const int r : replicas_) {
      float v = 0;
      std::memcpy(&v, chunk.parts[static_cast<std::size_t>(r)].data() + (j - chunk.from) * sizeof(float), sizeof v);
      sum += v;
      abs_sum += std::abs(static_cast<double>(v));
    }
    const double value = reduced[part.at + (j - part.element)];
    const double bound = reduction_error_bound(wire_, replicas_.size(), abs_sum);
    if (std::abs(value - sum) <= bound) continue;  // NaN fails too
    ++found.wrong;
    found.buckets.insert(bucket);
    if (found.first.empty()) found.first = describe(step, bucket, j, value, sum, bound);
  }
}

BucketCheckResult BucketCheck::over_ranks(const Findings& found, const ArmedStep& armed) {
  BucketCheckResult out;
  for (const std::int64_t w : allgather_value(connector_, found.wrong, armed)) out.wrong += w;
  for (const std::string& line : allgather_string(connector_, found.first, armed)) {
    if (out.first.empty()) out.first = line;
  }
  const std::vector<std::uint64_t> mine(found.buckets.begin(), found.buckets.end());
  std::set<std::size_t> all;
  for (const auto& part : connector_.allgather(std::as_bytes(std::span<const std::uint64_t>(mine)), armed)) {
    for (std::size_t i = 0; i + sizeof(std::uint64_t) <= part.size(); i += sizeof(std::uint64_t)) {
      std::uint64_t b = 0;
      std::memcpy(&b, part.data() + i, sizeof b);
      all.insert(static_cast<std::size_t>(b));
    }
  }
  out.buckets.assign(all.begin(), all.end());
  if (!out.first.empty()) {
    out.first += fmt::format("; {} gradients wrong, in bucket{} {}", out.wrong, out.buckets.size() == 1 ? "" : "s",
                             bucket_list(out.buckets));
  }
  return out;
}

}  // namespace distbench::train
