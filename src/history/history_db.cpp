#include "history/history_db.hpp"

#include "history/history_schema.hpp"
#include "history/params_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace distbench::history {
namespace {

// Rolls the transaction back unless committed (an exception on the way leaves the history as it was).
class Transaction {
 public:
  explicit Transaction(Connection& db) : db_(db) { db_.exec("BEGIN IMMEDIATE", "locking the history to write"); }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() {
    if (!done_) {
      try {
        db_.exec("ROLLBACK", "undoing an unfinished run");
      } catch (const Error&) {
        // the connection closes next and SQLite rolls back what was not committed
      }
    }
  }
  void commit() {
    db_.exec("COMMIT", "storing the run");
    done_ = true;
  }

 private:
  Connection& db_;
  bool done_ = false;
};

bool has_run(Connection& db, const std::string& hash) {
  Statement s(db, "SELECT id FROM runs WHERE content_hash = ?1");
  s.bind(1, hash);
  return s.step();
}

std::int64_t insert_run(Connection& db, const RunMeta& m) {
  Statement s(db,
              "INSERT INTO runs (time, label, commit_sha, machine, benchmark, backend, world, config, source_file, "
              "source_format, content_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  s.bind(1, m.time).bind(2, m.label).bind(3, m.commit).bind(4, m.machine).bind(5, m.benchmark).bind(6, m.backend);
  s.bind(7, std::int64_t{m.world}).bind(8, m.config).bind(9, m.source_file).bind(10, m.source_format);
  s.bind(11, m.content_hash);
  s.step();
  return db.last_insert_id();
}

// The statements one run's cases repeat, prepared once.
struct CaseWriter {
  explicit CaseWriter(Connection& db)
      : add_series(db,
                   "INSERT INTO series (key, series_group, label, params) VALUES (?1, ?2, ?3, ?4) "
                   "ON CONFLICT (key) DO NOTHING"),
        find_series(db, "SELECT id FROM series WHERE key = ?1"),
        add_point(db,
                  "INSERT INTO points (series, run, time_us, time_low_us, time_high_us, busbw_gbps, algbw_gbps, "
                  "samples, wrong) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)") {}

  void write(std::int64_t run, const CaseFigures& c) {
    add_series.reset();
    add_series.bind(1, c.key).bind(2, c.group).bind(3, c.label).bind(4, params_to_json(c.params));
    add_series.step();
    find_series.reset();
    find_series.bind(1, c.key);
    if (!find_series.step()) throw failure(fmt::format("internal error: series '{}' not stored", c.key));
    const std::int64_t series = find_series.integer(0);
    const Point& p = c.point;
    add_point.reset();
    add_point.bind(1, series).bind(2, run).bind(3, p.time_us).bind(4, p.time_low_us).bind(5, p.time_high_us);
    add_point.bind(6, p.busbw_gbps).bind(7, p.algbw_gbps).bind(8, static_cast<std::int64_t>(p.samples));
    add_point.bind(9, p.wrong);
    add_point.step();
  }

  Statement add_series, find_series, add_point;
};

}  // namespace

HistoryDb::HistoryDb(const std::string& path, bool create, double lock_timeout_s)
    : db_(std::make_unique<Connection>(path, create)) {
  db_->busy_timeout_ms(static_cast<int>(std::lround(lock_timeout_s * 1000)));
  prepare_schema(*db_, create);
}

std::optional<std::int64_t> HistoryDb::ingest(const RunToStore& run) {
  Transaction t(*db_);
  if (has_run(*db_, run.meta.content_hash)) return std::nullopt;
  const std::int64_t id = insert_run(*db_, run.meta);
  CaseWriter writer(*db_);
  for (const CaseFigures& c : run.cases) writer.write(id, c);
  t.commit();
  return id;
}

std::vector<RunRow> HistoryDb::runs() {
  Statement s(*db_,
              "SELECT r.id, r.time, r.label, r.commit_sha, r.machine, r.benchmark, r.backend, r.world, r.config, "
              "r.source_file, r.source_format, r.content_hash, (SELECT count(*) FROM points p WHERE p.run = r.id) "
              "FROM runs r ORDER BY r.id");
  std::vector<RunRow> out;
  while (s.step()) {
    RunRow r;
    r.id = s.integer(0);
    r.meta = {s.text(1), s.text(2), s.text(3),  s.text(4), s.text(5), s.text(6), static_cast<int>(s.integer(7)),
              s.text(8), s.text(9), s.text(10), s.text(11)};
    r.cases = static_cast<std::size_t>(s.integer(12));
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

Point stored_point(const Statement& s) {
  Point p;
  p.run = s.integer(1);
  p.run_label = s.text(2);
  p.time = s.text(3);
  p.time_us = s.real(4);
  p.time_low_us = s.real(5);
  p.time_high_us = s.real(6);
  p.busbw_gbps = s.real(7);
  p.algbw_gbps = s.real(8);
  p.samples = static_cast<std::size_t>(s.integer(9));
  p.wrong = s.real(10);
  return p;
}

// Adds each series' points, oldest first (the points table is stored in that order).
void load_points(Connection& db, const SeriesQuery& q, std::map<std::int64_t, Series*>& by_id) {
  Statement s(db,
              "SELECT p.series, p.run, r.label, r.time, p.time_us, p.time_low_us, p.time_high_us, p.busbw_gbps, "
              "p.algbw_gbps, p.samples, p.wrong FROM points p JOIN runs r ON r.id = p.run "
              "WHERE ?1 = '' OR r.machine = ?1 ORDER BY p.series, p.run");
  s.bind(1, q.machine);
  while (s.step()) {
    const auto it = by_id.find(s.integer(0));
    if (it != by_id.end()) it->second->points.push_back(stored_point(s));
  }
}

}  // namespace

std::vector<Series> HistoryDb::series(const SeriesQuery& q, bool with_points) {
  Statement s(*db_, "SELECT id, key, series_group, label, params FROM series ORDER BY series_group, id");
  std::vector<Series> out;
  std::vector<std::int64_t> ids;
  while (s.step()) {
    Series one{s.text(1), s.text(2), s.text(3), params_from_json(s.text(4)), {}};
    if (!q.keys.empty() && std::find(q.keys.begin(), q.keys.end(), one.key) == q.keys.end()) continue;
    ids.push_back(s.integer(0));
    out.push_back(std::move(one));
  }
  if (!with_points && q.machine.empty()) return out;
  std::map<std::int64_t, Series*> by_id;
  for (std::size_t i = 0; i < out.size(); ++i) by_id[ids[i]] = &out[i];
  load_points(*db_, q, by_id);
  std::erase_if(out, [](const Series& one) { return one.points.empty(); });
  for (Series& one : out) {
    if (q.last > 0 && one.points.size() > q.last) {
      one.points.erase(one.points.begin(), one.points.end() - static_cast<std::ptrdiff_t>(q.last));
    }
    if (!with_points) one.points.clear();
  }
  return out;
}

}  // namespace distbench::history
