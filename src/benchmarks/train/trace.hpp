// train --trace: a Chrome trace-event JSON (Perfetto, chrome://tracing) of every timed step. Each rank writes its own
// events as the elements of the file's array; the root joins the ranks' text into the file.
#pragma once

#include "benchmarks/train/data_parallel.hpp"

#include <string>
#include <vector>

namespace distbench::train {

// The complete events ("X") of one step of this rank, comma-separated, in microseconds from the run's origin
// (`offset_s`: when the step began): process = rank, thread = overlap mode x {compute, communication}.
std::string trace_events(const std::vector<TimelineSpan>& spans, double offset_s, int rank, int mode);
// The names Perfetto and chrome://tracing show for this rank and each mode's two lanes.
std::string trace_names(int rank, const std::string& host, const std::vector<bool>& overlaps);
// The whole file from every rank's events, in rank order.
std::string trace_file(const std::vector<std::vector<char>>& by_rank);

}  // namespace distbench::train
