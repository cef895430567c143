// The side file of every rank's figures (--per-rank-file): a header with the hosts table, a line per record with its
// figures as columns over the ranks, an end line; replaced whole (never half a line), paced, nothing left beside it.
#include "core/report/per_rank_file.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace distbench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<json> lines_of(const fs::path& p) {
  std::vector<json> out;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

Record measured(std::int64_t bytes, std::vector<int> ranks, const std::vector<std::string>& hosts) {
  Record r;
  r.kind = "collective";
  r.set("collective", std::string("allreduce")).set("bytes", bytes);
  for (int rank : ranks) {
    r.ranks.push_back({rank,
                       hosts[static_cast<std::size_t>(rank)],
                       {{"time_us", 10.0 + rank}, {"minor_faults_per_op", rank == 1 ? 0.5 : 0.0}}});
  }
  return r;
}

const std::vector<std::string> kHosts = {"nodeA", "nodeA", "nodeB"};

TEST(PerRankFile, AHeaderWithTheHostsThenAColumnarLinePerRecordThenTheEnd) {
  const fs::path dir = fresh_dir("per_rank_format");
  const fs::path path = dir / "ranks.jsonl";
  PerRankFile file(path.string());
  file.claim();
  file.begin("collective", kHosts);
  Record skipped;
  skipped.kind = "collective";
  skipped.set("bytes", std::int64_t{2});
  skipped.status = "skipped";
  file.add({measured(8, {0, 1, 2}, kHosts), skipped});
  file.add({measured(16, {2, 0}, kHosts)});
  file.finish();

  const std::vector<json> lines = lines_of(path);
  ASSERT_EQ(lines.size(), 5u) << text_of(path);
  EXPECT_EQ(lines[0], json::parse(R"({"type": "per_rank", "version": 1, "benchmark": "collective", "world_size": 3,
                                      "hosts": ["nodeA", "nodeB"], "host_of_rank": [0, 0, 1]})"));
  EXPECT_EQ(lines[1], json::parse(R"({"type": "record", "index": 0, "kind": "collective",
                                      "params": {"collective": "allreduce", "bytes": 8}, "status": "ok", "ranks": 3,
                                      "figures": {"time_us": [10, 11, 12], "minor_faults_per_op": [0, 0.5, 0]}})"));
  EXPECT_EQ(lines[2], json::parse(R"({"type": "record", "index": 1, "kind": "collective", "params": {"bytes": 2},
                                      "status": "skipped", "ranks": 0, "figures": {}})"));
  // ranks not 0 .. n-1 in order: listed
  EXPECT_EQ(lines[3]["rank"], json::parse("[2, 0]"));
  EXPECT_EQ(lines[3]["figures"]["time_us"], json::parse("[12, 10]"));
  EXPECT_EQ(lines[4], json::parse(R"({"type": "end", "status": "complete", "records": 3, "reason": null})"));
  // nothing beside it: the staging file has no name
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(PerRankFile, BetweenPacedCopiesTheFileHoldsWholeLinesAndAnEndedRunKeepsThemAll) {
  const fs::path dir = fresh_dir("per_rank_pace");
  const fs::path path = dir / "ranks.jsonl";
  // A clock one second further at every reading: each copy takes a second, so the next is due 20 s later.
  auto t = PerRankFile::Clock::time_point{};
  PerRankFile file(path.string(), [&t] { return t += std::chrono::seconds(1); });
  file.begin("latency", kHosts);
  file.add({measured(8, {0, 1, 2}, kHosts)});
  EXPECT_EQ(lines_of(path).size(), 1u);  // not yet due: the header alone, whole
  EXPECT_EQ(text_of(path).back(), '\n');
  file.abandon("interrupted by signal 15 (SIGTERM)");
  const std::vector<json> lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1]["params"]["bytes"], 8);
  EXPECT_EQ(lines[2], json::parse(R"j({"type": "end", "status": "incomplete", "records": 1,
                                        "reason": "interrupted by signal 15 (SIGTERM)"})j"));
  file.finish();  // the first ending is final
  file.add({measured(16, {0, 1, 2}, kHosts)});
  EXPECT_EQ(lines_of(path).size(), 3u);
}

TEST(PerRankFile, AFileAnotherLiveRunWritesIsRefusedBeforeTheRun) {
  const fs::path dir = fresh_dir("per_rank_lock");
  const fs::path path = dir / "ranks.jsonl";
  PerRankFile first(path.string());
  first.claim();
  first.begin("collective", kHosts);
  PerRankFile second(path.string());
  try {
    second.claim();
    FAIL() << "a second writer took the file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("is being written by another run"), std::string::npos) << e.what();
  }
}

TEST(PerRankFile, WithoutAPathNothingIsWritten) {
  PerRankFile none("");
  EXPECT_FALSE(none.active());
  EXPECT_TRUE(none.named().empty());
  none.claim();
  none.begin("collective", kHosts);
  none.add({measured(8, {0}, kHosts)});
  none.finish();
  PerRankFile some("ranks.jsonl");
  ASSERT_EQ(some.named().size(), 1u);
  EXPECT_EQ(some.named()[0].option, "--per-rank-file");
}

}  // namespace
}  // namespace distbench
