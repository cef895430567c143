#include "core/report/atomic_file.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace distbench {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("distbench-atomic-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    return out;
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndLeavesNoTemporaryFile) {
  write_file_atomically(path("r.json"), "{}\n");
  EXPECT_EQ(read(path("r.json")), "{}\n");
  EXPECT_EQ(names(), std::vector<std::string>{"r.json"});
}

TEST_F(AtomicFile, ANameOfTheLongestLegalLengthIsWritten) {
  for (const std::size_t length : {245u, 250u, 255u}) {
    const std::string name = std::string(length - 5, 'r') + ".json";
    ASSERT_EQ(name.size(), length);
    check_writable(path(name));
    write_file_atomically(path(name), "{\"a\": 1}\n", Durability::process);
    write_file_atomically(path(name), "{\"a\": 2}\n");  // replacing it too
    EXPECT_EQ(read(path(name)), "{\"a\": 2}\n");
    EXPECT_EQ(names(), std::vector<std::string>{name}) << length;
    fs::remove(path(name));
  }
}

TEST_F(AtomicFile, ANameTheFileSystemRefusesIsRefusedBeforeTheRun) {
  const std::string name = std::string(251, 'r') + ".json";  // 256 bytes
  try {
    check_writable(path(name));
    FAIL() << "a 256-byte name was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("256 bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at most 255"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(names().empty());
}

TEST_F(AtomicFile, ALongUtf8NameIsCutOnACharacterBoundary) {
  std::string name;
  while (name.size() + 2 <= 250) name += "é";
  name += ".md";  // 253 bytes
  write_file_atomically(path(name), "x");
  EXPECT_EQ(read(path(name)), "x");
  EXPECT_EQ(names(), std::vector<std::string>{name});
}

// The usage_error's text of `f`, or "" when it throws nothing.
template <typename F>
std::string refusal(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(AtomicFile, ASymbolicLinkIsRefusedBeforeTheRunAndLeftAlone) {
  { std::ofstream(path("target.json")) << "theirs"; }
  fs::create_symlink(path("target.json"), path("link.json"));
  fs::create_symlink(path("nowhere.json"), path("dangling.json"));
  EXPECT_NE(refusal([&] { check_writable(path("link.json")); }).find("it is a symbolic link"), std::string::npos);
  EXPECT_NE(refusal([&] { check_writable(path("dangling.json")); }).find("it is a symbolic link"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(read(path("target.json")), "theirs");
}

TEST_F(AtomicFile, AnOutputThatIsAnInputOrAnotherOutputIsRefused) {
  { std::ofstream(path("in.json")) << "{}"; }
  fs::create_symlink(path("in.json"), path("alias.json"));
  fs::create_hard_link(path("in.json"), path("hard.json"));
  const std::vector<NamedPath> inputs = {{"the report", path("in.json")}};
  EXPECT_EQ(refusal([&] { check_distinct_files({{"--output", path("out.html")}}, inputs); }), "");
  for (const std::string& same : {path("in.json"), path("./in.json"), path("alias.json"), path("hard.json")}) {
    const std::string why = refusal([&] { check_distinct_files({{"--output", same}}, inputs); });
    EXPECT_NE(why.find("that is the report this run reads"), std::string::npos) << same << ": " << why;
  }
  const std::string two = refusal([&] {
    check_distinct_files({{"--json", path("r.out")}, {"--prom", path("sub/../r.out")}}, {});
  });
  EXPECT_NE(two.find("--json and --prom both name the file"), std::string::npos) << two;
}

}  // namespace
}  // namespace distbench
