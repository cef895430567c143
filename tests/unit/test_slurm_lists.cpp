// Slurm's compressed lists (connectors/slurm_lists): host lists and task counts per node, and what is refused.
#include "connectors/slurm_lists.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace distbench::connectors {
namespace {

using Hosts = std::vector<std::string>;

Hosts hosts_of(std::string_view text, std::size_t max_hosts = 1000) {
  return HostList::parse("SLURM_STEP_NODELIST", text).expand(max_hosts);
}

// The one-line usage error parse gives for `text`.
std::string refused(std::string_view text, std::string_view advice = {}) {
  try {
    HostList::parse("SLURM_STEP_NODELIST", text, advice);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_LT(what.size(), 400u) << what;
    return what;
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 80);
  return {};
}

TEST(SlurmHostList, NamesAndRanges) {
  EXPECT_EQ(hosts_of("nodeA,nodeB"), (Hosts{"nodeA", "nodeB"}));
  EXPECT_EQ(hosts_of("vm"), (Hosts{"vm"}));
  EXPECT_EQ(hosts_of("node[01-04,07],gpu-a5"), (Hosts{"node01", "node02", "node03", "node04", "node07", "gpu-a5"}));
  EXPECT_EQ(hosts_of("n[8-10]"), (Hosts{"n8", "n9", "n10"}));     // no padding: lo is written without zeros
  EXPECT_EQ(hosts_of("n[08-10]"), (Hosts{"n08", "n09", "n10"}));  // padded to lo's width
  EXPECT_EQ(hosts_of("n[098-100]"), (Hosts{"n098", "n099", "n100"}));
  EXPECT_EQ(hosts_of("n[1-2]-ib,x.y_z"), (Hosts{"n1-ib", "n2-ib", "x.y_z"}));
  EXPECT_EQ(hosts_of("r[1-2]n[3,5]"), (Hosts{"r1n3", "r1n5", "r2n3", "r2n5"}));  // the last group varies fastest
  const auto list = HostList::parse("SLURM_JOB_NODELIST", "gpu[7-9],cpu1");
  EXPECT_EQ(list.count(), 4u);
  EXPECT_EQ(list.first(), "gpu7");
}

TEST(SlurmHostList, HugeRangesCostNothingUntilExpanded) {
  const auto list = HostList::parse("SLURM_STEP_NODELIST", "n[000000000-999999999],m");
  EXPECT_EQ(list.count(), 1000000001u);
  EXPECT_EQ(list.first(), "n000000000");
  try {
    list.expand(1 << 20);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("SLURM_STEP_NODELIST names 1000000001 hosts, more than the 1048576"),
              std::string::npos)
        << e.what();
  }
  // groups multiply, and the count saturates instead of wrapping round
  const auto product = HostList::parse("SLURM_STEP_NODELIST", "n[1-999999999][1-999999999][1-999999999]");
  EXPECT_EQ(product.count(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(product.first(), "n111");
  EXPECT_THROW(product.expand(10), Error);
}

TEST(SlurmHostList, ALongListWithinTheBound) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += (i ? ",h" : "h") + std::to_string(i);
  const auto hosts = hosts_of(text, 5000);
  ASSERT_EQ(hosts.size(), 5000u);
  EXPECT_EQ(hosts.back(), "h4999");
}

TEST(SlurmHostList, MalformedListsAreRefusedInOneLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "an empty host name (at character 1)"},
      {"n[", "a '[' without its ']' (at character 2)"},
      {"n[1-", "the list ends where a number belongs"},
      {"n[1-2", "a '[' without its ']' (at character 2)"},
      {"n]", "a ']' without its '['"},
      {"n[[1]]", "a '[' inside a bracket group (at character 3)"},
      {"n[]", "an empty entry in a bracket group"},
      {"n[1,]", "an empty entry in a bracket group"},
      {"n[,1]", "an empty entry in a bracket group"},
      {"n[3-1]", "the range 3-1 runs down"},
      {"n[1234567890]", "a number of more than 9 digits"},
      {"n[a]", "'a' where a number belongs"},
      {"n[1;2]", "';' in a bracket group"},
      {"a,,b", "an empty host name (at character 3)"},
      {"a,", "an empty host name (at character 3)"},
      {",a", "an empty host name (at character 1)"},
      {"bad host", "' ', which no host name has"},
      {std::string("n\x01"), "'?', which no host name has"},
      {"n[1-2]x[", "a '[' without its ']' (at character 8)"},
  };
  for (const auto& [text, why] : cases) {
    const auto what = refused(text);
    EXPECT_NE(what.find("is not a Slurm host list: " + why), std::string::npos) << text << " -> " << what;
    EXPECT_EQ(what.rfind("SLURM_STEP_NODELIST='", 0), 0u) << what;
  }
  EXPECT_NE(refused("n[", "set MASTER_ADDR").find("(at character 2); set MASTER_ADDR"), std::string::npos);
}

TEST(SlurmHostList, HostileInputIsBounded) {
  // nesting: refused at the second '[' whatever follows
  EXPECT_NE(refused(std::string(100000, '[')).find("a '[' inside a bracket group (at character 2)"), std::string::npos);
  // longer than an environment string can be: refused before reading it, the value not shown
  const std::string huge(kMaxSlurmListChars + 1, 'a');
  const auto what = refused(huge);
  EXPECT_NE(what.find("is 131073 characters long"), std::string::npos) << what;
  // a long value is shown cut short
  const std::string bad = std::string(1000, 'a') + "]";
  EXPECT_NE(refused(bad).find("...' is not a Slurm host list: a ']' without its '[' (at character 1001)"),
            std::string::npos);
}

TEST(SlurmTaskCounts, TasksOnEachNode) {
  EXPECT_EQ(tasks_on_node("2(x3),1", 0), 2);
  EXPECT_EQ(tasks_on_node("2(x3),1", 2), 2);
  EXPECT_EQ(tasks_on_node("2(x3),1", 3), 1);
  EXPECT_EQ(tasks_on_node("2(x3),1", 4), std::nullopt);
  EXPECT_EQ(tasks_on_node("2(x3),1", -1), std::nullopt);
  EXPECT_EQ(tasks_on_node("4", 0), 4);
  EXPECT_EQ(total_tasks("2(x3),1"), 7u);
  EXPECT_EQ(total_tasks("1,2,3"), 6u);
  EXPECT_EQ(tasks_on_node("1(x999999999)", 999999998), 1);
  EXPECT_EQ(total_tasks("999999999(x999999999)"), 999999998000000001u);
}

TEST(SlurmTaskCounts, MalformedCountsAreNone) {
  for (const std::string bad :
       {"", "2(x3", "2(x)", "(x3)", "0", "2(x0)", "2,", ",2", "a", "2(y3)", "2(x3)x", "1234567890", "-1", "2 ,1"}) {
    EXPECT_EQ(tasks_on_node(bad, 0), std::nullopt) << bad;
    EXPECT_EQ(total_tasks(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(total_tasks(std::string(kMaxSlurmListChars + 1, '1')), std::nullopt);
}

}  // namespace
}  // namespace distbench::connectors
