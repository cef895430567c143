// One writer per report file (core/report/report_lock): a second writer of a path another one holds is refused
// before it writes; a writer whose file was replaced behind its back stops writing it; the lock goes with its holder.
// flock locks belong to open files, so two ReportLocks in one process stand for two runs.
#include "core/report/report_lock.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace distbench {
namespace {

namespace fs = std::filesystem;

std::string read_locked(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ReportLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("report_lock_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "r.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::size_t files() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  fs::path dir_;
  std::string path_;
};

TEST_F(ReportLockTest, ASecondWriterOfAFileBeingWrittenIsRefusedBeforeItWrites) {
  ReportLock first(path_);
  first.claim();
  first.replace("first v1", Durability::process);
  first.replace("first v2", Durability::process);  // a new file each time, and still locked

  ReportLock second(path_);
  try {
    second.claim();
    FAIL() << "a file another writer holds was claimed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("being written by another run"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_locked(path_), "first v2");
  EXPECT_EQ(files(), 1U) << "nothing else written";
}

TEST_F(ReportLockTest, TheLockGoesWithItsHolder) {
  {
    ReportLock first(path_);
    first.replace("first", Durability::disk);
  }
  ReportLock second(path_);
  EXPECT_NO_THROW(second.claim());
  second.replace("second", Durability::disk);
  EXPECT_EQ(read_locked(path_), "second");
}

TEST_F(ReportLockTest, AWriterWhoseFileWasReplacedStopsWritingIt) {
  ReportLock first(path_);
  first.claim();
  first.replace("first", Durability::process);
  {
    std::ofstream(dir_ / "other") << "another process's version";
    fs::rename(dir_ / "other", path_);
  }
  EXPECT_THROW(first.replace("first again", Durability::process), Error);
  EXPECT_EQ(read_locked(path_), "another process's version");
  EXPECT_EQ(files(), 1U) << "no temporary file left";
}

TEST_F(ReportLockTest, AFileCreatedByAnotherWriterAfterTheClaimIsNotOverwritten) {
  ReportLock first(path_);
  first.claim();  // nothing there yet
  ReportLock second(path_);
  second.claim();
  second.replace("second", Durability::process);
  EXPECT_THROW(first.replace("first", Durability::process), Error);
  EXPECT_EQ(read_locked(path_), "second");
}

TEST_F(ReportLockTest, AnExistingFileOfAFinishedRunIsTakenOver) {
  std::ofstream(path_) << "an old report";
  ReportLock lock(path_);
  lock.claim();
  lock.replace("new", Durability::process);
  EXPECT_EQ(read_locked(path_), "new");
}

TEST_F(ReportLockTest, AFileRemovedMeanwhileIsWrittenAgain) {
  ReportLock lock(path_);
  lock.replace("one", Durability::process);
  fs::remove(path_);
  lock.replace("two", Durability::process);
  EXPECT_EQ(read_locked(path_), "two");
}

}  // namespace
}  // namespace distbench
