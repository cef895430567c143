// The few SQLite calls the history makes, owned: a connection closed by its destructor, a prepared statement
// finalized by its, and every failure thrown as distbench::Error with the database's own words. Nothing else in the
// project includes sqlite3.h.
#pragma once

#include "core/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace distbench::history {

class Connection {
 public:
  // Opens (or, with `create`, creates) the database file. Throws usage_error when it cannot.
  Connection(const std::string& path, bool create);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs statements that return no rows; throws Error(failure) naming `what` and SQLite's message.
  void exec(std::string_view sql, std::string_view what);
  // How long a statement waits for another process's lock before it fails (then: Error(failure) saying so).
  void busy_timeout_ms(int ms);
  int busy_timeout_ms() const { return busy_ms_; }
  std::int64_t last_insert_id() const;
  int changes() const;
  std::string message() const;  // SQLite's last error message on this connection
  sqlite3* raw() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  int busy_ms_ = 0;
};

class Statement {
 public:
  Statement(Connection& db, std::string_view sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds by position (1-based); a NaN double binds NULL.
  Statement& bind(int at, std::string_view text);
  Statement& bind(int at, std::int64_t value);
  Statement& bind(int at, double value);
  // Steps once: true while a row is there, false when done. Throws Error(failure) on anything else; a lock not
  // released within the busy timeout throws Error(failure) saying so.
  bool step();
  void reset();  // ready to step again, bindings kept (rebind what changes)

  std::string text(int column) const;
  std::int64_t integer(int column) const;
  double real(int column) const;  // NULL: NaN
  bool is_null(int column) const;

 private:
  Connection& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// The error for SQLite's result `code` on `db` while doing `what`: a lock held past the busy timeout, a file that is
// not a database (usage_error: the user named the wrong file), or SQLite's message.
Error sqlite_error(const Connection& db, int code, std::string_view what);

}  // namespace distbench::history
