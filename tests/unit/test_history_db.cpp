// The history's database: its schema and version rule, the files it refuses, idempotent ingest, a run stored whole or
// not at all, and series loaded oldest first.
#include "core/error.hpp"
#include "history/history_db.hpp"
#include "history/sqlite_handle.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

namespace distbench::history {
namespace {

namespace fs = std::filesystem;

class HistoryDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("distbench-history-db-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// A run of `cases` cases (one per size), each `time_us` plus its index.
RunToStore run_of(const std::string& hash, double time_us, int cases = 2, const std::string& machine = "m1") {
  RunToStore r;
  r.meta = {
      "2026-11-29T00:00:00Z", "label-" + hash, "", machine, "collective", "mpi", 2, "{}", "f.json", "distbench", hash};
  for (int i = 0; i < cases; ++i) {
    CaseFigures c;
    c.group = machine + " | collective | mpi | np 2 | sampled";
    c.key = c.group + " | collective|bytes=" + std::to_string(8 << i);
    c.label = "allreduce " + std::to_string(8 << i) + " B";
    c.params = {{"collective", std::string("allreduce")}, {"bytes", std::int64_t{8} << i}};
    c.point.time_us = time_us + i;
    c.point.samples = 10;
    r.cases.push_back(c);
  }
  return r;
}

std::int64_t pragma(const std::string& file, const std::string& name) {
  Connection db(file, false);
  Statement s(db, "PRAGMA " + name);
  return s.step() ? s.integer(0) : -1;
}

// The message of the usage_error that opening `file` throws ("" when it opens).
std::string db_refusal(const std::string& file) {
  try {
    HistoryDb db(file, true, 1);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage) << e.what();
    return e.what();
  }
  return "";
}

TEST_F(HistoryDbTest, NewHistoryIsMarkedAndVersioned) {
  { HistoryDb db(path("h.db"), true, 1); }
  EXPECT_EQ(pragma(path("h.db"), "user_version"), kSchemaVersion);
  EXPECT_EQ(pragma(path("h.db"), "application_id"), kApplicationId);
  { HistoryDb again(path("h.db"), false, 1); }     // opens as it is
  EXPECT_FALSE(fs::exists(path("h.db-journal")));  // one file at rest
}

TEST_F(HistoryDbTest, MissingHistoryIsNotMadeByReaders) {
  EXPECT_THROW(HistoryDb(path("absent.db"), false, 1), Error);
  EXPECT_FALSE(fs::exists(path("absent.db")));
}

TEST_F(HistoryDbTest, LaterSchemaIsRefused) {
  { HistoryDb db(path("h.db"), true, 1); }
  {
    Connection c(path("h.db"), false);
    c.exec("PRAGMA user_version = 99", "test");
  }
  const std::string why = db_refusal(path("h.db"));
  EXPECT_NE(why.find("schema version 99"), std::string::npos) << why;
  EXPECT_NE(why.find("later distbench"), std::string::npos) << why;
}

TEST_F(HistoryDbTest, ForeignDatabaseAndOtherFilesAreRefused) {
  {
    Connection c(path("other.db"), true);
    c.exec("CREATE TABLE t (x); PRAGMA application_id = 1234", "test");
  }
  EXPECT_NE(db_refusal(path("other.db")).find("another application (application_id 1234)"), std::string::npos);
  std::ofstream(path("text.db")) << "this is not a database, but it is long enough to look like a header of one\n";
  EXPECT_NE(db_refusal(path("text.db")).find("not a distbench history"), std::string::npos);
}

TEST_F(HistoryDbTest, SameRunTwiceIsStoredOnce) {
  HistoryDb db(path("h.db"), true, 1);
  EXPECT_TRUE(db.ingest(run_of("aa", 10)).has_value());
  EXPECT_FALSE(db.ingest(run_of("aa", 10)).has_value());
  EXPECT_TRUE(db.ingest(run_of("bb", 10)).has_value());
  ASSERT_EQ(db.runs().size(), 2u);
  EXPECT_EQ(db.runs()[0].cases, 2u);
}

TEST_F(HistoryDbTest, RunWithAFailingCaseLeavesNothing) {
  HistoryDb db(path("h.db"), true, 1);
  RunToStore bad = run_of("aa", 10);
  bad.cases.push_back(bad.cases.front());  // the same case twice: the second point breaks the table's key
  EXPECT_THROW(db.ingest(bad), Error);
  EXPECT_TRUE(db.runs().empty());
  EXPECT_TRUE(db.series({}, true).empty());
  EXPECT_TRUE(db.ingest(run_of("aa", 10)).has_value());  // and the history still takes runs
}

// The series of `label` on machine m1; nullptr when absent.
const Series* series_named(const std::vector<Series>& all, const std::string& label) {
  for (const Series& s : all) {
    if (s.label == label && s.group.rfind("m1 ", 0) == 0) return &s;
  }
  return nullptr;
}

TEST_F(HistoryDbTest, SeriesLoadOldestFirst) {
  HistoryDb db(path("h.db"), true, 1);
  for (int i = 0; i < 5; ++i) db.ingest(run_of("run" + std::to_string(i), 100 + i));
  db.ingest(run_of("other", 500, 2, "m2"));
  std::vector<Series> all = db.series({}, true);
  ASSERT_EQ(all.size(), 4u);  // two cases on each of two machines
  const Series* first = series_named(all, "allreduce 8 B");
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->points.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(first->points[i].run, static_cast<std::int64_t>(i + 1));
    EXPECT_DOUBLE_EQ(first->points[i].time_us, 100.0 + static_cast<double>(i));
    EXPECT_EQ(first->points[i].run_label, "label-run" + std::to_string(i));
  }
  EXPECT_EQ(first->params.size(), 2u);
  SeriesQuery q;
  q.machine = "m1";
  q.last = 2;
  all = db.series(q, true);
  ASSERT_EQ(all.size(), 2u);
  first = series_named(all, "allreduce 8 B");
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->points.size(), 2u);
  EXPECT_DOUBLE_EQ(first->points[0].time_us, 103);
  EXPECT_DOUBLE_EQ(first->points[1].time_us, 104);
}

TEST_F(HistoryDbTest, NaNFiguresReadBackAsNotMeasured) {
  HistoryDb db(path("h.db"), true, 1);
  db.ingest(run_of("aa", 10, 1));
  const std::vector<Series> all = db.series({}, true);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(std::isnan(all[0].points[0].wrong));
  EXPECT_TRUE(std::isnan(all[0].points[0].busbw_gbps));
}

}  // namespace
}  // namespace distbench::history
