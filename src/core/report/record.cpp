#include "core/report/record.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench {

std::string param_text(const ParamValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  return fmt::format("{}", std::get<double>(v));
}

const ParamValue* Record::param(std::string_view key) const {
  auto it = std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.key == key; });
  return it == params.end() ? nullptr : &it->value;
}

std::string Record::param_text(std::string_view key) const {
  const ParamValue* v = param(key);
  return v == nullptr ? std::string() : distbench::param_text(*v);
}

double Record::metric(std::string_view key) const {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.key == key; });
  return it == metrics.end() ? kNotMeasured : it->value;
}

const PhaseStats* Record::phase(std::string_view name) const {
  auto it = std::find_if(phases.begin(), phases.end(), [&](const PhaseStats& p) { return p.name == name; });
  return it == phases.end() ? nullptr : &*it;
}

Record& Record::set(std::string key, ParamValue value) {
  auto it = std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.key == key; });
  if (it == params.end()) {
    params.push_back({std::move(key), std::move(value)});
  } else {
    it->value = std::move(value);
  }
  return *this;
}

Record& Record::set_metric(std::string key, double value) {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.key == key; });
  if (it == metrics.end()) {
    metrics.push_back({std::move(key), value});
  } else {
    it->value = value;
  }
  return *this;
}

}  // namespace distbench
