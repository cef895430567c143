// The interleaved gate's statistics: the signed-rank test and the Hodges-Lehmann centre of paired differences (exact
// values on small cases, coverage on generated ones), and the comparison of rounds: a real shift under a drift that
// moves whole runs is caught, the same drift without a shift is not, and what cannot be paired is said.
#include "compare/compare_views.hpp"
#include "compare/comparison.hpp"
#include "compare/paired_comparison.hpp"
#include "compare/signed_rank.hpp"
#include "core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace distbench::compare {
namespace {

TEST(SignedRank, ExactPValues) {
  // All 8 of one sign: the most extreme of 2^8 sign patterns, both tails.
  EXPECT_NEAR(signed_rank_p(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}), 2.0 / 256, 1e-12);
  EXPECT_NEAR(signed_rank_p(std::vector<double>{-1, -2, -3, -4, -5, -6, -7, -8}), 2.0 / 256, 1e-12);
  // {-1, 2, 3}: T+ = 2 + 3 = 5; of the 8 subsets of {1, 2, 3} two sum to 5 or more: p = 2 * 2/8.
  EXPECT_NEAR(signed_rank_p(std::vector<double>{-1, 2, 3}), 0.5, 1e-12);
  // Zeros are dropped: the same as the seven non-zero ones.
  EXPECT_NEAR(signed_rank_p(std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7}), 2.0 / 128, 1e-12);
  EXPECT_DOUBLE_EQ(signed_rank_p(std::vector<double>{0, 0}), 1.0);
  EXPECT_DOUBLE_EQ(signed_rank_p(std::vector<double>{}), 1.0);
  // Ties go to the normal approximation: symmetric data is nowhere near significant.
  EXPECT_GT(signed_rank_p(std::vector<double>{-1, 1, -1, 1, -2, 2, -2, 2}), 0.9);
  EXPECT_EQ(min_pairs_to_test(0.01), 8u);  // 2/128 = 0.0156 > 0.01 >= 2/256
  EXPECT_EQ(min_pairs_to_test(0.05), 6u);  // 2/32 = 0.0625 > 0.05 >= 2/64
}

// The mutant of issue 57, kept here only: tied |differences| ranked low (each gets its group's lowest rank instead
// of the mid-rank), the rest as signed_rank_p's normal approximation (zeros dropped, tie and continuity corrections).
double signed_rank_p_ties_ranked_low(std::span<const double> differences) {
  std::vector<double> d;
  for (double x : differences) {
    if (x != 0) d.push_back(x);
  }
  std::sort(d.begin(), d.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  const double n = static_cast<double>(d.size());
  double t_plus = 0, tie_term = 0;
  for (std::size_t i = 0; i < d.size();) {
    std::size_t j = i;
    while (j < d.size() && std::fabs(d[j]) == std::fabs(d[i])) ++j;
    const double t = static_cast<double>(j - i);
    for (std::size_t k = i; k < j; ++k) t_plus += d[k] > 0 ? static_cast<double>(i + 1) : 0.0;
    tie_term += t * t * t - t;
    i = j;
  }
  const double var = n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48;
  const double z = (std::fabs(t_plus - n * (n + 1) / 4) - 0.5) / std::sqrt(var);
  return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

std::vector<double> repeated_differences(std::initializer_list<std::pair<double, int>> values) {
  std::vector<double> out;
  for (const auto& [value, times] : values) out.insert(out.end(), static_cast<std::size_t>(times), value);
  return out;
}

// What a signed-rank test must say of quantized differences; one line per expectation it misses. Exact values: the
// normal approximation with mid-ranks of |d|, zeros dropped (Wilcoxon's convention, scipy's zero_method="wilcox"),
// sigma^2 = n (n + 1) (2n + 1) / 24 - sum(t^3 - t) / 48 and a continuity correction of 1/2 (scipy.stats.wilcoxon with
// correction=True), computed by hand below.
std::vector<std::string> quantized_signed_misses(double (*p_of)(std::span<const double>)) {
  std::vector<std::string> misses;
  const auto expect = [&misses](bool ok, const char* what, double p) {
    if (!ok) misses.push_back(fmt::format("{}: p {}", what, p));
  };
  // No shift: 10 each of +1, -1, +2, -2. n = 40; |d| = 1 ranks 1..20 (mid 10.5), |d| = 2 ranks 21..40 (mid 30.5):
  // T+ = 10 * 10.5 + 10 * 30.5 = 410 = n (n + 1) / 4, p = 1. (Ranked low: T+ = 10 * 1 + 10 * 21 = 220,
  // sigma^2 = 5535 - 2 * 7980 / 48 = 5202.5, z = 2.627, p = 0.0086.)
  const double aa = p_of(repeated_differences({{1, 10}, {-1, 10}, {2, 10}, {-2, 10}}));
  expect(aa == 1.0, "symmetric quantized differences", aa);
  // A shift: 12 of +1, 2 of -1, 6 of +2 (and 2 zeros, dropped). n = 20; |d| = 1 ranks 1..14 (mid 7.5), |d| = 2 ranks
  // 15..20 (mid 17.5): T+ = 12 * 7.5 + 6 * 17.5 = 195 against a mean of 105; ties 14 and 6: sum(t^3 - t) = 2730 + 210;
  // sigma^2 = 20 * 21 * 41 / 24 - 2940 / 48 = 656.25; z = (90 - 0.5) / 25.617 = 3.4937; p = 4.7634e-04.
  // (Ranked low: T+ = 12 * 1 + 6 * 15 = 102, z = 0.0976, p = 0.92.)
  const double shift = p_of(repeated_differences({{0, 2}, {1, 12}, {-1, 2}, {2, 6}}));
  expect(std::fabs(shift - 0.0004763362929988065) < 1e-12, "a quantized shift", shift);
  return misses;
}

TEST(SignedRank, QuantizedDifferencesGetMidRanksAndTheTieCorrection) {
  EXPECT_EQ(quantized_signed_misses(signed_rank_p), std::vector<std::string>{});
  const auto misses = quantized_signed_misses(signed_rank_p_ties_ranked_low);
  EXPECT_EQ(misses.size(), 2u) << fmt::format("{}", fmt::join(misses, "; "));
}

TEST(SignedRank, HodgesLehmannCentre) {
  // Walsh averages of {1, 2, 3}: 1, 1.5, 2, 2, 2.5, 3; their median 2; too few for 99%: the whole range.
  const CentreEstimate c = hodges_lehmann_centre(std::vector<double>{1, 2, 3}, 0.99);
  EXPECT_DOUBLE_EQ(c.estimate, 2.0);
  EXPECT_DOUBLE_EQ(c.low, 1.0);
  EXPECT_DOUBLE_EQ(c.high, 3.0);
  // One far outlier moves the estimate by a rank, not by its size.
  const CentreEstimate robust = hodges_lehmann_centre(std::vector<double>{1, 1.1, 0.9, 1.05, 0.95, 1000}, 0.9);
  EXPECT_LT(robust.estimate, 1.2);
  // The interval covers the true centre at least as often as it says (generated symmetric noise, 10 pairs).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0, 1);
  int covered = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> d;
    for (int i = 0; i < 10; ++i) d.push_back(0.1 + 0.05 * z(rng));
    const CentreEstimate e = hodges_lehmann_centre(d, 0.95);
    EXPECT_LE(e.low, e.estimate);
    EXPECT_LE(e.estimate, e.high);
    if (e.low <= 0.1 && 0.1 <= e.high) ++covered;
  }
  EXPECT_GE(covered, trials * 93 / 100) << covered << " of " << trials;
}

// One report per run: one case per size with `n` samples around each median (us), 2% noise.
ParsedReport run_of(std::mt19937_64& rng, const std::vector<double>& medians_us, std::size_t n = 10) {
  std::normal_distribution<double> z(0, 1);
  ParsedReport r;
  r.schema_version = 2;
  r.benchmark = "collective";
  r.info.world_size = 2;
  r.info.backend = "mpi";
  r.info.status = "complete";
  r.layout.params = {"collective", "bytes"};
  r.layout.metrics = {{"time_us", "us", ""}, {"algbw_gbps", "GB/s", ""}, {"busbw_gbps", "GB/s", ""}};
  std::int64_t bytes = 1024;
  for (double m : medians_us) {
    Record rec;
    rec.kind = "collective";
    rec.set("collective", std::string("allreduce")).set("bytes", bytes);
    PhaseStats time;
    time.name = "time";
    for (std::size_t i = 0; i < n; ++i) time.samples.push_back(m * std::exp(0.02 * z(rng)) * 1e-6);
    rec.phases.push_back(time);
    rec.set_metric("algbw_gbps", 1.0).set_metric("busbw_gbps", 1.0);
    r.records.push_back(rec);
    bytes *= 2;
  }
  return r;
}

// Rounds whose whole runs drift by up to +-30% (another tenant comes and goes); the candidate is `slowdown` slower.
struct Drifting {
  std::vector<ParsedReport> baseline, candidate;
};
Drifting drifting_rounds(std::uint64_t seed, std::size_t rounds, double slowdown) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> drift(0.7, 1.3);
  std::normal_distribution<double> z(0, 1);
  Drifting d;
  for (std::size_t i = 0; i < rounds; ++i) {
    const double machine = drift(rng);  // both runs of a round see nearly the same machine
    d.baseline.push_back(run_of(rng, {100 * machine, 400 * machine}));
    const double next = machine * std::exp(0.02 * z(rng));
    d.candidate.push_back(run_of(rng, {100 * next * slowdown, 400 * next * slowdown}));
  }
  return d;
}

TEST(PairedComparison, CatchesAShiftUnderDriftThatPoolingCannot) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Drifting slow = drifting_rounds(seed, 10, 1.10);
    const Comparison c = compare_rounds(slow.baseline, slow.candidate, {});
    ASSERT_EQ(c.cases.size(), 2u);
    for (const CaseComparison& k : c.cases) {
      EXPECT_EQ(k.verdict, Verdict::slower) << "seed " << seed << ": " << k.reason;
      EXPECT_NEAR(k.change, 0.10, 0.03) << k.reason;
      EXPECT_LE(k.change_low, k.change);
      EXPECT_GE(k.change_high, k.change);
      EXPECT_EQ(k.round_ratios.size(), 10u);
      EXPECT_NE(k.reason.find("paired over 10 rounds"), std::string::npos) << k.reason;
    }
    EXPECT_TRUE(c.regressed());
    EXPECT_EQ(c.rounds, 10u);
    if (seed == 1) {  // the page describes the test that ran: the signed-rank test over rounds, not Mann-Whitney
      const std::string html = compare_html(c, {{"a"}, "b"});
      EXPECT_NE(html.find("Wilcoxon signed-rank test on the rounds"), std::string::npos) << html;
      EXPECT_EQ(html.find("Mann-Whitney"), std::string::npos) << html;
    }
    // The same runs pooled as a window of reports: the drift swamps the shift, and the gate cannot call it.
    const Comparison pooled = compare_reports(slow.baseline, slow.candidate, {});
    EXPECT_FALSE(pooled.regressed()) << "seed " << seed;
  }
  // The same drift, no shift: no false alarm in 20 gates.
  for (std::uint64_t seed = 100; seed < 120; ++seed) {
    const Drifting same = drifting_rounds(seed, 10, 1.0);
    const Comparison c = compare_rounds(same.baseline, same.candidate, {});
    EXPECT_FALSE(c.regressed()) << "seed " << seed << ": " << c.cases[0].reason << "; " << c.cases[1].reason;
    for (const CaseComparison& k : c.cases) EXPECT_FALSE(k.reason.empty());
  }
}

TEST(PairedComparison, WhatCannotBePairedIsSaid) {
  // Too few rounds to reach alpha 0.01: UNKNOWN, and with nothing else the gate could not judge.
  const Drifting few = drifting_rounds(3, 5, 1.5);
  try {
    compare_rounds(few.baseline, few.candidate, {});
    FAIL() << "5 rounds judged at alpha 0.01";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::not_judged);
    EXPECT_NE(std::string(e.what()).find("too few rounds to test: 5"), std::string::npos) << e.what();
  }
  // A case measured in some rounds only is UNKNOWN, naming the run that lacks it; the others are judged.
  Drifting gappy = drifting_rounds(4, 10, 1.0);
  gappy.candidate[3].records.pop_back();
  const Comparison c = compare_rounds(gappy.baseline, gappy.candidate, {});
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].verdict, Verdict::same);
  EXPECT_EQ(c.cases[1].verdict, Verdict::unknown);
  EXPECT_NE(c.cases[1].reason.find("missing or skipped in round 4's candidate run"), std::string::npos)
      << c.cases[1].reason;
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "1 case could not be paired or tested; see each case's reason");
  // Unequal sides, another benchmark, a run that did not complete: refused.
  EXPECT_THROW(compare_rounds(gappy.baseline, {gappy.candidate.begin(), gappy.candidate.end() - 1}, {}), Error);
  Drifting other = drifting_rounds(5, 10, 1.0);
  other.candidate[2].benchmark = "latency";
  try {
    compare_rounds(other.baseline, other.candidate, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
  }
  Drifting cut = drifting_rounds(6, 10, 1.0);
  cut.baseline[7].info.status = "interrupted";
  try {
    compare_rounds(cut.baseline, cut.candidate, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::not_judged);
    EXPECT_NE(std::string(e.what()).find("baseline run 8 is interrupted"), std::string::npos) << e.what();
  }
}

// A 3x regression must not pass because its case is missing or skipped in one round: the gate fails closed, naming
// the case and the runs that lack it, --allow-missing or not (that passes cases the candidate never measured).
TEST(PairedComparison, ACaseMissingOrSkippedInOneRoundFailsClosed) {
  for (const bool allow_missing : {false, true}) {
    CompareOptions options;
    options.allow_missing = allow_missing;
    Drifting slow = drifting_rounds(8, 10, 3.0);
    slow.candidate[4].records[1].status = "skipped";  // the 2 KiB case, skipped in round 5's candidate run
    slow.candidate[4].records[1].skip_reason = "not enough memory";
    const Comparison skipped = compare_rounds(slow.baseline, slow.candidate, options);
    EXPECT_EQ(skipped.slower, 1u);  // the first case, measured everywhere, is judged
    EXPECT_EQ(skipped.cases[1].verdict, Verdict::unknown);
    EXPECT_NE(skipped.not_judged.find("1 case was not measured in every round: 2 KiB (not in round 5's candidate "
                                      "run)"),
              std::string::npos)
        << skipped.not_judged;
    // Only that case regressed: without it the gate would pass a 3x slowdown.
    Drifting hidden = drifting_rounds(9, 10, 1.0);
    for (std::size_t i = 0; i < hidden.candidate.size(); ++i) {
      for (PhaseStats& p : hidden.candidate[i].records[1].phases) {
        for (double& x : p.samples) x *= 3;
      }
    }
    hidden.baseline[2].records.pop_back();
    hidden.candidate[6].records.pop_back();
    const Comparison c = compare_rounds(hidden.baseline, hidden.candidate, options);
    EXPECT_FALSE(c.regressed());
    EXPECT_EQ(c.cases[1].verdict, Verdict::unknown);
    EXPECT_NE(c.not_judged.find("2 KiB (not in round 3's baseline run and round 7's candidate run)"), std::string::npos)
        << c.not_judged;
  }
}

// Wrong elements in any round, of either side, fail the gate with their own code, naming the run and the cases.
TEST(PairedComparison, WrongElementsInARoundFailTheGate) {
  for (const bool on_baseline : {false, true}) {
    Drifting d = drifting_rounds(10, 10, 1.0);
    ParsedReport& run = on_baseline ? d.baseline[5] : d.candidate[5];
    for (Record& r : run.records) r.set_metric("wrong", 1000);
    try {
      compare_rounds(d.baseline, d.candidate, {});
      ADD_FAILURE() << "judged with wrong elements";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::wrong_results) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string(on_baseline ? "baseline" : "candidate") +
                                           " run 6 counts wrong elements: 1 KiB (1000 wrong) and 2 KiB (1000 wrong)"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace distbench::compare
