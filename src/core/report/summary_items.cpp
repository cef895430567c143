#include "core/report/summary_items.hpp"

#include <fmt/format.h>

#include <cmath>

namespace distbench {

SummaryItem wrong_item(const std::vector<Record>& records, std::string label) {
  double wrong = 0;
  bool checked = false;
  for (const Record& r : records) {
    if (!r.ok()) continue;
    if (const double w = r.metric("wrong"); std::isfinite(w)) {
      checked = true;
      wrong += w;
    }
  }
  if (!checked) return {"wrong", std::move(label), kNotMeasured, "not checked"};
  return {"wrong", std::move(label), wrong, fmt::format("{:.0f}", wrong)};
}

}  // namespace distbench
