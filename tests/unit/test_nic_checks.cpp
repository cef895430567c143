// Each node's NIC rate in distbench health (benchmarks/health/nic_checks): an information check per node, the links
// as a fraction of the NIC, the console's line; the links' verdicts the same with and without the rates.
#include "benchmarks/health/nic_checks.hpp"

#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/health_text.hpp"
#include "benchmarks/health/prometheus.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;

// Three nodes of one rank each; every directed link at 0.5 GB/s but c->a at 0.05; each leader's NIC as given.
PhaseResult nic_links_phase(const std::vector<std::optional<NicRate>>& nics) {
  PhaseResult r;
  r.name = "links";
  for (int n = 0; n < 3; ++n) {
    nlohmann::json j = {{"links", nlohmann::json::array()}};
    for (int to = 0; to < 3; ++to) {
      if (to != n) j["links"].push_back({{"from", n}, {"to", to}, {"gbps", n == 2 && to == 0 ? 0.05 : 0.5}});
    }
    if (nics[static_cast<std::size_t>(n)]) add_nic_sent(j, *nics[static_cast<std::size_t>(n)]);
    r.ranks.emplace_back(std::move(j));
  }
  return r;
}

const Check* nic_find(const std::vector<Check>& checks, const std::string& metric, const std::string& subject) {
  for (const Check& c : checks) {
    if (c.metric == metric && c.subject == subject) return &c;
  }
  return nullptr;
}

TEST(NicChecks, EachNodesRateIsInformationAndItsLinksAFractionOfIt) {
  const Topology topo = make_topology({0, 1, 2}, {"a", "b", "c"});
  const NicRate ten{"eth0", 10000.0, "/sys/class/net/eth0/speed", "the only up physical interface with a rate"};
  const NicRate unknown{"", std::nullopt, "", "no up interface with a known rate (eth0: speed unknown ('-1'))"};
  const std::vector<std::optional<NicRate>> nics{ten, unknown, std::nullopt};  // c's leader sent none
  const PhaseResult phase = nic_links_phase(nics);
  const LinkJudgement links = link_checks(phase, topo, HealthPlan{});
  const auto sent = nic_rates_sent(phase, topo);
  ASSERT_EQ(sent.size(), 3U);
  EXPECT_EQ(sent[0]->mbps, 10000.0);
  EXPECT_FALSE(sent[1]->mbps.has_value());
  EXPECT_FALSE(sent[2].has_value());
  const auto checks = nic_checks(sent, topo, links.node_summaries);
  const Check* a = nic_find(checks, "node.nic.link_gbps", "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->status, Status::healthy);
  EXPECT_DOUBLE_EQ(a->value, 1.25);  // 10000 Mb/s = 1.25 GB/s: megabits, not megabytes
  EXPECT_EQ(a->unit, "GB/s");
  EXPECT_EQ(a->limit,
            "eth0, 10000 Mb/s read from /sys/class/net/eth0/speed (the only up physical interface with a rate)");
  const Check* b = nic_find(checks, "node.nic.link_gbps", "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->status, Status::healthy);
  EXPECT_TRUE(std::isnan(b->value));
  EXPECT_THAT(b->why, HasSubstr("unknown: no up interface with a known rate"));
  EXPECT_EQ(nic_find(checks, "node.nic.link_gbps", "c"), nullptr);
  // a's links: 0.5 out, 0.5 in from b, 0.05 in from c: median 0.5 of 1.25 GB/s
  const Check* f = nic_find(checks, "node.link.fraction_of_nic", "a");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->value, 0.4);
  EXPECT_EQ(f->status, Status::healthy);
  EXPECT_EQ(f->limit, "its median link 0.5 GB/s of eth0's 1.25 GB/s (10000 Mb/s)");
  EXPECT_EQ(nic_find(checks, "node.link.fraction_of_nic", "b"), nullptr);  // its rate is unknown
  // The links' verdicts are the median's, with or without the rates.
  const LinkJudgement without = link_checks(nic_links_phase({std::nullopt, std::nullopt, std::nullopt}), topo, {});
  ASSERT_EQ(without.checks.size(), links.checks.size());
  for (std::size_t k = 0; k < links.checks.size(); ++k) {
    EXPECT_EQ(without.checks[k].status, links.checks[k].status) << k;
    EXPECT_EQ(without.checks[k].limit, links.checks[k].limit) << k;
  }
}

TEST(NicChecks, TheConsolesLinkSummarySaysTheShareOfTheNic) {
  const Topology topo = make_topology({0, 1, 2}, {"a", "b", "c"});
  const NicRate ten{"eth0", 10000.0, "/sys/class/net/eth0/speed", "n"};
  const NicRate one{"eno1", 1000.0, "/sys/class/net/eno1/speed", "n"};
  const PhaseResult phase = nic_links_phase({ten, one, ten});
  const LinkJudgement links = link_checks(phase, topo, HealthPlan{});
  std::vector<Record> records;
  for (const Check& c : links.checks) records.push_back(check_record(c));
  for (const Check& c : links.node_summaries) records.push_back(check_record(c));
  std::string before;
  for (const auto& s : health_sections(records, false)) {
    for (const auto& l : s.lines) before += l + "\n";
  }
  EXPECT_THAT(before, ::testing::Not(HasSubstr("of the NIC")));  // no rate read: the summary as it was
  for (const Check& c : nic_checks(nic_rates_sent(phase, topo), topo, links.node_summaries)) {
    records.push_back(check_record(c));
  }
  std::string all;
  for (const auto& s : health_sections(records, false)) {
    for (const auto& l : s.lines) all += l + "\n";
  }
  const std::string prom = prometheus_text(records, 1.7e9);
  EXPECT_THAT(prom, HasSubstr("distbench_health_node_nic_rate_bytes_per_second{host=\"b\"} 125000000\n"));
  // medians: a 0.5, b 0.5, c 0.5 (c's 0.05 is one of its four); of 1.25, 0.125 and 1.25 GB/s: 40 %, 400 %, 40 %
  EXPECT_THAT(all, HasSubstr("of the NIC: the median link is 40 % of its node's NIC rate (median over 3 nodes); "
                             "lowest a 40 % (eth0, 10000 Mb/s read from /sys/class/net/eth0/speed (n))"));
}

}  // namespace
}  // namespace distbench::health
