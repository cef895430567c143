#include "benchmarks/collective/collective_record.hpp"
#include "core/measure/units.hpp"

#include <cmath>

namespace distbench::collective {
namespace {

struct OsFigure {
  const char* key;
  double OsCounters::*member;
};
constexpr OsFigure kOsFigures[] = {{"minor_faults_per_op", &OsCounters::minor_faults},
                                   {"major_faults_per_op", &OsCounters::major_faults},
                                   {"voluntary_switches_per_op", &OsCounters::voluntary_switches},
                                   {"involuntary_switches_per_op", &OsCounters::involuntary_switches}};

}  // namespace

RecordLayout collective_record_layout(const RecordShape& shape) {
  RecordLayout l;
  l.params = {"collective", "backend", "dtype",  "op",    "placement", "root",
              "bytes",      "count",   "nranks", "group", "groups"};
  l.phases = {"time"};
  if (shape.cycles) l.params.emplace_back("cycle");
  if (shape.timings) l.params.emplace_back("timing");
  if (shape.tensor_list) {  // --tensors N: the list's length and how it was reduced; fused lists time their parts too
    l.params.insert(l.params.begin() + 5, {"tensors", "fusion"});
    l.phases.insert(l.phases.end(), {"pack", "allreduce", "unpack"});
  }
  if (shape.device_beside) l.phases.emplace_back("device");
  l.metrics = {metrics::time.spec(),  metrics::algbw.spec(),  metrics::busbw.spec(),
               metrics::wrong.spec(), metrics::faults.spec(), metrics::switches.spec()};
  if (shape.device_beside) l.metrics.push_back(metrics::device_time.spec());
  if (shape.timestamps) l.metrics.push_back(metrics::start_time.spec());
  l.rank_figures = {{metrics::time.key, metrics::time.unit, "this rank's mean time per operation"}};
  for (const OsFigure& f : kOsFigures) l.rank_figures.push_back({f.key, "1/op", ""});
  return l;
}

Record collective_record(const CaseResult& r, const std::vector<std::string>& hosts) {
  Record rec;
  rec.kind = "collective";
  rec.set("collective", r.collective)
      .set("backend", r.backend)
      .set("dtype", r.dtype)
      .set("op", r.op)
      .set("placement", r.placement);
  if (r.tensors > 1) rec.set("tensors", std::int64_t{r.tensors}).set("fusion", r.fusion);
  rec.set("root", std::int64_t{r.root})
      .set("bytes", static_cast<std::int64_t>(r.bytes))
      .set("count", static_cast<std::int64_t>(r.count))
      .set("nranks", std::int64_t{r.nranks})
      .set("group", r.group)
      .set("groups", std::int64_t{r.groups});
  if (r.cycle > 0) rec.set("cycle", std::int64_t{r.cycle});
  if (r.timing_param) rec.set("timing", r.timing);
  rec.status = r.status;
  rec.skip_reason = r.skip_reason;
  if (!rec.ok()) return rec;
  rec.ops_per_sample = r.ops_per_sample;
  rec.noise_target_met = r.noise_target_met;
  rec.phases.push_back({"time", r.samples, r.time, r.rank_time});
  rec.phases.insert(rec.phases.end(), r.phases.begin(), r.phases.end());
  rec.set_metric(metrics::time.key, r.time_shown * kMicro)
      .set_metric(metrics::algbw.key, r.algbw)
      .set_metric(metrics::busbw.key, r.busbw)
      .set_metric(metrics::wrong.key, r.wrong < 0 ? kNotMeasured : static_cast<double>(r.wrong))
      .set_metric(metrics::faults.key, max_over_ranks(r.os_per_op, &OsCounters::faults))
      .set_metric(metrics::switches.key, max_over_ranks(r.os_per_op, &OsCounters::switches));
  if (std::isfinite(r.device_time_shown)) rec.set_metric(metrics::device_time.key, r.device_time_shown * kMicro);
  if (std::isfinite(r.start_time_s)) rec.set_metric(metrics::start_time.key, r.start_time_s);
  const std::size_t ranks = std::max(r.rank_means.size(), r.os_per_op.size());
  for (std::size_t i = 0; i < ranks; ++i) {
    RankFigures f;
    f.rank = static_cast<int>(i);
    if (i < hosts.size()) f.host = hosts[i];
    f.figures.push_back({metrics::time.key, i < r.rank_means.size() ? r.rank_means[i] * kMicro : kNotMeasured});
    for (const OsFigure& os : kOsFigures) {
      f.figures.push_back({os.key, i < r.os_per_op.size() ? r.os_per_op[i].*os.member : kNotMeasured});
    }
    rec.ranks.push_back(std::move(f));
  }
  return rec;
}

std::vector<Record> collective_records(const std::vector<CaseResult>& row, const std::vector<std::string>& hosts) {
  std::vector<Record> out;
  for (const CaseResult& r : row) out.push_back(collective_record(r, hosts));
  return out;
}

}  // namespace distbench::collective
