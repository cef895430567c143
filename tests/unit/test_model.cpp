// distbench model's analysis on reports made here: a ring allreduce with known alpha and beta at 2 and 4 ranks is
// fitted back, a page-fault cliff is refused with its cause, predictions at 8 ranks follow the formula, the recorded
// Open MPI algorithm is read, and bad input is one usage error.
#include "model/model.hpp"
#include "model/model_views.hpp"
#include "model/recorded_algorithm.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <variant>

namespace distbench::model {
namespace {

constexpr double kA = 15e-6, kB = 2e-9;  // 15 us, 0.5 GB/s

// A ring allreduce sweep at p ranks, 8 B .. 4 MiB by 4, timed by the formula (times `scale` at `slow_bytes`).
ParsedReport ring_sweep(int p, double slow_bytes = 0, double scale = 1, const char* collective = "allreduce",
                        const char* backend = "mpi") {
  ParsedReport r;
  r.benchmark = "collective";
  r.info.backend = backend;
  r.info.environment = {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "4"},
                        {"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"}};
  for (double s = 8; s <= 4 << 20; s *= 4) {
    Record rec;
    rec.kind = "collective";
    rec.set("collective", std::string(collective))
        .set("backend", std::string(backend))
        .set("placement", std::string("out-of-place"))
        .set("bytes", static_cast<std::int64_t>(s))
        .set("nranks", std::int64_t{p});
    double t = 2.0 * (p - 1) * kA + 2.0 * (p - 1) / p * s * kB;
    if (s == slow_bytes) t *= scale;
    PhaseStats phase;
    phase.name = "time";
    phase.summary.samples = 10;
    phase.summary.median = t;
    rec.phases.push_back(phase);
    rec.set_metric("faults_per_op", s == slow_bytes ? 50.0 : 0.0);
    r.records.push_back(rec);
  }
  return r;
}

TEST(Model, FitsRingAllreduceAcrossWorldSizes) {
  ModelOptions o;
  o.predict_ranks = {8};
  o.predict_sizes = {1 << 20};
  o.link_gbps = 0.5;
  const ModelResult r = build_model({ring_sweep(2), ring_sweep(4)}, {"a.json", "b.json"}, o);
  ASSERT_EQ(r.models.size(), 1u);
  const CollectiveModel& m = r.models[0];
  EXPECT_EQ(m.algorithm, Algorithm::ring);
  EXPECT_EQ(m.algorithm_source, "recorded: OMPI_MCA_coll_tuned_allreduce_algorithm=4");
  EXPECT_EQ(m.ranks, (std::vector<int>{2, 4}));
  EXPECT_NEAR(m.alpha.value, kA, kA * 1e-6);
  EXPECT_NEAR(m.beta.value, kB, kB * 1e-6);
  EXPECT_FALSE(m.gamma.fitted);
  for (const FittedPoint& p : m.points) {
    EXPECT_FALSE(p.refused);
    EXPECT_NEAR(p.busbw_gbps / p.link_bound_gbps, p.busbw_gbps / p.bound_gbps, 1e-6);  // 1/beta is the link
  }
  // 8 ranks, 1 MiB: 14 alpha + 1.75 S beta
  ASSERT_EQ(m.predictions.size(), 1u);
  const PredictedCase& k = m.predictions[0];
  EXPECT_EQ(k.times[0].algorithm, Algorithm::ring);
  EXPECT_NEAR(k.times[0].seconds, 14 * kA + 1.75 * (1 << 20) * kB, 1e-9);
  // Rabenseifner moves the ring's bytes with 6 start-ups instead of 14: it wins at any size (Thakur et al.)
  EXPECT_EQ(k.winner, Algorithm::rabenseifner);
  EXPECT_FALSE(k.close);
  EXPECT_EQ(k.times.size(), algorithms_of(Collective::allreduce).size());
}

// A sweep timed two ways (--timing sampled,osu) is fitted as its first method timed it; the other method's times (here
// 3x, as a barrier per call can make them at small sizes) do not pull the fit.
TEST(Model, FitsTheFirstTimingMethodOfASweepTimedSeveralWays) {
  ParsedReport both = ring_sweep(2);
  const std::size_t n = both.records.size();
  for (std::size_t i = 0; i < n; ++i) {
    Record other = both.records[i];
    other.set("timing", std::string("osu"));
    other.phases[0].summary.median *= 3;
    both.records[i].set("timing", std::string("sampled"));
    both.records.push_back(other);
  }
  const ModelResult r = build_model({both, ring_sweep(4)}, {"a.json", "b.json"}, ModelOptions{});
  ASSERT_EQ(r.models.size(), 1u);
  EXPECT_NEAR(r.models[0].alpha.value, kA, kA * 1e-6);
  EXPECT_NEAR(r.models[0].beta.value, kB, kB * 1e-6);
}

// A sweep's sizes are rounded down to whole elements per rank (allgather's 64 KiB is 65532 B at 3 ranks): by
// default each step of the sweep is predicted once, at the size asked for, not once per rounding (as an H200's
// NCCL allgather at 2 and 3 ranks printed every 4-rank prediction twice).
TEST(Model, PredictsEachStepOfTheSweepOnceWhenRankCountsRoundItsSizes) {
  ParsedReport rounded = ring_sweep(4);
  for (Record& rec : rounded.records) {
    const auto bytes = std::get<std::int64_t>(*rec.param("bytes"));
    if (bytes >= 1024) rec.set("bytes", bytes - 12);
  }
  const ModelResult r = build_model({ring_sweep(2), rounded}, {"a.json", "b.json"}, ModelOptions{});
  ASSERT_EQ(r.models.size(), 1u);
  const CollectiveModel& m = r.models[0];
  EXPECT_EQ(m.points.size(), 20u);       // every measured case is kept as measured
  ASSERT_EQ(m.predictions.size(), 20u);  // 10 steps at each of 2 and 4 ranks
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(m.predictions[i].nranks, 2);
    EXPECT_EQ(m.predictions[i].bytes, 8.0 * std::pow(4.0, static_cast<double>(i)));
  }
}

TEST(Model, RefusesAPageFaultCliffAndNamesIt) {
  const ModelResult r = build_model({ring_sweep(2, 1 << 21, 2.5), ring_sweep(4)}, {"a.json", "b.json"}, {});
  const CollectiveModel& m = r.models[0];
  std::size_t refused = 0;
  for (const FittedPoint& p : m.points) {
    if (!p.refused) continue;
    ++refused;
    EXPECT_EQ(p.bytes, 1 << 21);
    EXPECT_EQ(p.cause.rfind("page faults (50 per operation", 0), 0u) << p.cause;
  }
  EXPECT_EQ(refused, 1u);
  EXPECT_NEAR(m.beta.value, kB, kB * 1e-3);
  ASSERT_EQ(m.breaks.size(), 1u);
  EXPECT_EQ(m.breaks[0].rfind("p=2, 2 MiB: page faults", 0), 0u) << m.breaks[0];
}

// ring_sweep on Open MPI between hosts (one rank each), with `variables` added to the recorded environment.
ParsedReport on_hosts(ParsedReport r, int p, std::vector<std::pair<std::string, std::string>> variables = {}) {
  r.info.versions = {{"mpi.library", "Open MPI v4.1.4"}};
  for (int i = 0; i < p; ++i) r.info.ranks.push_back({i, "node" + std::to_string(i), 0, ""});
  r.info.environment.push_back({"OMPI_MCA_btl", "tcp,self"});
  for (auto& v : variables) r.info.environment.push_back(std::move(v));
  return r;
}

TEST(Model, NamesTheEagerLimitWhereTheTimesLeaveTheLine) {
  // 2 ranks between hosts twice as slow from 128 KiB (one step's message 64 KiB: rendezvous over tcp), as the
  // namespace cluster measured; 4 ranks on the line
  ParsedReport two = on_hosts(ring_sweep(2), 2);
  for (Record& rec : two.records) {
    if (std::get<std::int64_t>(*rec.param("bytes")) >= 131072) rec.phases[0].summary.median *= 2;
  }
  const ModelResult r = build_model({two, on_hosts(ring_sweep(4), 4)}, {"a.json", "b.json"}, {});
  const CollectiveModel& m = r.models[0];
  ASSERT_FALSE(m.breaks.empty());
  EXPECT_EQ(m.breaks[0].rfind("p=2, 128 KiB .. 2 MiB: one step's message is past btl_tcp_eager_limit (64 KiB, Open "
                              "MPI's default; tcp between hosts)",
                              0),
            0u)
      << m.breaks[0];
  std::size_t refused = 0;  // 128 KiB, 512 KiB and 2 MiB (the sweep goes by 4), with causes of their own
  for (const FittedPoint& p : m.points) {
    if (p.refused) {
      ++refused;
      EXPECT_EQ(p.nranks, 2);
      EXPECT_GE(p.bytes, 131072);
      EXPECT_FALSE(p.cause.empty());
    }
  }
  EXPECT_EQ(refused, 3u);
  bool noted = false;
  for (const std::string& n : m.notes) noted = noted || n.find("messages went over tcp between hosts") == 0;
  EXPECT_TRUE(noted);
  // the same times with the limit raised past every message: the break is not the protocol's, and not named so
  ParsedReport raised = two;
  raised.info = on_hosts(ring_sweep(2), 2, {{"OMPI_MCA_btl_tcp_eager_limit", "4194304"}}).info;
  ParsedReport four = on_hosts(ring_sweep(4), 4, {{"OMPI_MCA_btl_tcp_eager_limit", "4194304"}});
  const ModelResult n = build_model({raised, four}, {"a.json", "b.json"}, {});
  for (const std::string& b : n.models[0].breaks) EXPECT_EQ(b.find("eager_limit"), std::string::npos) << b;
  // reports that ran with different limits: not looked for, and said
  const ModelResult mixed = build_model({two, four}, {"a.json", "b.json"}, {});
  bool said = false;
  for (const std::string& note : mixed.models[0].notes) {
    said = said || note.find("different eager limits") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

TEST(Model, BadInputIsOneUsageError) {
  const auto usage = [](const std::vector<ParsedReport>& reports, const ModelOptions& o, const std::string& words) {
    try {
      build_model(reports, std::vector<std::string>(reports.size(), "r.json"), o);
      ADD_FAILURE() << "no error; expected: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  usage({}, {}, "no report given");
  usage({ring_sweep(2), ring_sweep(2, 0, 1, "allgather")}, {},
        "several collectives (allreduce, allgather); choose one with --collective");
  ModelOptions rd;
  rd.algorithm = Algorithm::ring;
  usage({ring_sweep(2, 0, 1, "allreduce", "nccl")}, rd,
        "names an Open MPI algorithm, but report 'r.json' ran on the nccl backend");
  ModelOptions bruck;
  bruck.algorithm = Algorithm::bruck;
  usage({ring_sweep(2)}, bruck, "allreduce has no such algorithm here; give one of: ring, recursive-doubling");
  ParsedReport one = ring_sweep(2);
  one.records.resize(1);
  usage({one}, {}, "one size only (8 B)");
  ParsedReport latency = ring_sweep(2);
  latency.benchmark = "latency";
  usage({latency}, {}, "holds a 'latency' run, not a collective sweep");
}

// A case above 1 PiB is refused with the bound and the reason; sizes and rank counts that are no positive number, or
// beyond what an integer holds, are left out without undefined conversions (UBSan: float-cast-overflow).
TEST(Model, AbsurdSizesAreRefusedAndOddNumbersLeftOut) {
  const auto refusal = [](ParamValue bytes) {
    ParsedReport r = ring_sweep(2);
    r.records[2].set("bytes", bytes);
    try {
      build_model({r}, {"r.json"}, {});
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const ParamValue& bytes : std::vector<ParamValue>{std::int64_t{1} << 62, 1e300, INFINITY,
                                                         static_cast<double>((std::int64_t{1} << 50) + 1)}) {
    const std::string why = refusal(bytes);
    EXPECT_NE(why.find("report 'r.json' holds a case of "), std::string::npos) << why;
    EXPECT_NE(why.find("bytes, above the 1 PiB a model takes: no rank holds a buffer that large, so the report is "
                       "damaged"),
              std::string::npos)
        << why;
  }
  const std::size_t all = ring_sweep(2).records.size();
  for (const auto& [key, value] : std::vector<std::pair<std::string, ParamValue>>{{"bytes", std::nan("")},
                                                                                  {"bytes", -INFINITY},
                                                                                  {"bytes", -5.0},
                                                                                  {"bytes", 0.5},
                                                                                  {"bytes", std::string("x")},
                                                                                  {"nranks", 1e300},
                                                                                  {"nranks", -1e300},
                                                                                  {"nranks", std::nan("")},
                                                                                  {"nranks", 0.0}}) {
    ParsedReport r = ring_sweep(2);
    r.records[0].set(key, value);
    const ModelResult m = build_model({r, ring_sweep(4)}, {"r.json", "s.json"}, {});
    ASSERT_EQ(m.models.size(), 1u);
    EXPECT_EQ(m.models[0].points.size(), 2 * all - 1) << key << " " << param_text(value);
  }
  // the largest size taken is taken
  ParsedReport big = ring_sweep(2);
  big.records.back().set("bytes", std::int64_t{1} << 50);
  EXPECT_NO_THROW(build_model({big, ring_sweep(4)}, {"r.json", "s.json"}, {}));
}

// Exact data (the sweeps here follow the formula to the last bit) get the intervals of the documented 1 % floor.
TEST(Model, ExactDataGetIntervalsOfWidth) {
  const ModelResult r = build_model({ring_sweep(2), ring_sweep(4)}, {"a.json", "b.json"}, {});
  const CollectiveModel& m = r.models.at(0);
  EXPECT_LT(m.alpha.low, m.alpha.value);
  EXPECT_GT(m.alpha.high, m.alpha.value);
  EXPECT_LT(m.beta.low, m.beta.value);
  EXPECT_GT(m.beta.high, m.beta.value);
}

TEST(Model, RecordedAlgorithmsOfOpenMpiAndNccl) {
  const auto of = [](std::vector<std::pair<std::string, std::string>> vars, Collective c) {
    return recorded_algorithm(vars, c);
  };
  auto r = of({{"OMPI_MCA_coll_tuned_allgather_algorithm", "bruck"}, {"OMPI_MCA_coll_tuned_use_dynamic_rules", "true"}},
              Collective::allgather);
  EXPECT_EQ(r.algorithm, Algorithm::bruck);
  r = of({{"OMPI_MCA_coll_tuned_allreduce_algorithm", "5"}, {"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"}},
         Collective::allreduce);
  EXPECT_EQ(r.algorithm, Algorithm::ring);
  EXPECT_EQ(r.library_name, "segmented_ring");
  r = of({{"OMPI_MCA_coll_tuned_allreduce_algorithm", "ring"}}, Collective::allreduce);  // not in force
  EXPECT_FALSE(r.algorithm.has_value());
  EXPECT_NE(r.note.find("coll_tuned_use_dynamic_rules"), std::string::npos);
  r = of({{"OMPI_MCA_coll_tuned_bcast_algorithm", "7"}, {"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"}},
         Collective::broadcast);
  EXPECT_FALSE(r.algorithm.has_value());
  EXPECT_EQ(r.library_name, "knomial");
  r = of({{"NCCL_ALGO", "Ring"}}, Collective::allreduce);
  EXPECT_EQ(r.algorithm, Algorithm::ring);
  r = of({{"NCCL_ALGO", "Tree"}}, Collective::allreduce);
  EXPECT_FALSE(r.algorithm.has_value());
  EXPECT_TRUE(of({}, Collective::allreduce).source.empty());
}

TEST(Model, ViewsCarryTheFigures) {
  ModelOptions o;
  o.predict_ranks = {8};
  o.predict_sizes = {1 << 20};
  o.link_gbps = 0.5;
  const ModelResult r = build_model({ring_sweep(2), ring_sweep(4)}, {"a.json", "b.json"}, o);
  const std::string text = model_text(r);
  EXPECT_NE(text.find("# T(p, S) = 2(p-1) alpha + 2(p-1)/p S beta + (p-1)/p S gamma"), std::string::npos) << text;
  EXPECT_NE(text.find("beta          0.5 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("= 100% of the 0.5 GB/s link"), std::string::npos) << text;
  // 2 MiB at 4 ranks: 6 alpha + 1.5 S beta = 6381 us; busbw 1.5 S / T = 0.493 GB/s, 99 % of the 0.5 GB/s link
  EXPECT_NE(text.find("  p=4, 2 MiB: busbw 0.493 GB/s, 99% of what the links allow (0.5 GB/s)"), std::string::npos)
      << text;
  const auto j = nlohmann::json::parse(model_json(r));
  EXPECT_EQ(j["model_schema_version"], 1);
  EXPECT_NEAR(j["models"][0]["alpha_us"]["value"].get<double>(), 15, 1e-6);
  EXPECT_NEAR(j["models"][0]["bandwidth_gbps"]["value"].get<double>(), 0.5, 1e-9);
  EXPECT_EQ(j["models"][0]["predictions"][0]["winner"], "rabenseifner");
  const std::string csv = model_csv(r);
  EXPECT_EQ(csv.rfind("record,collective,algorithm,nranks,bytes,", 0), 0u);
  EXPECT_NE(csv.find("\npredicted,allreduce,ring,8,1048576,"), std::string::npos) << csv;
  const std::string html = model_html(r);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("predicted, p=8"), std::string::npos);
  EXPECT_NE(model_markdown(r).find("| p | size | measured us |"), std::string::npos);
  // the text in 100 columns (a cause of 400 characters once made a line of 403); the page's figures in tables
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_NE(text.find("wins"), std::string::npos) << text;
  EXPECT_EQ(html.find("<pre>"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"points\">"), std::string::npos);
  EXPECT_NE(html.find("<td>rabenseifner</td>"), std::string::npos);
  // the links at the rate measured: no warning; a rate a hundredth of it (Gb/s for GB/s, a typo) is said in a line
  EXPECT_EQ(link_rate_warning(r), "");
  o.link_gbps = 0.005;
  const std::string warning = link_rate_warning(build_model({ring_sweep(2), ring_sweep(4)}, {"a.json", "b.json"}, o));
  EXPECT_EQ(warning.rfind("measured busbw reaches ", 0), 0u) << warning;
  EXPECT_NE(warning.find("x of the 0.005 GB/s link: the link rate is probably wrong"), std::string::npos) << warning;
  EXPECT_LE(warning.size() + 9, 100u);  // with "warning: "
}

}  // namespace
}  // namespace distbench::model
