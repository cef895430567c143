// Which link rate distbench model holds bandwidths to: --link-gbps, else the slowest NIC the reports recorded at run
// time, else unknown (said so); older reports that recorded none leave it unsaid, their output unchanged.
#include "model/link_rate.hpp"

#include "model/model.hpp"
#include "model/model_views.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace distbench::model {
namespace {

constexpr double kNicAlpha = 15e-6, kNicBeta = 2e-9;  // 15 us, 0.5 GB/s: a 4000 Mb/s link

// A ring allreduce at p ranks, two per host, timed by the formula; each host's NIC at `mbps` (0: none recorded).
ParsedReport nic_sweep(int p, double mbps, bool unknown_on_last = false) {
  ParsedReport r;
  r.benchmark = "collective";
  r.info.backend = "mpi";
  for (int k = 0; k < p; ++k) r.info.ranks.push_back({k, "node" + std::to_string(k / 2), k % 2});
  for (int n = 0; mbps > 0 && n < (p + 1) / 2; ++n) {
    NodeNicRate nic{"node" + std::to_string(n), {"eth0", mbps, "/sys/class/net/eth0/speed", "the only one"}};
    if (unknown_on_last && n == (p - 1) / 2) nic.rate = {"", std::nullopt, "", "no up interface (eth0: link down)"};
    r.info.nic_rates.push_back(nic);
  }
  for (double s = 8; s <= 4 << 20; s *= 4) {
    Record rec;
    rec.kind = "collective";
    rec.set("collective", std::string("allreduce"))
        .set("backend", std::string("mpi"))
        .set("placement", std::string("out-of-place"))
        .set("bytes", static_cast<std::int64_t>(s))
        .set("nranks", std::int64_t{p});
    PhaseStats phase;
    phase.name = "time";
    phase.summary.samples = 10;
    phase.summary.median = 2.0 * (p - 1) * kNicAlpha + 2.0 * (p - 1) / p * s * kNicBeta;
    rec.phases.push_back(phase);
    r.records.push_back(rec);
  }
  return r;
}

TEST(LinkRate, TheGivenRateWins) {
  const LinkRate l = link_rate_of({nic_sweep(4, 10000)}, 3.0);
  EXPECT_EQ(l.gbps, 3.0);
  EXPECT_EQ(l.source, "--link-gbps");
}

TEST(LinkRate, TheSlowestRecordedNicOtherwise) {
  ParsedReport a = nic_sweep(4, 10000);
  a.info.nic_rates[1].rate.mbps = 4000;
  a.info.nic_rates[1].rate.interface = "eth1";
  const LinkRate l = link_rate_of({a, nic_sweep(2, 25000)}, 0);
  EXPECT_EQ(l.gbps, 0.5);  // 4000 Mb/s
  EXPECT_EQ(l.source, "eth1 4000 Mb/s as read on node1 (/sys/class/net/eth0/speed), the slowest of 2 nodes' NICs");
}

TEST(LinkRate, UnknownNamesTheNodeAndOneNodeHasNone) {
  LinkRate l = link_rate_of({nic_sweep(4, 10000, true)}, 0);
  EXPECT_EQ(l.gbps, 0);
  EXPECT_EQ(l.source,
            "unknown: node1's NIC rate was not read (no up interface (eth0: link down)); --link-gbps gives one");
  l = link_rate_of({nic_sweep(2, 10000)}, 0);  // both ranks on node0: shared memory, no NIC
  EXPECT_EQ(l.gbps, 0);
  EXPECT_EQ(l.source.rfind("none: every report ran on one node", 0), 0U) << l.source;
  EXPECT_TRUE(link_rate_of({nic_sweep(4, 0)}, 0).source.empty());  // recorded none: nothing said
}

TEST(LinkRate, TheModelHoldsBandwidthsToTheRecordedRateAndSaysWhence) {
  ModelOptions o;
  const ModelResult r = build_model({nic_sweep(4, 4000), nic_sweep(6, 4000)}, {"a.json", "b.json"}, o);
  EXPECT_EQ(r.link_gbps, 0.5);
  const std::string text = model_text(r);
  EXPECT_NE(text.find("# link 0.5 GB/s per rank and direction: eth0 4000 Mb/s as read on node0 "
                      "(/sys/class/net/eth0/speed),\n#   the slowest of 3 nodes' NICs\n"),  // in 100 columns
            std::string::npos)
      << text;
  EXPECT_NE(text.find("= 100% of the 0.5 GB/s link"), std::string::npos) << text;
  EXPECT_NE(text.find("of what the links allow (0.5 GB/s)"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(model_json(r));
  EXPECT_EQ(j["link_gbps"], 0.5);
  EXPECT_EQ(j["link_source"].get<std::string>().rfind("eth0 4000 Mb/s as read on node0", 0), 0U);
  EXPECT_NE(model_markdown(r).find("link 0.5 GB/s per rank and direction: eth0"), std::string::npos);
  // --link-gbps over the recorded rate, and said so.
  o.link_gbps = 0.25;
  const ModelResult given = build_model({nic_sweep(4, 4000)}, {"a.json"}, o);
  EXPECT_EQ(given.link_gbps, 0.25);
  EXPECT_NE(model_text(given).find("# link 0.25 GB/s per rank and direction: --link-gbps\n"), std::string::npos);
  EXPECT_NE(model_text(given).find("= 200% of the 0.25 GB/s link"), std::string::npos) << model_text(given);
}

TEST(LinkRate, AReportWithoutRatesKeepsItsOutput) {
  const ModelResult r = build_model({nic_sweep(4, 0), nic_sweep(6, 0)}, {"a.json", "b.json"}, ModelOptions{});
  EXPECT_EQ(r.link_gbps, 0);
  EXPECT_EQ(model_text(r).find("# link"), std::string::npos);
  EXPECT_EQ(model_text(r).find("GB/s link"), std::string::npos);  // no link to be a share of
  EXPECT_FALSE(nlohmann::json::parse(model_json(r)).contains("link_source"));
}

TEST(LinkRate, AnUnknownRateIsSaid) {
  const ModelResult r = build_model({nic_sweep(4, 4000, true)}, {"a.json"}, ModelOptions{});
  EXPECT_EQ(r.link_gbps, 0);
  EXPECT_NE(model_text(r).find("# link rate unknown: node1's NIC rate was not read"), std::string::npos)
      << model_text(r);
}

}  // namespace
}  // namespace distbench::model
