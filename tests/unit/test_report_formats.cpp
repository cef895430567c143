// The table of report formats: one entry per format, each option named after it, and the targets a command line
// asks for kept in the table's order, a format asked for twice written once.
#include "core/report/report_formats.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace distbench {
namespace {

TEST(ReportFormats, EachEntryIsItsOwnOptionAndMakesAReporter) {
  std::set<std::string> names;
  for (const ReportFormat& f : report_formats()) {
    EXPECT_TRUE(names.insert(std::string(f.name)).second) << f.name;
    EXPECT_TRUE(std::string(f.flag).ends_with(f.option())) << f.flag;
    EXPECT_FALSE(f.help.empty()) << f.name;
    EXPECT_EQ(find_report_format(f.name), &f);
    EXPECT_NE(f.make("-"), nullptr) << f.name;  // nothing is written before begin()
  }
  EXPECT_EQ(find_report_format("pdf"), nullptr);
  EXPECT_EQ(std::string(report_formats().front().flag), "-J,--json");
}

TEST(ReportFormats, TargetsKeepTheTablesOrderAndTheLastPathOfAFormat) {
  const ReportFormat& json = *find_report_format("json");
  const ReportFormat& md = *find_report_format("md");
  std::vector<ReportTarget> targets;
  set_report_target(targets, md, "a.md");
  set_report_target(targets, json, "a.json");
  set_report_target(targets, md, "b.md");
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].format, &json);
  EXPECT_EQ(targets[0].path, "a.json");
  EXPECT_EQ(targets[1].format, &md);
  EXPECT_EQ(targets[1].path, "b.md");
}

}  // namespace
}  // namespace distbench
