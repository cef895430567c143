// The views of a fitted model: text for the terminal, Markdown, JSON for tools (versioned: model_schema_version),
// CSV (one row per measured point and per predicted algorithm and case) and a self-contained HTML page with plots.
// They only format: every figure is in the ModelResult.
#pragma once

#include "model/model.hpp"

#include <string>

namespace distbench::model {

std::string model_text(const ModelResult& r);
std::string model_markdown(const ModelResult& r);
std::string model_json(const ModelResult& r);
std::string model_csv(const ModelResult& r);
std::string model_html(const ModelResult& r);
// One model's figures as HTML (model_html's "Figures"): the parameters, the measured points against the model with
// each refused one's cause, what was delivered, the refused ranges, the predictions a row per algorithm, the notes.
std::string model_figures_html(const ModelResult& r, const CollectiveModel& m);

// The algorithm's cost formula in words: "2(p-1) a + 2(p-1)/p S b + (p-1)/p S g" with a, b, g written as Greek
// letters.
std::string formula_text(Collective c, Algorithm a);

}  // namespace distbench::model
