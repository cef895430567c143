#include "history/params_text.hpp"

#include "core/error.hpp"
#include "core/report/json_model.hpp"

namespace distbench::history {

std::string params_to_json(const std::vector<Param>& params) {
  return params_json(params).dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

std::vector<Param> params_from_json(std::string_view text) {
  const ordered_json j = ordered_json::parse(text, nullptr, false);
  if (!j.is_object()) throw usage_error("the history holds a series whose parameters are not a JSON object (damaged?)");
  std::vector<Param> params;
  for (const auto& [key, value] : j.items()) {
    if (value.is_string()) {
      params.push_back({key, value.get<std::string>()});
    } else if (value.is_number_integer()) {
      params.push_back({key, value.get<std::int64_t>()});
    } else if (value.is_number()) {
      params.push_back({key, value.get<double>()});
    } else {
      params.push_back({key, kNotMeasured});  // null: a parameter that was NaN
    }
  }
  return params;
}

}  // namespace distbench::history
