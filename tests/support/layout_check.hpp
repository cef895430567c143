// What a benchmark's table shows of its records, and what its record builder set: tests hold a benchmark's declared
// metrics (MetricColumn) to its layout, its table and its records with these.
#pragma once

#include "core/report/layout.hpp"
#include "core/report/record.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace distbench::test_support {

// The metrics a table shows, in its order; a failure for each column that is neither a parameter nor a metric of the
// records' layout.
inline std::vector<std::string> shown_metrics(const RecordLayout& layout, const TableLayout& table) {
  std::set<std::string> params(layout.params.begin(), layout.params.end()), metrics;
  for (const MetricSpec& m : layout.metrics) metrics.insert(m.key);
  std::vector<std::string> shown;
  for (const auto* columns : {&table.key_columns, &table.value_columns}) {
    for (const ColumnSpec& c : *columns) {
      EXPECT_TRUE(params.count(c.key) || metrics.count(c.key)) << c.key;
      if (metrics.count(c.key)) shown.push_back(c.key);
    }
  }
  return shown;
}

// The keys of a layout's metrics and of a record's, each as a set (a builder may set them in another order).
inline std::set<std::string> metric_keys(const RecordLayout& layout) {
  std::set<std::string> keys;
  for (const MetricSpec& m : layout.metrics) keys.insert(m.key);
  return keys;
}
inline std::set<std::string> metric_keys(const Record& record) {
  std::set<std::string> keys;
  for (const Metric& m : record.metrics) keys.insert(m.key);
  return keys;
}

}  // namespace distbench::test_support
