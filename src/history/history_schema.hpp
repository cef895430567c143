// The history's schema, version kSchemaVersion: made in a new file, checked in an existing one.
#pragma once

#include "history/sqlite_handle.hpp"

namespace distbench::history {

// Sets the connection's durability (rollback journal, synchronous FULL, foreign keys) and makes sure the file holds a
// distbench history of this schema: creates it in an empty file when `create` (one transaction, so that two processes
// creating it at once make it once), and throws usage_error, saying what to do, for a file of another application, a
// later schema, or an empty file without `create`.
void prepare_schema(Connection& db, bool create);

}  // namespace distbench::history
