// Where a report's messages changed protocol: the eager limit read from the library, the hosts and the OMPI_MCA_*
// variables a report records, and the switch found in fitted points on either side of it.
#include "model/protocol_break.hpp"
#include "model/transport.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace distbench::model {
namespace {

RunInfo open_mpi_run(std::vector<std::string> hosts, KeyValues variables = {},
                     std::string library = "Open MPI v4.1.4, package: Debian OpenMPI") {
  RunInfo info;
  info.backend = "mpi";
  info.versions = {{"mpi.library", std::move(library)}};
  for (std::size_t i = 0; i < hosts.size(); ++i) info.ranks.push_back({static_cast<int>(i), hosts[i], 0, ""});
  info.environment = std::move(variables);
  return info;
}

TEST(Transport, BetweenHostsTcpAndItsDefault) {
  const auto l = eager_limit(open_mpi_run({"nodeA", "nodeB"}, {{"OMPI_MCA_btl", "tcp,self"}}));
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->bytes, 65536);
  EXPECT_EQ(l->parameter, "btl_tcp_eager_limit");
  EXPECT_EQ(l->source, "Open MPI's default");
  EXPECT_EQ(l->transport, "tcp between hosts");
  // no btl list recorded: tcp is assumed, and the note says so
  EXPECT_NE(eager_limit(open_mpi_run({"a", "b"}))->transport.find("assumed"), std::string::npos);
}

TEST(Transport, AMcaSettingReplacesTheDefault) {
  const auto l = eager_limit(
      open_mpi_run({"a", "b"}, {{"OMPI_MCA_btl", "tcp,self"}, {"OMPI_MCA_btl_tcp_eager_limit", "4194304"}}));
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->bytes, 4194304);
  EXPECT_EQ(l->source, "OMPI_MCA_btl_tcp_eager_limit=4194304");
  // a setting that is not a whole number: not known
  EXPECT_FALSE(eager_limit(open_mpi_run({"a", "b"}, {{"OMPI_MCA_btl_tcp_eager_limit", "64k"}})).has_value());
}

TEST(Transport, OneHostIsSharedMemory) {
  const auto v4 = eager_limit(open_mpi_run({"a", "a"}));
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->parameter, "btl_vader_eager_limit");
  EXPECT_EQ(v4->bytes, 4096);
  const auto v5 = eager_limit(open_mpi_run({"a", "a"}, {}, "Open MPI v5.0.3"));
  ASSERT_TRUE(v5.has_value());
  EXPECT_EQ(v5->parameter, "btl_sm_eager_limit");
  // tcp forced on one host
  const auto tcp = eager_limit(open_mpi_run({"a", "a"}, {{"OMPI_MCA_btl", "tcp,self"}}));
  ASSERT_TRUE(tcp.has_value());
  EXPECT_EQ(tcp->parameter, "btl_tcp_eager_limit");
}

TEST(Transport, UnknownWhereTheReportDoesNotSay) {
  EXPECT_FALSE(eager_limit(open_mpi_run({"a", "b"}, {{"OMPI_MCA_pml", "ucx"}})).has_value());
  EXPECT_FALSE(eager_limit(open_mpi_run({"a", "b"}, {{"OMPI_MCA_btl", "^tcp"}})).has_value());
  EXPECT_FALSE(eager_limit(open_mpi_run({"a", "b"}, {}, "MPICH Version: 4.0")).has_value());
  EXPECT_FALSE(eager_limit(open_mpi_run({})).has_value());  // no hosts recorded
  RunInfo nccl = open_mpi_run({"a", "b"});
  nccl.backend = "nccl";
  EXPECT_FALSE(eager_limit(nccl).has_value());
}

TEST(ProtocolBreak, ASlowerSidePastTheLimitIsNamed) {
  // p=2 ring allreduce: one step's message is S/2; 64 KiB of S/2 is past a 64 KiB limit (its header counts)
  std::vector<ProtocolPoint> points;
  for (double s = 8192; s <= 1 << 21; s *= 2) points.push_back({2, s, s / 2, s >= 131072 ? 2e-3 : 1e-3, 1e-3});
  points.push_back({3, 1 << 20, (1 << 20) / 3.0, 1e-3, 1e-3});  // another rank count, one side only: nothing to say
  const auto breaks = protocol_breaks(points, 65536);
  ASSERT_EQ(breaks.size(), 1u);
  EXPECT_EQ(breaks[0].nranks, 2);
  EXPECT_EQ(breaks[0].first_past, 131072);
  EXPECT_EQ(breaks[0].last_past, 1 << 21);
  EXPECT_DOUBLE_EQ(breaks[0].ratio_past, 2.0);
  EXPECT_DOUBLE_EQ(breaks[0].ratio_below, 1.0);
  EagerLimit l{65536, "btl_tcp_eager_limit", "Open MPI's default", "tcp between hosts"};
  const std::string line = describe(breaks[0], l);
  EXPECT_EQ(line.rfind("p=2, 128 KiB .. 2 MiB: one step's message is past btl_tcp_eager_limit (64 KiB", 0), 0u) << line;
  EXPECT_NE(line.find("2.00x the model's time, the 4 sizes below it 1.00x"), std::string::npos) << line;
}

TEST(ProtocolBreak, NoBreakWhereBothSidesFollowTheModelOrTheShareIsUnknown) {
  std::vector<ProtocolPoint> points;
  for (double s = 32768; s <= 1 << 21; s *= 2) points.push_back({2, s, s / 2, 1.1e-3, 1e-3});
  EXPECT_TRUE(protocol_breaks(points, 65536).empty());
  const double unknown = std::numeric_limits<double>::quiet_NaN();
  std::vector<ProtocolPoint> segmented;
  for (double s = 32768; s <= 1 << 21; s *= 2) segmented.push_back({2, s, unknown, s >= 131072 ? 2e-3 : 1e-3, 1e-3});
  EXPECT_TRUE(protocol_breaks(segmented, 65536).empty());
  // two cases past the limit, one of them a cliff: too few to call it the protocol's
  std::vector<ProtocolPoint> two_past;
  for (double s = 8192; s <= 1 << 18; s *= 2) two_past.push_back({2, s, s / 2, s == 131072 ? 3e-3 : 1e-3, 1e-3});
  EXPECT_TRUE(protocol_breaks(two_past, 65536).empty());
  EXPECT_FALSE(past_limit(65472 - 1, 65536));
  EXPECT_TRUE(past_limit(65536 - 63, 65536));
}

}  // namespace
}  // namespace distbench::model
