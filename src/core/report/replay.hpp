// A report read back (json_model.hpp) fed through a reporter again as its run fed it: begin with the run's
// description, its rows in order, end with its verdict. A view made afterwards (`distbench report --format md`) is
// then the text the same reporter wrote while the run went on (`--md`), made by the same code.
#pragma once

#include "core/report/json_model.hpp"
#include "core/report/reporter.hpp"

namespace distbench {

// What the run told its reporters, as far as the report keeps it: the summary and sections are those it ended with
// (version 3; before: the summary's figures under their keys, no sections), the table empty before version 3.
RunDescription description_of(const ParsedReport& report);

// begin, add each row (a record per row before version 3), end.
void replay(const ParsedReport& report, Reporter& reporter);

}  // namespace distbench
