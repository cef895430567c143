#include "history/sqlite_handle.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>

namespace distbench::history {

Error sqlite_error(const Connection& db, int code, std::string_view what) {
  const int primary = code & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    return failure(
        fmt::format("history '{}' stayed locked by another process for {:g} s while {}; try again, or "
                    "wait longer with --lock-timeout SECONDS",
                    db.path(), db.busy_timeout_ms() / 1000.0, what));
  }
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) {
    return usage_error(
        fmt::format("'{}' is not a distbench history or is damaged ({}); name the history's file, or "
                    "start a new one with `distbench history ingest NEW.db REPORT...`",
                    db.path(), sqlite3_errstr(code)));
  }
  return failure(fmt::format("history '{}': {} failed: {}", db.path(), what, db.message()));
}

Connection::Connection(const std::string& path, bool create) : path_(path) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw usage_error(fmt::format(
        "cannot open history '{}': {}; {}", path, why,
        create ? "check the path and its permissions" : "check the path (`distbench history ingest` creates one)"));
  }
  sqlite3_extended_result_codes(db_, 1);
}

Connection::~Connection() { sqlite3_close(db_); }

void Connection::exec(std::string_view sql, std::string_view what) {
  const std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throw sqlite_error(*this, rc, what);
}

void Connection::busy_timeout_ms(int ms) {
  busy_ms_ = ms;
  sqlite3_busy_timeout(db_, ms);
}

std::int64_t Connection::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int Connection::changes() const { return sqlite3_changes(db_); }
std::string Connection::message() const { return sqlite3_errmsg(db_); }

Statement::Statement(Connection& db, std::string_view sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db.raw(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) throw sqlite_error(db, rc, "preparing a statement");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int at, std::string_view text) {
  sqlite3_bind_text(stmt_, at, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::bind(int at, std::int64_t value) {
  sqlite3_bind_int64(stmt_, at, value);
  return *this;
}

Statement& Statement::bind(int at, double value) {
  if (std::isnan(value)) {
    sqlite3_bind_null(stmt_, at);
  } else {
    sqlite3_bind_double(stmt_, at, value);
  }
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw sqlite_error(db_, rc, "reading or writing");
}

void Statement::reset() { sqlite3_reset(stmt_); }

std::string Statement::text(int column) const {
  const unsigned char* t = sqlite3_column_text(stmt_, column);
  return t == nullptr ? std::string()
                      : std::string(reinterpret_cast<const char*>(t),
                                    static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const {
  return is_null(column) ? std::nan("") : sqlite3_column_double(stmt_, column);
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

}  // namespace distbench::history
