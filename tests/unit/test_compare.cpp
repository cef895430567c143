// distbench compare: the rank statistics on generated samples with known properties (seeded, so every run sees the
// same draws), and the comparison of reports: the run as the unit (the test on the runs' medians, too few runs failing
// closed, --threshold-only), matching, verdicts, MISSING/NEW, filters, refusals.
#include "compare/case_filter.hpp"
#include "compare/compare_views.hpp"
#include "compare/comparison.hpp"
#include "compare/rank_tests.hpp"
#include "core/error.hpp"
#include "tests/support/sanitizers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace distbench::compare {
namespace {

// n samples around `median_us` with multiplicative (log-normal) noise of `noise` (e.g. 0.05), and optionally a
// heavy tail: a fraction of samples preempted, 2-5 times slower.
std::vector<double> draw(std::mt19937_64& rng, std::size_t n, double median_us, double noise, double tail = 0) {
  std::normal_distribution<double> z(0, 1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) {
    double x = median_us * std::exp(noise * z(rng));
    if (u(rng) < tail) x *= 2 + 3 * u(rng);
    out.push_back(x);
  }
  return out;
}

TEST(RankTests, ExactPValuesOfSmallSamples) {
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  EXPECT_NEAR(mann_whitney_p(a, b), 2.0 / 20, 1e-12);  // the most extreme of C(6,3) = 20 arrangements, both tails
  const std::vector<double> c = {1, 2, 3, 4, 5}, d = {6, 7, 8, 9, 10};
  EXPECT_NEAR(mann_whitney_p(c, d), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_p(d, c), 2.0 / 252, 1e-12);
  const std::vector<double> e = {1, 3, 5}, f = {2, 4, 6};  // U = 3 of 9: P(U <= 3) = 7/20
  EXPECT_NEAR(mann_whitney_p(e, f), 2 * 7.0 / 20, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_p(std::vector<double>{}, d), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_p(std::vector<double>(8, 1.0), std::vector<double>(8, 1.0)), 1.0);  // all tied
}

// The mutant of issue 57, kept here only: tied samples ranked low (each value of a tied group gets the group's lowest
// rank instead of its mid-rank), the rest as mann_whitney_p's normal approximation (tie and continuity corrections).
double mann_whitney_p_ties_ranked_low(std::span<const double> a, std::span<const double> b) {
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  for (double x : a) pooled.emplace_back(x, true);
  for (double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    for (std::size_t k = i; k < j; ++k) rank_sum_a += pooled[k].second ? static_cast<double>(i + 1) : 0.0;
    tie_term += t * t * t - t;
    i = j;
  }
  const double m = static_cast<double>(a.size()), n = static_cast<double>(b.size()), total = m + n;
  const double u = rank_sum_a - m * (m + 1) / 2;
  const double var = m * n / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  const double z = (std::fabs(u - m * n / 2) - 0.5) / std::sqrt(var);
  return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

std::vector<double> repeated_samples(std::initializer_list<std::pair<double, int>> values) {
  std::vector<double> out;
  for (const auto& [value, times] : values) out.insert(out.end(), static_cast<std::size_t>(times), value);
  return out;
}

// What a Mann-Whitney test must say of quantized samples (timings on a 1 us clock: few distinct values, many ties);
// one line per expectation it misses. The exact values are the normal approximation with mid-ranks and
// sigma^2 = m n / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))) and a continuity correction of 1/2: the formula of
// scipy.stats.mannwhitneyu(method="asymptotic", use_continuity=True), computed by hand below.
std::vector<std::string> quantized_misses(double (*p_of)(std::span<const double>, std::span<const double>)) {
  std::vector<std::string> misses;
  const auto expect = [&misses](bool ok, const char* what, double p) {
    if (!ok) misses.push_back(fmt::format("{}: p {}", what, p));
  };
  // A real shift: 11 and 12 us, 10 of each, against 10 and 11 us. Pooled (N = 40): 10 us ranks 1..10 (mid 5.5),
  // 11 us ranks 11..30 (mid 20.5), 12 us ranks 31..40 (mid 35.5). R_a = 10 * 20.5 + 10 * 35.5 = 560,
  // U = 560 - 20 * 21 / 2 = 350 against a mean of 200; ties 10, 20, 10: sum(t^3 - t) = 990 + 7980 + 990 = 9960;
  // sigma^2 = 400 / 12 * (41 - 9960 / 1560) = 1153.846; z = (150 - 0.5) / 33.968 = 4.4012; p = 1.0767e-05.
  // (Ranked low: R_a = 10 * 11 + 10 * 31 = 420, U = 210, z = 0.2797, p = 0.7797: FASTER would become SAME.)
  const auto base = repeated_samples({{11, 10}, {12, 10}}), faster = repeated_samples({{10, 10}, {11, 10}});
  const double shift = p_of(base, faster);
  expect(std::fabs(shift - 1.0767327440434884e-05) < 1e-12, "a shift of 1 us on a 1 us clock", shift);
  // A/A, 20 each of 10, 11, 12 us a side: mid-ranks give U = 1800 = its mean exactly, p = 1. (Ranked low:
  // R_a = 20 * 1 + 20 * 41 + 20 * 81 = 2460, U = 630, z = 6.51, p = 7.5e-11.)
  const auto same = repeated_samples({{10, 20}, {11, 20}, {12, 20}});
  const double aa = p_of(same, same);
  expect(aa == 1.0, "A/A with heavy ties", aa);
  // A/A, 3, 4 and 3 of 10, 11, 12 us: U = 50, its mean, p = 1. (Ranked low: U = 21, sigma^2 = 154.737, p = 0.0220.)
  const auto small = repeated_samples({{10, 3}, {11, 4}, {12, 3}});
  const double aa_small = p_of(small, small);
  expect(aa_small == 1.0, "A/A of 10 samples with ties", aa_small);
  return misses;
}

// Tied samples get mid-ranks and the tie correction: a quantized A/A is never significant, a quantized shift is.
TEST(RankTests, QuantizedSamplesGetMidRanksAndTheTieCorrection) {
  EXPECT_EQ(quantized_misses(mann_whitney_p), std::vector<std::string>{});
  // The mutant misses all three (the "28 FASTER become 28 SAME", and a tied A/A at p 1e-10).
  const auto misses = quantized_misses(mann_whitney_p_ties_ranked_low);
  EXPECT_EQ(misses.size(), 3u) << fmt::format("{}", fmt::join(misses, "; "));
}

// The implicit pairwise differences agree with all m * n of them sorted, ties and negative values included.
TEST(RankTests, PairwiseDifferencesMatchTheirSortedList) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> small(0, 6);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t m = 1 + trial % 7, n = 1 + (trial * 3) % 11;
    std::vector<double> a, b;
    for (std::size_t i = 0; i < m; ++i) a.push_back(trial % 2 ? small(rng) : draw(rng, 1, 5, 0.5)[0] - 5);
    for (std::size_t j = 0; j < n; ++j) b.push_back(trial % 2 ? small(rng) : draw(rng, 1, 5, 0.5)[0] - 5);
    std::vector<double> all;
    for (double x : a) {
      for (double y : b) all.push_back(y - x);
    }
    std::sort(all.begin(), all.end());
    const PairwiseDifferences d(a, b);
    ASSERT_EQ(d.count(), all.size());
    for (std::uint64_t k = 1; k <= all.size(); ++k) EXPECT_EQ(d.kth(k), all[k - 1]) << "trial " << trial << " k " << k;
  }
}

// The shift of two samples of 200,000 each (4e10 differences, 320 GB were they formed) takes memory of the samples.
TEST(RankTests, HodgesLehmannOfLargeSamplesNeverFormsTheDifferences) {
  std::mt19937_64 rng(11);
  const auto a = draw(rng, 200000, 100, 0.05);
  auto b = draw(rng, 200000, 100, 0.05);
  for (double& x : b) x *= 1.1;
  std::vector<double> la, lb;
  for (double x : a) la.push_back(std::log(x));
  for (double x : b) lb.push_back(std::log(x));
  const ShiftEstimate s = hodges_lehmann_shift(la, lb, 0.99);
  EXPECT_NEAR(std::exp(s.estimate), 1.1, 0.002);
  EXPECT_LT(s.low, s.estimate);
  EXPECT_GT(s.high, s.estimate);
}

TEST(RankTests, HodgesLehmannFindsAShiftAndCoversIt) {
  std::mt19937_64 rng(7);
  const auto a = draw(rng, 20, 100, 0.02);
  std::vector<double> b = a;
  for (double& x : b) x += 10;
  const ShiftEstimate s = hodges_lehmann_shift(a, b, 0.99);
  EXPECT_NEAR(s.estimate, 10, 1e-9);
  EXPECT_LE(s.low, 10);
  EXPECT_GE(s.high, 10);
  EXPECT_LT(s.low, s.high);
}

constexpr int kDraws = 2000;
constexpr double kAlpha = 0.01;

// The test's false-positive rate on equal distributions, light and heavy-tailed, stays at or below alpha.
TEST(RankTests, FalsePositiveRateIsAtMostAlpha) {
  for (double tail : {0.0, 0.1}) {
    std::mt19937_64 rng(tail == 0 ? 11 : 12);
    int rejected = 0;
    for (int i = 0; i < kDraws; ++i) {
      const auto a = draw(rng, 20, 50, 0.05, tail), b = draw(rng, 20, 50, 0.05, tail);
      if (mann_whitney_p(a, b) < kAlpha) ++rejected;
    }
    std::printf("equal distributions, tail %.1f: p < %.2f in %d of %d draws\n", tail, kAlpha, rejected, kDraws);
    EXPECT_LE(rejected, kDraws * kAlpha) << "tail " << tail << ": " << rejected << " of " << kDraws;
  }
}

// Reports of one collective case per size, with the given samples (us) per size.
ParsedReport report_of(const std::vector<std::vector<double>>& samples_us, std::uint64_t first_bytes = 1024) {
  ParsedReport r;
  r.schema_version = 2;
  r.benchmark = "collective";
  r.info.world_size = 2;
  r.info.backend = "mpi";
  r.info.status = "complete";
  r.layout.params = {"collective", "dtype", "placement", "bytes", "count"};
  r.layout.metrics = {{"time_us", "us", ""}, {"algbw_gbps", "GB/s", ""}, {"busbw_gbps", "GB/s", ""}};
  std::uint64_t bytes = first_bytes;
  for (const auto& us : samples_us) {
    Record rec;
    rec.kind = "collective";
    rec.set("collective", std::string("allreduce"))
        .set("dtype", std::string("float32"))
        .set("placement", std::string("out-of-place"))
        .set("bytes", static_cast<std::int64_t>(bytes))
        .set("count", static_cast<std::int64_t>(bytes / 4));
    PhaseStats time;
    time.name = "time";
    for (double x : us) time.samples.push_back(x * 1e-6);
    rec.phases.push_back(time);
    rec.set_metric("algbw_gbps", 1.0).set_metric("busbw_gbps", 1.0);  // bus factor 1
    r.records.push_back(rec);
    bytes *= 2;
  }
  return r;
}

// k runs with the same samples that are still k runs (each its own start time): what a test of the statistics needs,
// where a run given twice would be refused (Compare.ARunGivenTwiceOnOneSideIsRefused).
std::vector<ParsedReport> copies_of(std::size_t k, const ParsedReport& run) {
  std::vector<ParsedReport> runs(k, run);
  for (std::size_t i = 0; i < k; ++i) runs[i].info.start_time = fmt::format("2026-01-01T00:00:{:02}Z", i);
  return runs;
}

// k runs (a report each) of the given samples per size, run i's scaled by 1 + spread * (i - (k - 1) / 2): distinct run
// medians, as runs of one build on one machine have.
std::vector<ParsedReport> runs_of(const std::vector<std::vector<double>>& samples_us, std::size_t k = 5,
                                  double spread = 0.004) {
  std::vector<ParsedReport> runs;
  for (std::size_t i = 0; i < k; ++i) {
    const double scale = 1 + spread * (static_cast<double>(i) - static_cast<double>(k - 1) / 2);
    auto scaled = samples_us;
    for (auto& size : scaled) {
      for (double& x : size) x *= scale;
    }
    runs.push_back(report_of(scaled));
  }
  return runs;
}

// k runs of one case: each run's level drawn around `median_us` with run-to-run noise `run_noise` (log-normal), its n
// samples around that level with `noise`.
std::vector<ParsedReport> drawn_runs(std::mt19937_64& rng, std::size_t k, double median_us, double run_noise,
                                     double noise = 0.01, std::size_t n = 20) {
  std::normal_distribution<double> z(0, 1);
  std::vector<ParsedReport> runs;
  for (std::size_t i = 0; i < k; ++i) {
    const double level = median_us * std::exp(run_noise * z(rng));
    runs.push_back(report_of({draw(rng, n, level, noise)}));
  }
  return runs;
}

// k runs of `sizes` cases whose levels are each off by a uniform factor in [1 - offset, 1 + offset] times `shift`.
std::vector<ParsedReport> offset_runs(std::mt19937_64& rng, std::size_t k, std::size_t sizes, double shift,
                                      double offset) {
  std::uniform_real_distribution<double> level(1 - offset, 1 + offset);
  std::vector<ParsedReport> runs;
  for (std::size_t i = 0; i < k; ++i) {
    const double machine = level(rng) * shift;  // one machine state for the whole run
    std::vector<std::vector<double>> samples;
    for (std::size_t j = 0; j < sizes; ++j) samples.push_back(draw(rng, 20, 100.0 * (j + 1) * machine, 0.005));
    runs.push_back(report_of(samples));
  }
  return runs;
}

// Five runs a side of the given samples (runs_of), judged.
Verdict verdict_of(const std::vector<double>& base, const std::vector<double>& cand, CompareOptions o = {}) {
  return compare_reports(runs_of({base}), runs_of({cand}), o).cases.at(0).verdict;
}

CompareOptions threshold_only() {
  CompareOptions o;
  o.threshold_only = true;
  return o;
}

// Shifts of 2 %, 20 % and 50 %, 5 runs a side, each run's level off by 2 % (log-normal) and its 20 samples by 5 %: the
// 2 % one is below the 5 % threshold (SAME), the 20 % one is caught at least 90 % of the time, the 50 % one always;
// equal runs are almost never SLOWER.
TEST(Compare, VerdictRatesOnKnownShifts) {
  if (test_support::under_sanitizers()) GTEST_SKIP() << test_support::kVolumeSkip;
  struct Case {
    double shift, min_slower, max_slower;
  };
  for (const Case k : {Case{0.0, 0.0, kAlpha}, Case{0.02, 0.0, 0.05}, Case{0.20, 0.90, 1.0}, Case{0.50, 1.0, 1.0}}) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(100 + k.shift * 1000));
    const int draws = 500;
    int slower = 0;
    for (int i = 0; i < draws; ++i) {
      const auto base = drawn_runs(rng, 5, 50, 0.02, 0.05), cand = drawn_runs(rng, 5, 50 * (1 + k.shift), 0.02, 0.05);
      if (compare_reports(base, cand, {}).cases.at(0).verdict == Verdict::slower) ++slower;
    }
    const double rate = static_cast<double>(slower) / draws;
    std::printf("shift %+.0f%%, 5 runs a side (2%% run-to-run, 5%% sample noise): SLOWER in %d of %d draws\n",
                k.shift * 100, slower, draws);
    EXPECT_GE(rate, k.min_slower) << "shift " << k.shift;
    EXPECT_LE(rate, k.max_slower) << "shift " << k.shift;
  }
}

// The same on reports: a 10 us shift on a 10 us clock (110 and 120 us against 100 and 110 us) is FASTER, five runs a
// side; run medians tied within a side get the tie correction too.
TEST(Compare, QuantizedShiftIsFaster) {
  const auto base = repeated_samples({{110, 10}, {120, 10}}), cand = repeated_samples({{100, 10}, {110, 10}});
  EXPECT_EQ(verdict_of(base, cand), Verdict::faster);
  EXPECT_EQ(verdict_of(cand, base), Verdict::slower);
  const std::vector<ParsedReport> tied_base = copies_of(5, report_of({base})),
                                  tied_cand = copies_of(5, report_of({cand}));
  EXPECT_EQ(compare_reports(tied_base, tied_cand, {}).cases.at(0).verdict, Verdict::faster);
}

TEST(Compare, TheAbsoluteFloorAndTheDirection) {
  std::mt19937_64 rng(5);
  const auto base = draw(rng, 20, 0.5, 0.01);  // 0.5 us
  std::vector<double> slow = base;
  for (double& x : slow) x *= 1.5;  // +50 %, but only 0.25 us: below the default 1 us floor
  EXPECT_EQ(verdict_of(base, slow), Verdict::same);
  CompareOptions no_floor;
  no_floor.floor_us = 0;
  EXPECT_EQ(verdict_of(base, slow, no_floor), Verdict::slower);
  EXPECT_EQ(verdict_of(slow, base, no_floor), Verdict::faster);
  no_floor.metric = CompareMetric::busbw;  // the same times, judged as bandwidth: still slower
  const Comparison c = compare_reports(runs_of({base}), runs_of({slow}), no_floor);
  EXPECT_EQ(c.cases[0].verdict, Verdict::slower);
  EXPECT_NEAR(c.cases[0].change, 1 / 1.5 - 1, 1e-9);  // bandwidth fell by a third
  EXPECT_LT(c.cases[0].change_low, c.cases[0].change_high);
}

// A case measured in too few runs for the test at alpha is UNKNOWN, its reason naming the runs (here a case the fifth
// baseline run lacks: 4 against 5 runs, whose smallest possible p is 2 / C(9, 4) = 0.0159); when no case is left to
// judge, the gate fails closed.
TEST(Compare, ACaseInTooFewRunsIsUnknown) {
  const std::vector<double> five = {10, 11, 12, 13, 14};
  auto base = runs_of({five, five});
  base[4] = report_of({five});  // the fifth baseline run measured 1 KiB only
  const Comparison c = compare_reports(base, runs_of({five, five}), {});
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].verdict, Verdict::same);
  EXPECT_EQ(c.cases[1].verdict, Verdict::unknown);
  EXPECT_EQ(c.cases[1].reason,
            "too few runs to test: measured in 4 baseline runs and 5 candidate runs, whose smallest possible p is "
            "0.0159; a test of the runs' medians at alpha 0.01 needs 5 runs a side");
  EXPECT_TRUE(std::isnan(c.cases[1].p));
  EXPECT_EQ(c.unknown, 1u);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "1 case could not be tested; see each case's reason (a test of the runs' medians at alpha 0.01 needs 5 "
            "runs a side)");
  // A run with a single sample still has a median: the run, not its sample count, is the unit.
  EXPECT_EQ(compare_reports(runs_of({{10}}), runs_of({{20}}), {}).cases.at(0).verdict, Verdict::slower);
  // With nothing but UNKNOWN cases the gate could not judge anything: it fails closed.
  base = runs_of({five, five});
  base[4] = report_of({});
  try {
    compare_reports(base, runs_of({five, five}, 5, 0.004), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::not_judged);
    EXPECT_NE(std::string(e.what()).find("nothing could be judged: 2 of 2 cases with too few runs to test"),
              std::string::npos)
        << e.what();
  }
}

// Every verdict names the rule that decided it.
TEST(Compare, EveryVerdictSaysWhy) {
  std::mt19937_64 rng(31);
  const auto base = draw(rng, 20, 0.5, 0.01);  // 0.5 us
  std::vector<double> slow = base;
  for (double& x : slow) x *= 2.448;  // +144.8 %, but 0.72 us: the floor decides
  const auto floor = compare_reports(runs_of({base}), runs_of({slow}), {}).cases.at(0);
  EXPECT_EQ(floor.verdict, Verdict::same);
  EXPECT_NE(floor.reason.find("+144.8%"), std::string::npos) << floor.reason;
  EXPECT_NE(floor.reason.find("under the 1 us floor"), std::string::npos) << floor.reason;
  CompareOptions no_floor;
  no_floor.floor_us = 0;
  const auto slower = compare_reports(runs_of({base}), runs_of({slow}), no_floor).cases.at(0);
  EXPECT_EQ(slower.verdict, Verdict::slower);
  EXPECT_NE(slower.reason.find("beyond the 5% threshold (p 0.0079 < 0.01 over 5 and 5 runs"), std::string::npos)
      << slower.reason;
  const auto faster = compare_reports(runs_of({slow}), runs_of({base}), no_floor).cases.at(0);
  EXPECT_EQ(faster.verdict, Verdict::faster);
  EXPECT_NE(faster.reason.find("-59.2%"), std::string::npos) << faster.reason;
  // the same distribution: not significant
  const auto same = compare_reports(drawn_runs(rng, 5, 0.5, 0.02), drawn_runs(rng, 5, 0.5, 0.02), no_floor).cases[0];
  EXPECT_EQ(same.verdict, Verdict::same);
  EXPECT_NE(same.reason.find("not significant: p "), std::string::npos) << same.reason;
  // significant but small: the threshold decides
  std::vector<double> a, b;
  for (int i = 0; i < 20; ++i) {
    a.push_back(100 + i * 0.01);
    b.push_back(102 + i * 0.01);
  }
  const auto small = compare_reports(runs_of({a}), runs_of({b}), no_floor).cases[0];
  EXPECT_EQ(small.verdict, Verdict::same);
  EXPECT_NE(small.reason.find("within the 5% threshold"), std::string::npos) << small.reason;
  EXPECT_NE(small.reason.find("significant (p 0.0079 over 5 and 5 runs)"), std::string::npos) << small.reason;
  // every format carries the reason
  const Comparison c = compare_reports(runs_of({base}), runs_of({slow}), {});
  const CompareSources sources{{"base.json"}, "cand.json"};
  for (const std::string& text : {compare_text(c), compare_markdown(c, sources), compare_json(c, sources),
                                  compare_junit(c, sources), compare_html(c, sources)}) {
    EXPECT_NE(text.find("under the 1 us floor"), std::string::npos) << text;
  }
}

// A gate that could not judge fails: reports that did not complete, no case in common, a filter on no field, and
// (without --allow-missing) cases the candidate lacks.
TEST(Compare, TheGateFailsClosed) {
  const std::vector<double> s = {10, 11, 12, 13, 14, 15};
  auto not_judged = [](const std::function<void()>& f, const std::string& words) {
    try {
      f();
      ADD_FAILURE() << "judged: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::not_judged) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  ParsedReport interrupted = report_of({s});
  interrupted.info.status = "interrupted";
  interrupted.info.error = "interrupted by signal 2 (SIGINT)";
  not_judged([&] { compare_reports({report_of({s})}, interrupted, {}); },
             "candidate run 1 is interrupted (interrupted by signal 2 (SIGINT))");
  not_judged([&] { compare_reports({interrupted}, report_of({s}), {}); }, "baseline 1 is interrupted");
  // another collective: every case on one side only
  auto alltoall = runs_of({s, s});
  for (ParsedReport& run : alltoall) {
    for (Record& r : run.records) r.set("collective", std::string("alltoall"));
  }
  not_judged(
      [&] {
        compare_reports(alltoall, runs_of({s, s}), {});
      },
      "nothing to compare: no case is in both the baseline and the candidate (2 only in the baseline, 2 only in "
      "the candidate)");
  CompareOptions filtered;
  filtered.filter = parse_filter("bytes>1G");
  not_judged([&] { compare_reports(runs_of({s}), runs_of({s}), filtered); },
             "nothing to compare: neither side has a measured case (after --filter)");
  // a misspelt field
  filtered.filter = parse_filter("dtyp=float32");
  try {
    compare_reports({report_of({s})}, report_of({s}), filtered);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("--filter: no case has a field 'dtyp'; the fields are bytes, collective"),
              std::string::npos)
        << e.what();
  }
  // a case the candidate lacks: compared, but not judged unless allowed
  const Comparison missing = compare_reports(runs_of({s, s}), runs_of({s}), {});
  EXPECT_EQ(missing.missing, 1u);
  EXPECT_NE(missing.not_judged.find("1 baseline case is not in the candidate (first: 2 KiB)"), std::string::npos)
      << missing.not_judged;
  EXPECT_NE(compare_text(missing).find("# verdict: NOT JUDGED"), std::string::npos);
  EXPECT_NE(compare_junit(missing, {{"b"}, "c"}).find("type=\"MISSING\""), std::string::npos);
  CompareOptions allow;
  allow.allow_missing = true;
  const Comparison allowed = compare_reports(runs_of({s, s}), runs_of({s}), allow);
  EXPECT_TRUE(allowed.not_judged.empty());
  EXPECT_NE(compare_text(allowed).find("# verdict: OK"), std::string::npos);
}

// A report that counts wrong elements, on either side, in any run, fails the gate with the code of wrong results,
// naming the run and its cases; a filter that leaves those cases out judges the rest; unchecked cases (NaN) pass.
TEST(Compare, WrongElementsOnEitherSideFailTheGate) {
  const std::vector<double> s = {10, 11, 12, 13, 14, 15};
  ParsedReport wrong = report_of({s, s, s, s, s});
  for (Record& r : wrong.records) r.set_metric("wrong", 1000);
  wrong.records[0].set_metric("wrong", 0);
  auto refused = [](const std::function<void()>& f, const std::string& words) {
    try {
      f();
      ADD_FAILURE() << "judged: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::wrong_results) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  const ParsedReport right = report_of({s, s, s, s, s});
  refused([&] { compare_reports({right}, wrong, {}); },
          "candidate run 1 counts wrong elements: 2 KiB (1000 wrong), 4 KiB (1000 wrong), 8 KiB (1000 wrong) and 1 "
          "more case; a run whose results are wrong");
  refused([&] { compare_reports({right, wrong}, right, {}); }, "baseline 2 counts wrong elements: 2 KiB");
  refused([&] { compare_reports({right}, {right, wrong}, {}); }, "candidate run 2 counts wrong elements");
  CompareOptions first_only;
  first_only.filter = parse_filter("bytes<=1K");
  const std::vector<ParsedReport> rights = copies_of(5, right), wrongs = copies_of(5, wrong);
  EXPECT_NO_THROW(compare_reports(rights, wrongs, first_only));
  ParsedReport unchecked = right;
  for (Record& r : unchecked.records) r.set_metric("wrong", kNotMeasured);
  const std::vector<ParsedReport> uncheckeds = copies_of(5, unchecked);
  EXPECT_NO_THROW(compare_reports(uncheckeds, uncheckeds, {}));
  // A run's wrong elements say more than its count of runs: exit 3 before the too-few-runs refusal.
  refused([&] { compare_reports({right}, wrong, {}); }, "candidate run 1 counts wrong elements");
}

// Reports no statistic may judge: a sample that is no time, a case twice in one report.
TEST(Compare, SamplesThatAreNoTimeAndDuplicateCasesAreRefused) {
  const std::vector<double> s = {10, 11, 12, 13, 14, 15};
  for (double bad : {std::nan(""), 0.0, -3.0, std::numeric_limits<double>::infinity()}) {
    std::vector<double> damaged = s;
    damaged[2] = bad;
    try {
      std::vector<ParsedReport> cands = copies_of(5, report_of({s}));
      cands[0] = report_of({damaged});
      compare_reports(copies_of(5, report_of({s})), cands, {});
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("candidate run 1: case 1 KiB has sample 3 = "), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("not a positive time"), std::string::npos) << e.what();
    }
  }
  ParsedReport twice = report_of({s});
  twice.records.push_back(twice.records[0]);
  for (double& x : twice.records[1].phases[0].samples) x *= 10;  // a slower copy beside the real one
  try {
    std::vector<ParsedReport> bases = copies_of(5, report_of({s}));
    bases[0] = twice;
    compare_reports(bases, copies_of(5, report_of({s})), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("baseline 1: case 1 KiB appears twice"), std::string::npos) << e.what();
  }
}

// (--threshold-only: two baseline runs against one candidate run are too few for the test.)
TEST(Compare, CasesOnOneSideAreMissingOrNewAndBaselinesArePooled) {
  std::mt19937_64 rng(9);
  const auto s = [&] { return draw(rng, 10, 40, 0.02); };
  const ParsedReport b1 = report_of({s(), s()});                    // 1 KiB, 2 KiB
  const ParsedReport b2 = report_of({s(), s(), s()});               // 1, 2, 4 KiB
  const ParsedReport cand = report_of({s(), s(), s(), s()}, 2048);  // 2, 4, 8, 16 KiB
  const Comparison c = compare_reports({b1, b2}, cand, threshold_only());
  ASSERT_EQ(c.cases.size(), 5u);
  EXPECT_EQ(c.cases[0].label.substr(0, 5), "2 KiB");
  EXPECT_EQ(c.cases[0].base_samples, 20u);  // pooled from both baselines
  EXPECT_EQ(c.cases[1].base_samples, 10u);
  EXPECT_EQ(c.cases[2].verdict, Verdict::added);
  EXPECT_EQ(c.cases[3].verdict, Verdict::added);
  EXPECT_EQ(c.cases[4].verdict, Verdict::missing);
  EXPECT_EQ(c.cases[4].label.substr(0, 5), "1 KiB");
  EXPECT_EQ(c.missing, 1u);
  EXPECT_EQ(c.added, 2u);
  EXPECT_FALSE(c.regressed());
}

// Run-to-run noise: a verdict needs every run of one side beyond every run of the other by the threshold. With no test
// (--threshold-only) this rule is what stands between a busier machine and a false alarm, given more than one run.
TEST(Compare, SeveralRunsASideGuardAgainstRunToRunNoise) {
  const CompareOptions o = threshold_only();
  std::mt19937_64 rng(21);
  const ParsedReport base_fast = report_of({draw(rng, 20, 100, 0.01)});
  const ParsedReport base_slow = report_of({draw(rng, 20, 110, 0.01)});  // the same build on a busier machine
  // +7 % over the baselines' median run, but within 2 % of the slower baseline run: SAME with the window, SLOWER
  // without.
  const ParsedReport cand = report_of({draw(rng, 20, 112, 0.01)});
  EXPECT_EQ(compare_reports({base_fast}, cand, o).cases[0].verdict, Verdict::slower);
  const Comparison window = compare_reports({base_fast, base_slow}, cand, o);
  EXPECT_EQ(window.cases[0].verdict, Verdict::same);
  EXPECT_EQ(window.cases[0].base_runs, 2u);
  EXPECT_NEAR(window.cases[0].worst_case_slowdown, 112.0 / 110 - 1, 0.01);
  // 9 % beyond the slower baseline run: SLOWER.
  EXPECT_EQ(compare_reports({base_fast, base_slow}, report_of({draw(rng, 20, 120, 0.01)}), o).cases[0].verdict,
            Verdict::slower);
  // Two candidate runs, one of them on a busy machine: its other run is as fast as the baseline, so SAME.
  const std::vector<ParsedReport> cands = {report_of({draw(rng, 20, 100, 0.01)}),
                                           report_of({draw(rng, 20, 150, 0.01)})};
  const Comparison two = compare_reports({base_fast}, cands, o);
  EXPECT_EQ(two.cases[0].verdict, Verdict::same);
  EXPECT_EQ(two.cases[0].cand_samples, 40u);
  EXPECT_EQ(two.candidate_runs, 2u);
}

TEST(Compare, ReportsThatCannotBeComparedAreRefused) {
  const ParsedReport base = report_of({{1, 2, 3, 4, 5}});
  ParsedReport other = base;
  other.info.world_size = 4;
  EXPECT_THROW(compare_reports({base}, other, {}), Error);
  other = base;
  other.info.backend = "nccl";
  try {
    compare_reports({base}, other, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_STREQ(e.what(),
                 "baseline 1 ran on backend 'mpi' and the candidate on 'nccl'; compare runs of the same backend");
  }
  other = base;
  other.benchmark = "latency";
  EXPECT_THROW(compare_reports({base}, other, {}), Error);
  ParsedReport latency = base;
  latency.layout.metrics = {{"latency_us", "us", ""}};
  CompareOptions bw;
  bw.metric = CompareMetric::busbw;
  EXPECT_THROW(compare_reports({latency}, latency, bw), Error);
}

TEST(CaseFilter, ConditionsOnParameters) {
  Record r;
  r.set("dtype", std::string("float32")).set("bytes", std::int64_t{2048}).set("placement", std::string("in-place"));
  EXPECT_TRUE(matches(r, parse_filter("dtype=float32")));
  EXPECT_TRUE(matches(r, parse_filter("dtype=int8|float32, bytes>=1K")));
  EXPECT_FALSE(matches(r, parse_filter("bytes>2K")));
  EXPECT_TRUE(matches(r, parse_filter("bytes<=2K,placement!=out-of-place")));
  EXPECT_TRUE(matches(r, parse_filter("bytes=2048")));
  EXPECT_FALSE(matches(r, parse_filter("op=sum")));  // a parameter the record does not have
  EXPECT_TRUE(matches(r, parse_filter("")));
  EXPECT_THROW(parse_filter("dtype"), Error);
  EXPECT_THROW(parse_filter("bytes>=lots"), Error);
}

TEST(CompareViews, EveryFormatSaysTheVerdict) {
  std::mt19937_64 rng(3);
  const auto base = draw(rng, 20, 50, 0.02);
  std::vector<double> slow = base;
  for (double& x : slow) x *= 1.3;
  const Comparison c = compare_reports(runs_of({base}), runs_of({slow}), {});
  ASSERT_TRUE(c.regressed());
  const CompareSources src{{"base.json"}, "cand.json"};
  EXPECT_NE(compare_text(c).find("SLOWER"), std::string::npos);
  EXPECT_NE(compare_text(c).find("# verdict: REGRESSION"), std::string::npos);
  EXPECT_NE(compare_markdown(c, src).find("**SLOWER (+30.0% beyond the 5% threshold"), std::string::npos);
  const auto j = nlohmann::json::parse(compare_json(c, src));
  EXPECT_EQ(j["regression"], true);
  EXPECT_EQ(j["summary"]["slower"], 1);
  EXPECT_EQ(j["cases"][0]["verdict"], "SLOWER");
  EXPECT_EQ(j["mode"], "runs");
  EXPECT_NEAR(j["cases"][0]["p"].get<double>(), 2.0 / 252, 1e-12);  // five runs a side, fully apart
  // each side's runs, each with its median, the median's interval and its sample count
  ASSERT_EQ(j["cases"][0]["baseline_runs"].size(), 5u);
  ASSERT_EQ(j["cases"][0]["candidate_runs"].size(), 5u);
  for (const auto& run : j["cases"][0]["candidate_runs"]) {
    EXPECT_EQ(run["samples"], 20);
    EXPECT_LT(run["low"].get<double>(), run["median"].get<double>());
    EXPECT_GT(run["high"].get<double>(), run["median"].get<double>());
  }
  EXPECT_NE(compare_text(c).find("(1 case; the runs' medians tested: 5 baseline runs, 5 candidate runs)"),
            std::string::npos)
      << compare_text(c);
  const std::string junit = compare_junit(c, src);
  EXPECT_NE(junit.find("<property name=\"mode\" value=\"runs\"/>"), std::string::npos) << junit;
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(junit.find("<failure message=\"SLOWER"), std::string::npos);
}

// Strings a report carries (a case's parameters, warnings) and the paths given reach every format inert: no markup
// in Markdown (meant for pull-request comments), no control character in JUnit's XML, no terminal escape or forged
// line in the text.
TEST(Compare, ReportStringsCannotInjectIntoAnyFormat) {
  std::vector<double> base, slow;
  for (int i = 0; i < 20; ++i) {
    base.push_back(100 + i * 0.01);
    slow.push_back(130 + i * 0.01);
  }
  Comparison c = compare_reports(runs_of({base}), runs_of({slow}), {});
  c.cases.at(0).label = "<script>alert(1)</script>|x\n| forged | row |\x01\x1b[2J";
  c.warnings.push_back("<img src=x onerror=alert(1)>\nerror: forged");
  const CompareSources sources{{"b|ase<b>.json"}, "cand\n.json"};
  const std::string md = compare_markdown(c, sources);
  for (const char* bad : {"<script", "<img", "\n| forged", "<b>", "\x01", "\x1b", "b|ase"}) {
    EXPECT_EQ(md.find(bad), std::string::npos) << bad << " in\n" << md;
  }
  EXPECT_NE(md.find("&lt;script&gt;alert(1)&lt;/script&gt;\\|x \\| forged \\| row \\|"), std::string::npos) << md;
  const std::string junit = compare_junit(c, sources);
  for (char ch = 1; ch < 0x20; ++ch) {
    if (ch != '\n') {
      EXPECT_EQ(junit.find(ch), std::string::npos) << static_cast<int>(ch) << " in\n" << junit;
    }
  }
  EXPECT_EQ(junit.find("<script"), std::string::npos) << junit;
  const std::string text = compare_text(c);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find("\nerror: forged"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n| forged"), std::string::npos) << text;
}

// Link, image, emphasis and inline-code syntax in a report's strings reads as text in the Markdown (a pull-request
// comment), and a bidirectional override shows as an escape in every view.
TEST(Compare, MarkdownKeepsLinksAndEmphasisInert) {
  std::vector<double> base, slow;
  for (int i = 0; i < 20; ++i) {
    base.push_back(100 + i * 0.01);
    slow.push_back(130 + i * 0.01);
  }
  Comparison c = compare_reports(runs_of({base}), runs_of({slow}), {});
  c.cases.at(0).label = "[l](javascript:alert(1)) **b** `c` \u202eevil";
  c.warnings.push_back("see ![x](http://e/x.png) _now_ ~~gone~~");
  const CompareSources sources{{"_base_.json"}, "[c](x).json"};
  const std::string md = compare_markdown(c, sources);
  EXPECT_NE(md.find("| \\[l\\](javascript:alert(1)) \\*\\*b\\*\\* \\`c\\` \\\\u202eevil |"), std::string::npos) << md;
  EXPECT_NE(md.find("> warning: see !\\[x\\](http://e/x.png) \\_now\\_ \\~\\~gone\\~\\~\n"), std::string::npos) << md;
  EXPECT_NE(md.find("Baseline: \\_base\\_.json · candidate: \\[c\\](x).json"), std::string::npos) << md;
  EXPECT_NE(md.find("| **SLOWER ("), std::string::npos) << md;  // the view's own emphasis stays
  for (const std::string& view : {md, compare_text(c), compare_html(c, sources)}) {
    EXPECT_EQ(view.find("\u202e"), std::string::npos) << view;
  }
}

// A change of any size prints as a short percentage in every view (a ratio of 1e300 once printed 300 digits).
TEST(Compare, HugeChangesPrintShortPercentages) {
  std::vector<double> base, huge;
  for (int i = 0; i < 20; ++i) {
    base.push_back(1e-290 * (1 + i * 0.01));
    huge.push_back(1e10 * (1 + i * 0.01));
  }
  const Comparison c = compare_reports(runs_of({base}), runs_of({huge}), {});
  ASSERT_GT(c.cases.at(0).change, 1e290);
  const CompareSources sources{{"a.json"}, "b.json"};
  for (const std::string& view : {compare_text(c), compare_markdown(c, sources), compare_html(c, sources)}) {
    std::size_t run = 0, longest = 0;
    for (char ch : view) {
      run = std::isdigit(static_cast<unsigned char>(ch)) ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    EXPECT_LT(longest, 20u) << view;
    EXPECT_NE(view.find("e+302%"), std::string::npos) << view;
  }
}

// The fewest runs for the rank test of run medians: the exact smallest two-sided p is 2 / C(n + m, n), which is what
// the test gives for two fully separated sets, and the counts that can reject at alpha follow from it.
TEST(RankTests, TheFewestRunsThatCanReject) {
  EXPECT_NEAR(smallest_rank_sum_p(5, 5), 2.0 / 252, 1e-15);
  EXPECT_NEAR(smallest_rank_sum_p(4, 4), 2.0 / 70, 1e-15);
  EXPECT_NEAR(smallest_rank_sum_p(10, 3), 2.0 / 286, 1e-15);
  EXPECT_DOUBLE_EQ(smallest_rank_sum_p(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(smallest_rank_sum_p(0, 7), 1.0);
  for (std::size_t n = 1; n <= 8; ++n) {
    for (std::size_t m = 1; m <= 8; ++m) {
      std::vector<double> low, high;
      for (std::size_t i = 0; i < n; ++i) low.push_back(static_cast<double>(i));
      for (std::size_t j = 0; j < m; ++j) high.push_back(static_cast<double>(n + j));
      EXPECT_NEAR(mann_whitney_p(low, high), smallest_rank_sum_p(n, m), 1e-12) << n << " and " << m;
    }
  }
  EXPECT_EQ(min_runs_to_test(0.01), 5u);  // 2 / 252 = 0.0079; 4 a side give 0.029
  EXPECT_EQ(min_runs_to_test(0.05), 4u);  // 2 / 70 = 0.029; 3 a side give 0.1
  EXPECT_EQ(min_runs_to_test(0.001), 7u);
  EXPECT_EQ(min_baseline_runs(3, 0.01, 1000), 9u);  // 2 / C(12, 3) = 0.0091; 8 give 2 / 165 = 0.0121
  EXPECT_EQ(min_baseline_runs(5, 0.01, 1000), 5u);
  EXPECT_EQ(min_baseline_runs(1, 0.01, 1000), 200u);  // 2 / 201
  EXPECT_EQ(min_baseline_runs(1, 0.01, 100), 0u);
  EXPECT_LT(smallest_rank_sum_p(10, 3), 0.01);
  EXPECT_GE(smallest_rank_sum_p(10, 2), 0.01);
}

constexpr const char* kOneAgainstOne =
    "1 baseline run and 1 candidate run are too few to test at --alpha 0.01: the samples of a run share its "
    "machine's state, so the gate tests the runs' medians, and a rank test of them needs 5 runs a side (or e.g. 9 "
    "baseline runs against 3 candidate runs: --candidates 3); give it more runs, run both sides interleaved "
    "(--run-baseline, --run-candidate), or judge on the threshold alone, with no test (--threshold-only)";

// Not judged: the message that one run a side gets, and the runs it names at another alpha and counts.
std::string too_few_runs_refusal(const std::vector<ParsedReport>& base, const std::vector<ParsedReport>& cand,
                                 const CompareOptions& o) {
  try {
    compare_reports(base, cand, o);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::not_judged) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "judged";
  return "";
}

// Pseudo-replication (issue 58): two runs of one build whose samples are tight (0.5 % noise) but whose medians differ
// by 8 % (an A/A pair, the second run on a busier machine). The old gate pooled the samples and tested the 20 of each
// run as independent observations of the build: Mann-Whitney p = 2 / C(40, 20) = 1.5e-11, "+8.0% [...] p 1e-11
// SLOWER". A run's samples share its machine's state: one run a side cannot show a change at alpha 0.01, and the gate
// fails closed, saying what to give it. Five A/A runs a side, each run off by up to +-8 %, are never SLOWER.
TEST(Compare, PseudoReplicatedSamplesAreNoEvidence) {
  std::mt19937_64 rng(58);
  const auto quiet = draw(rng, 20, 100, 0.005), busy = draw(rng, 20, 108, 0.005);
  EXPECT_LT(mann_whitney_p(quiet, busy), 1e-10);  // what the old gate tested, and called SLOWER
  EXPECT_EQ(too_few_runs_refusal({report_of({quiet})}, {report_of({busy})}, {}), kOneAgainstOne);
  CompareOptions loose;
  loose.alpha = 0.05;
  const std::vector<ParsedReport> two_quiet(2, report_of({quiet})), two_busy(2, report_of({busy}));
  EXPECT_NE(too_few_runs_refusal(two_quiet, two_busy, loose)
                .find("2 baseline runs and 2 candidate runs are too few to test at --alpha 0.05: "),
            std::string::npos);
  EXPECT_NE(too_few_runs_refusal(std::vector<ParsedReport>(4, report_of({quiet})), two_busy, {})
                .find("needs 5 runs a side (or e.g. 19 baseline runs against 2 candidate runs: --candidates 2)"),
            std::string::npos);
  int slower = 0, tested = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Comparison c = compare_reports(offset_runs(rng, 5, 4, 1.0, 0.08), offset_runs(rng, 5, 4, 1.0, 0.08), {});
    slower += static_cast<int>(c.slower);
    tested += static_cast<int>(c.slower + c.faster + c.same);
  }
  EXPECT_EQ(slower, 0);
  EXPECT_EQ(tested, 160);
}

// Five copies of one report are one run, not five: the gate refuses them on either side (a run's median is the test's
// observation, so copies would fake the evidence), and a distinct run with the same samples but another start is kept.
TEST(Compare, ARunGivenTwiceOnOneSideIsRefused) {
  std::mt19937_64 rng(7);
  const auto runs = offset_runs(rng, 5, 2, 1.0, 0.02);
  std::vector<ParsedReport> copies(5, runs[0]);
  try {
    compare_reports(runs, copies, {});
    FAIL() << "five copies of one candidate run were taken for five runs";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("candidate run 1 and candidate run 2 are one run given twice"),
              std::string::npos)
        << e.what();
  }
  std::vector<ParsedReport> base = runs;
  base[3] = base[1];
  EXPECT_THROW(compare_reports(base, offset_runs(rng, 5, 2, 1.0, 0.02), {}), Error);
  for (std::size_t i = 0; i < copies.size(); ++i) copies[i].info.start_time = fmt::format("2026-11-29T00:00:0{}Z", i);
  EXPECT_NO_THROW(compare_reports(runs, copies, {}));
}

// A real +20 % slowdown, 5 runs a side, each run off by up to +-2 %: every case SLOWER, at the smallest p five runs a
// side can give, with each run listed; the same with 9 baseline runs against 3 candidate runs.
TEST(Compare, FiveRunsASideCatchARealSlowdown) {
  std::mt19937_64 rng(20);
  const Comparison c = compare_reports(offset_runs(rng, 5, 4, 1.0, 0.02), offset_runs(rng, 5, 4, 1.2, 0.02), {});
  EXPECT_EQ(c.slower, 4u);
  for (const CaseComparison& k : c.cases) {
    EXPECT_NEAR(k.change, 0.2, 0.05) << k.reason;
    EXPECT_NEAR(k.p, 2.0 / 252, 1e-12);
    EXPECT_LT(k.change_low, k.change);
    EXPECT_GT(k.change_high, k.change);
    EXPECT_EQ(k.base_run_figures.size(), 5u);
    EXPECT_EQ(k.cand_run_figures.size(), 5u);
  }
  const Comparison window = compare_reports(offset_runs(rng, 9, 4, 1.0, 0.02), offset_runs(rng, 3, 4, 1.2, 0.02), {});
  EXPECT_EQ(window.slower, 4u);
}

// --threshold-only: one run a side is judged by the threshold, the floor and the run extremes, with no test (no p,
// no interval), and every reason and view says so; a whole run that moved is warned about.
TEST(Compare, ThresholdOnlyJudgesOneRunASideAndSaysSo) {
  std::mt19937_64 rng(4);
  const auto base = draw(rng, 20, 100, 0.01);
  std::vector<double> slow = base;
  for (double& x : slow) x *= 1.2;
  const Comparison c = compare_reports({report_of({base})}, {report_of({slow})}, threshold_only());
  const CaseComparison& k = c.cases.at(0);
  EXPECT_EQ(k.verdict, Verdict::slower);
  EXPECT_EQ(k.reason,
            "+20.0% beyond the 5% threshold (no significance test: --threshold-only, 19.9 us over the 1 us floor, "
            "every run of one side beyond every run of the other)");
  EXPECT_TRUE(std::isnan(k.p));
  EXPECT_TRUE(std::isnan(k.change_low));
  const CompareSources src{{"base.json"}, "cand.json"};
  const auto j = nlohmann::json::parse(compare_json(c, src));
  EXPECT_EQ(j["mode"], "threshold-only");
  EXPECT_TRUE(j["cases"][0]["p"].is_null());
  EXPECT_NE(compare_text(c).find("# distbench compare: collective (1 case; threshold-only, no significance test: 1 "
                                 "baseline run, 1 candidate run)"),
            std::string::npos)
      << compare_text(c);
  EXPECT_NE(compare_markdown(c, src).find("**Threshold-only: no significance test.**"), std::string::npos);
  EXPECT_NE(compare_html(c, src).find("Threshold-only: no significance test."), std::string::npos);
  EXPECT_NE(compare_junit(c, src).find("<property name=\"mode\" value=\"threshold-only\"/>"), std::string::npos);
  const auto same = compare_reports({report_of({base})}, {report_of({base})}, threshold_only()).cases.at(0);
  EXPECT_EQ(same.reason, "+0.0% is within the 5% threshold (no significance test: --threshold-only)");
  // Four cases that all moved +20 % together, one run a side: the whole run may have.
  const auto moved = compare_reports(offset_runs(rng, 1, 4, 1.0, 0), offset_runs(rng, 1, 4, 1.2, 0), threshold_only());
  EXPECT_EQ(moved.slower, 4u);
  ASSERT_EQ(moved.warnings.size(), 1u);
  EXPECT_NE(moved.warnings[0].find("4 of 4 cases moved up by more than 5% together"), std::string::npos);
  EXPECT_NE(moved.warnings[0].find("give it 5 runs a side"), std::string::npos) << moved.warnings[0];
}

}  // namespace
}  // namespace distbench::compare
