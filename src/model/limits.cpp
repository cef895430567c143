#include "model/limits.hpp"

#include <limits>

namespace distbench::model {

double busbw_gbps(Collective c, int p, double bytes, double seconds) {
  if (!(seconds > 0)) return std::numeric_limits<double>::quiet_NaN();
  return bus_factor(c, p) * bytes / seconds / 1e9;
}

double model_bound_gbps(Collective c, int p, const CostTerms& t, double beta, double gamma) {
  const double per_byte = t.transfer * beta + t.reduction * gamma;
  if (!(per_byte > 0)) return std::numeric_limits<double>::quiet_NaN();
  return bus_factor(c, p) / per_byte / 1e9;
}

double link_bound_gbps(Collective c, int p, const CostTerms& t, double link_gbps) {
  if (!(t.transfer > 0) || !(link_gbps > 0)) return std::numeric_limits<double>::quiet_NaN();
  return bus_factor(c, p) / t.transfer * link_gbps;
}

double half_performance_bytes(const CostTerms& t, double alpha, double beta, double gamma) {
  const double per_byte = t.transfer * beta + t.reduction * gamma;
  if (!(per_byte > 0)) return std::numeric_limits<double>::infinity();
  return t.latency * alpha / per_byte;
}

}  // namespace distbench::model
