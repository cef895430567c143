#include "benchmarks/health/health_record.hpp"

namespace distbench::health {

RecordLayout health_record_layout() {
  RecordLayout l;
  l.params = {"phase", "subject", "host", "metric", "unit", "limit", "status", "why"};
  l.metrics = {metrics::value.spec()};
  return l;
}

TableLayout health_table() {
  TableLayout t;
  t.key_columns = {{"phase", "phase", "", 10, CellFormat::text, "phase"},
                   {"subject", "subject", "", 16, CellFormat::text, "subject"},
                   {"metric", "metric", "", 26, CellFormat::text, "metric"}};
  t.value_columns = {metrics::value.column(),
                     {"unit", "unit", "", 5, CellFormat::text, "unit"},
                     {"status", "status", "", 8, CellFormat::text, "status"},
                     {"limit", "limit", "", 1, CellFormat::text, "limit"}};
  return t;
}

Record check_record(const Check& c) {
  Record r;
  r.kind = "health";
  r.set("phase", c.phase)
      .set("subject", c.subject)
      .set("host", c.host)
      .set("metric", c.metric)
      .set("unit", c.unit)
      .set("limit", c.limit)
      .set("status", c.screening && c.status != Status::healthy ? std::string("suspect") : std::string(name(c.status)))
      .set("why", c.why)
      .set("role", c.screening ? "screening" : "verdict");
  if (!c.peer.empty()) r.set("peer", c.peer);  // only the node summaries of links name one
  if (!c.key.empty()) r.set("key", c.key);     // only the drift checks name one
  if (!c.skipped.empty()) {
    r.set("status", std::string("skipped"));
    r.status = "skipped";
    r.skip_reason = c.skipped;
  }
  r.set_metric(metrics::value.key, c.value);
  return r;
}

Check check_of(const Record& r) {
  Check c;
  c.phase = r.param_text("phase");
  c.subject = r.param_text("subject");
  c.host = r.param_text("host");
  c.metric = r.param_text("metric");
  c.unit = r.param_text("unit");
  c.limit = r.param_text("limit");
  const std::string status = r.param_text("status");
  c.status = status == "suspect"   ? Status::degraded
             : status == "skipped" ? Status::healthy
                                   : parse_status(status).value_or(Status::unknown);
  if (status == "skipped") c.skipped = r.skip_reason.empty() ? std::string("skipped") : r.skip_reason;
  c.why = r.param_text("why");
  c.value = r.metric(metrics::value.key);
  c.screening = r.param_text("role") == "screening";
  c.peer = r.param_text("peer");
  c.key = r.param_text("key");
  return c;
}

}  // namespace distbench::health
