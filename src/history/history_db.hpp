// The history: one SQLite file of runs and their cases' figures (docs/history.md, "The database"). The schema is
// versioned with PRAGMA user_version and marked as distbench's with PRAGMA application_id; a file of another
// application, a damaged one or one of a later schema is refused. Each run is stored in one transaction (BEGIN
// IMMEDIATE, rollback journal, synchronous FULL): a writer killed at any point leaves the run in or out whole, and
// writers in several processes at once wait for each other up to the lock timeout.
#pragma once

#include "history/series.hpp"
#include "history/sqlite_handle.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace distbench::history {

// The schema this build reads and writes, and the mark of a distbench history ("dbHS").
inline constexpr int kSchemaVersion = 1;
inline constexpr std::int32_t kApplicationId = 0x64624853;

// What a run was: where, when, what and on what; the run's identity is the hash of the file it came from.
struct RunMeta {
  std::string time;  // ISO 8601 UTC (or as the source wrote it)
  std::string label, commit, machine, benchmark, backend;
  int world = 0;
  std::string config;  // JSON text
  std::string source_file, source_format;
  std::string content_hash;  // SHA-256 of the source file, hex: the same file twice is one run
};

// One case of a run: the series it belongs to and its point (run, run_label and time are set when loaded).
struct CaseFigures {
  std::string key, group, label;
  std::vector<Param> params;
  Point point;
};

struct RunToStore {
  RunMeta meta;
  std::vector<CaseFigures> cases;
};

// A run as `history runs` lists it.
struct RunRow {
  std::int64_t id = 0;
  RunMeta meta;
  std::size_t cases = 0;
};

// Which series to load, and how much of each.
struct SeriesQuery {
  std::string machine;            // only runs on this machine ("" : all)
  std::size_t last = 0;           // each series' newest `last` points (0: all)
  std::vector<std::string> keys;  // only these series (empty: all)
};

class HistoryDb {
 public:
  // Opens the history at `path`: with `create`, makes it (and its schema) when the file is absent or empty. Throws
  // usage_error for a file that is not a distbench history, is damaged or has a later schema, with what to do.
  HistoryDb(const std::string& path, bool create, double lock_timeout_s);

  // Stores the run and its cases in one transaction. nullopt: a run of the same content hash is there already.
  std::optional<std::int64_t> ingest(const RunToStore& run);

  std::vector<RunRow> runs();
  // Every series (points empty unless `with_points`), oldest point first; by group, then in the order first stored.
  std::vector<Series> series(const SeriesQuery& query, bool with_points);
  Connection& connection() { return *db_; }

 private:
  std::unique_ptr<Connection> db_;
};

}  // namespace distbench::history
