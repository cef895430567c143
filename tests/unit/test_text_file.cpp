#include "core/sys/text_file.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace distbench {
namespace {

namespace fs = std::filesystem;

// The message of the usage_error read_text_file throws; fails the test if none.
std::string text_read_error(const std::string& path, std::size_t max_bytes = 1024) {
  try {
    read_text_file(path, "hostfile", max_bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error reading " << path;
  return {};
}

class TextFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("distbench-text-file-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  }

 private:
  fs::path dir_;
};

TEST_F(TextFile, ReadsARegularFileWhole) {
  const std::string content("a\0b\nc", 5);
  EXPECT_EQ(read_text_file(write("f", content), "hostfile", 1024), content);
}

TEST_F(TextFile, ReadsAFileOfExactlyTheCap) {
  EXPECT_EQ(read_text_file(write("f", std::string(1024, 'x')), "hostfile", 1024).size(), 1024u);
}

TEST_F(TextFile, RefusesAFileLargerThanTheCap) {
  const auto msg = text_read_error(write("f", std::string(1025, 'x')));
  EXPECT_EQ(msg, "hostfile '" + path("f") +
                     "' is larger than 1 KiB, the most distbench reads as a hostfile; check that it is the right file");
}

TEST_F(TextFile, RefusesAnEndlessDevice) {
  EXPECT_EQ(text_read_error("/dev/zero"),
            "hostfile '/dev/zero' is not a regular file (a character device); give the path of a regular file");
  EXPECT_NE(text_read_error("/dev/urandom").find("is not a regular file (a character device)"), std::string::npos);
}

TEST_F(TextFile, RefusesADeviceBehindASymlink) {
  fs::create_symlink("/dev/zero", path("link"));
  EXPECT_NE(text_read_error(path("link")).find("is not a regular file (a character device)"), std::string::npos);
}

TEST_F(TextFile, ReadsARegularFileBehindASymlink) {
  fs::create_symlink(write("f", "node1\n"), path("link"));
  EXPECT_EQ(read_text_file(path("link"), "hostfile", 1024), "node1\n");
}

TEST_F(TextFile, RefusesAFifoWithoutWaitingForAWriter) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_NE(text_read_error(path("fifo")).find("is not a regular file (a named pipe)"), std::string::npos);
}

TEST_F(TextFile, RefusesADirectory) {
  EXPECT_NE(text_read_error(path("")).find("is not a regular file (a directory)"), std::string::npos);
}

TEST_F(TextFile, RefusesAnEmptyPath) {
  EXPECT_EQ(text_read_error(""), "the hostfile path is empty; give the path of a file");
}

TEST_F(TextFile, NamesAMissingFile) {
  EXPECT_EQ(text_read_error(path("missing")), "cannot read hostfile '" + path("missing") +
                                                  "': No such file or directory; check the path and its permissions");
}

TEST_F(TextFile, EscapesControlCharactersInThePath) {
  const auto msg = text_read_error(path("a\nb"));
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("a\\nb"), std::string::npos) << msg;
}

}  // namespace
}  // namespace distbench
