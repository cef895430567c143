#include "core/report/per_rank_file.hpp"

#include "core/error.hpp"
#include "core/report/json_model.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_map>

namespace distbench {
namespace {

using json = ordered_json;

std::string line_of(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"; }

[[noreturn]] void side_file_failed(const std::string& path, std::string_view step, int err) {
  throw failure(fmt::format("cannot write the per-rank file '{}': {} failed: {}", path, step, std::strerror(err)));
}

// An unnamed file in PATH's directory (O_TMPFILE; else a file created and removed at once): nothing is left behind
// when the process dies, whatever way.
int open_staging(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string dir = parent.empty() ? std::string(".") : parent.string();
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  const std::string named = fmt::format("{}.staging.{}", path, ::getpid());
  fd = ::open(named.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) side_file_failed(path, "creating its staging file", errno);
  ::unlink(named.c_str());
  return fd;
}

// Copies the first `bytes` of `from` into `to` (in the kernel where it can, else through a small buffer).
int copy_prefix(int from, int to, std::uint64_t bytes) {
  loff_t offset = 0;
  while (static_cast<std::uint64_t>(offset) < bytes) {
    const ssize_t n = ::copy_file_range(from, &offset, to, nullptr, bytes - static_cast<std::uint64_t>(offset), 0);
    if (n > 0) continue;
    if (n == 0) return EIO;  // the staging file is shorter than what was written to it
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) return errno;
    break;  // no in-kernel copy here: the loop below does it
  }
  std::vector<char> buffer(1 << 20);
  while (static_cast<std::uint64_t>(offset) < bytes) {
    const std::size_t want = std::min<std::uint64_t>(buffer.size(), bytes - static_cast<std::uint64_t>(offset));
    const ssize_t n = ::pread(from, buffer.data(), want, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0 ? EIO : errno;
    if (const int err = write_content(to, std::string_view(buffer.data(), static_cast<std::size_t>(n)))) return err;
    offset += n;
  }
  return 0;
}

bool ranks_in_order(const std::vector<RankFigures>& ranks) {
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].rank != static_cast<int>(i)) return false;
  }
  return true;
}

// A record's line: its parameters and status, and each figure as a column over its ranks.
json record_line(const Record& r, std::size_t index) {
  json j = {{"type", "record"},   {"index", index},         {"kind", r.kind}, {"params", params_json(r.params)},
            {"status", r.status}, {"ranks", r.ranks.size()}};
  if (!ranks_in_order(r.ranks)) {
    json ids = json::array();
    for (const RankFigures& rank : r.ranks) ids.push_back(rank.rank);
    j["rank"] = std::move(ids);
  }
  json figures = json::object();
  if (!r.ranks.empty()) {
    for (std::size_t f = 0; f < r.ranks.front().figures.size(); ++f) {
      const std::string& key = r.ranks.front().figures[f].key;
      json column = json::array();
      for (const RankFigures& rank : r.ranks) {
        const bool same = f < rank.figures.size() && rank.figures[f].key == key;  // the layout's order, as a rule
        double v = same ? rank.figures[f].value : kNotMeasured;
        if (!same) {
          for (const Metric& m : rank.figures) v = m.key == key ? m.value : v;
        }
        column.push_back(figure_json(v));
      }
      figures[key] = std::move(column);
    }
  }
  j["figures"] = std::move(figures);
  return j;
}

}  // namespace

PerRankFile::PerRankFile(std::string path, Now now) : path_(std::move(path)), lock_(path_), now_(std::move(now)) {}

PerRankFile::~PerRankFile() {
  if (staging_ >= 0) ::close(staging_);
}

std::vector<NamedPath> PerRankFile::named() const {
  if (!active()) return {};
  return {{"--per-rank-file", path_}};
}

void PerRankFile::claim() {
  std::lock_guard lock(mutex_);
  if (active()) lock_.claim();
}

void PerRankFile::begin(std::string_view benchmark, const std::vector<std::string>& hosts) {
  std::lock_guard lock(mutex_);
  if (!active() || staging_ >= 0) return;
  staging_ = open_staging(path_);
  json names = json::array();
  json host_of_rank = json::array();
  std::unordered_map<std::string, std::size_t> index;
  for (const std::string& host : hosts) {
    const auto [it, added] = index.emplace(host, index.size());
    if (added) names.push_back(host);
    host_of_rank.push_back(it->second);
  }
  append(line_of({{"type", "per_rank"},
                  {"version", kPerRankFileVersion},
                  {"benchmark", benchmark},
                  {"world_size", hosts.size()},
                  {"hosts", std::move(names)},
                  {"host_of_rank", std::move(host_of_rank)}}));
  publish(Durability::process);
}

void PerRankFile::add(const std::vector<Record>& row) {
  std::lock_guard lock(mutex_);
  if (!active() || staging_ < 0 || ended_) return;
  for (const Record& r : row) append(line_of(record_line(r, records_++)));
  const auto start = now_();
  if (!published_ || start - last_end_ >= last_cost_ * kPace) publish(Durability::process);
}

void PerRankFile::finish() {
  std::lock_guard lock(mutex_);
  end_with("complete", "", Durability::disk);
}

void PerRankFile::abandon(const std::string& reason) {
  std::lock_guard lock(mutex_);
  end_with("incomplete", reason, Durability::process);
}

void PerRankFile::end_with(const std::string& status, const std::string& reason, Durability durability) {
  if (!active() || staging_ < 0 || ended_) return;
  ended_ = true;
  append(line_of({{"type", "end"},
                  {"status", status},
                  {"records", records_},
                  {"reason", reason.empty() ? json(nullptr) : json(reason)}}));
  publish(durability);
}

void PerRankFile::append(std::string_view line) {
  std::uint64_t at = staged_;
  while (!line.empty()) {
    const ssize_t n = ::pwrite(staging_, line.data(), line.size(), static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) side_file_failed(path_, "writing its staging file", errno);  // the half line is never copied
    line.remove_prefix(static_cast<std::size_t>(n));
    at += static_cast<std::uint64_t>(n);
  }
  staged_ = at;
}

void PerRankFile::publish(Durability durability) {
  const auto start = now_();
  const std::uint64_t bytes = staged_;
  lock_.replace([this, bytes](int fd) { return copy_prefix(staging_, fd, bytes); }, durability);
  last_end_ = now_();
  last_cost_ = last_end_ - start;
  published_ = true;
}

}  // namespace distbench
