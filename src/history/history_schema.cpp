#include "history/history_schema.hpp"

#include "history/history_db.hpp"

#include <fmt/format.h>

namespace distbench::history {
namespace {

// Version 1. "commit_sha" and "series_group": COMMIT and GROUP are words of SQL. Points are stored by series then run
// (the table's key), so that loading a series reads one range in run order.
constexpr const char* kSchemaSql = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  time TEXT NOT NULL,
  label TEXT NOT NULL,
  commit_sha TEXT NOT NULL,
  machine TEXT NOT NULL,
  benchmark TEXT NOT NULL,
  backend TEXT NOT NULL,
  world INTEGER NOT NULL,
  config TEXT NOT NULL,
  source_file TEXT NOT NULL,
  source_format TEXT NOT NULL,
  content_hash TEXT NOT NULL UNIQUE
);
CREATE TABLE series (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  series_group TEXT NOT NULL,
  label TEXT NOT NULL,
  params TEXT NOT NULL
);
CREATE TABLE points (
  series INTEGER NOT NULL REFERENCES series(id),
  run INTEGER NOT NULL REFERENCES runs(id),
  time_us REAL NOT NULL,
  time_low_us REAL,
  time_high_us REAL,
  busbw_gbps REAL,
  algbw_gbps REAL,
  samples INTEGER NOT NULL,
  wrong REAL,
  PRIMARY KEY (series, run)
) WITHOUT ROWID;
CREATE INDEX points_by_run ON points(run);
CREATE INDEX runs_by_machine ON runs(machine);
)sql";

std::int64_t pragma_value(Connection& db, const char* pragma) {
  Statement s(db, fmt::format("PRAGMA {}", pragma));
  return s.step() ? s.integer(0) : 0;
}

bool has_tables(Connection& db) {
  Statement s(db, "SELECT count(*) FROM sqlite_master");
  return s.step() && s.integer(0) > 0;
}

// Throws unless the file is a distbench history this build reads.
void check_existing(Connection& db, std::int64_t app, std::int64_t version) {
  if (app != kApplicationId) {
    throw usage_error(
        fmt::format("'{}' is an SQLite database of another application (application_id {}), not a "
                    "distbench history; name the history's file, or start a new one",
                    db.path(), app));
  }
  if (version > kSchemaVersion) {
    throw usage_error(
        fmt::format("history '{}' has schema version {}, written by a later distbench; this one reads "
                    "version {}: use the distbench that wrote it (or a later one)",
                    db.path(), version, kSchemaVersion));
  }
  if (version < 1) {
    throw usage_error(fmt::format("history '{}' has no schema version (damaged?); start a new history", db.path()));
  }
}

void create_schema(Connection& db) {
  db.exec("BEGIN IMMEDIATE", "creating the history");
  try {
    // Another process may have made it between the first look and the lock.
    if (!has_tables(db)) {
      db.exec(kSchemaSql, "creating the history's tables");
      db.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}", kApplicationId, kSchemaVersion),
              "marking the history");
    }
    db.exec("COMMIT", "creating the history");
  } catch (...) {
    db.exec("ROLLBACK", "undoing the history's creation");
    throw;
  }
}

}  // namespace

void prepare_schema(Connection& db, bool create) {
  // A rollback journal (not WAL): at rest the history is one file, the one to keep as a CI artifact or copy, and it
  // works on network file systems; FULL syncs the journal and the file at each commit.
  db.exec("PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", "opening");
  if (!has_tables(db) && pragma_value(db, "application_id") == 0) {
    if (!create) {
      throw usage_error(fmt::format("'{}' holds no history; make one with `distbench history ingest {} REPORT...`",
                                    db.path(), db.path()));
    }
    create_schema(db);
  }
  check_existing(db, pragma_value(db, "application_id"), pragma_value(db, "user_version"));
}

}  // namespace distbench::history
