// The health check's records: one per Check (kind "health": what was measured, its value and unit, the status it
// earned against which limit, and why), their layout and table, and the Check read back from a record.
#pragma once

#include "benchmarks/health/verdict.hpp"
#include "core/report/layout.hpp"

namespace distbench::health {

// The one metric of a health record, declared once with its table column: the record builder, the reader, the layout
// and the table read it.
namespace metrics {
inline constexpr MetricColumn value{
    "value", "", "the measured figure, in the record's unit", "value", "", 10, CellFormat::number, "value"};
}  // namespace metrics

RecordLayout health_record_layout();
TableLayout health_table();

// Checks as report records (kind "health") and back.
Record check_record(const Check& c);
Check check_of(const Record& r);

}  // namespace distbench::health
