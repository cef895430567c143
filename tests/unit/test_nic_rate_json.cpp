// Each node's NIC rate in a report ("environment.nic_rates"): written, read back, refused when malformed, and absent
// from reports of runs that did not read it.
#include "core/report/nic_rate_json.hpp"

#include "core/error.hpp"
#include "core/report/json_model.hpp"

#include <gtest/gtest.h>

#include <string>

namespace distbench {
namespace {

NodeNicRate nic_of(const nlohmann::ordered_json& j) { return nic_rate_from(JsonField(j, "nic_rates[0]")); }

TEST(NicRateJson, AKnownRateRoundTrips) {
  const NodeNicRate n{"nodeA", {"eth0", 10000.0, "/sys/class/net/eth0/speed", "the only up physical interface"}};
  const auto j = nic_rate_json(n);
  EXPECT_EQ(j.dump(), R"({"host":"nodeA","interface":"eth0","mbps":10000.0,"source":"/sys/class/net/eth0/speed",)"
                      R"("note":"the only up physical interface"})");
  const NodeNicRate back = nic_of(j);
  EXPECT_EQ(back.host, "nodeA");
  EXPECT_EQ(back.rate.interface, "eth0");
  EXPECT_EQ(back.rate.mbps, 10000.0);
  EXPECT_EQ(back.rate.source, n.rate.source);
  EXPECT_EQ(back.rate.note, n.rate.note);
}

TEST(NicRateJson, AnUnknownRateIsNull) {
  const NodeNicRate n{"nodeB", {"", std::nullopt, "", "no up interface with a known rate (eth0: link down)"}};
  const auto j = nic_rate_json(n);
  EXPECT_TRUE(j["mbps"].is_null());
  EXPECT_TRUE(j["interface"].is_null());
  const NodeNicRate back = nic_of(j);
  EXPECT_FALSE(back.rate.mbps.has_value());
  EXPECT_EQ(back.rate.note, n.rate.note);
}

TEST(NicRateJson, AMalformedRecordIsOneErrorNamingTheField) {
  auto j = nic_rate_json({"nodeA", {"eth0", 10000.0, "/x", "n"}});
  j["mbps"] = -1;
  try {
    nic_of(j);
    ADD_FAILURE() << "a negative rate was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nic_rates[0].mbps"), std::string::npos) << e.what();
  }
  j.erase("host");
  EXPECT_THROW(nic_of(j), Error);
}

TEST(NicRateJson, AReportCarriesThemOnlyWhenRead) {
  RunInfo info;
  info.tool_version = "1";
  EXPECT_FALSE(run_info_json(info)["environment"].contains("nic_rates"));  // older reports' bytes unchanged
  info.nic_rates.push_back({"nodeA", {"eth0", 25000.0, "/sys/class/net/eth0/speed", "n"}});
  const auto j = run_info_json(info);
  ASSERT_TRUE(j["environment"].contains("nic_rates"));
  EXPECT_EQ(j["environment"]["nic_rates"][0]["mbps"], 25000.0);
}

}  // namespace
}  // namespace distbench
