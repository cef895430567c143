// `distbench model`: a latency-bandwidth cost model fitted to collective sweeps, its breaks, its predictions at other
// ranks and sizes, and the measured bandwidth against the model's bound and a link rate. Nothing here prints.
#pragma once

#include "core/report/json_model.hpp"
#include "model/cost_formulas.hpp"
#include "model/observations.hpp"
#include "model/robust_fit.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace distbench::model {

inline constexpr int kModelSchemaVersion = 1;

struct ModelOptions {
  std::optional<Collective> collective;         // required when the reports hold several
  std::optional<Algorithm> algorithm;           // nullopt: auto (as recorded, else the collective's first)
  std::vector<int> predict_ranks;               // empty: the measured ones
  std::vector<double> predict_sizes;            // empty: the measured ones
  double link_gbps = 0;                         // GB/s per rank and direction; 0: not given
  double fit_min_bytes = 0, fit_max_bytes = 0;  // fit only sizes in [min, max]; 0: no bound
  double confidence = 0.95;
};

struct Estimate {
  double value = 0, low = 0, high = 0;
  bool fitted = false;  // false: left out of the fit (value 0)
};

struct FittedPoint {
  int nranks = 0;
  double bytes = 0;
  double measured_s = 0, model_s = 0;
  double residual = 0;  // (measured - model) / model
  double weight = 0;    // the robust fit's weight; 0: refused
  bool refused = false;
  std::string cause;           // why it is refused ("" when held)
  double busbw_gbps = 0;       // measured
  double bound_gbps = 0;       // the model's large-size bus bandwidth at these ranks
  double link_bound_gbps = 0;  // what the links allow this algorithm (NaN without --link-gbps)
};

struct AlgorithmTime {
  Algorithm algorithm = Algorithm::ring;
  double seconds = 0, low = 0, high = 0;  // the interval from the parameters' covariance
  double busbw_gbps = 0, busbw_low = 0, busbw_high = 0;
};

struct PredictedCase {
  int nranks = 0;
  double bytes = 0;
  std::vector<AlgorithmTime> times;  // the fitted algorithm first, then the collective's others
  Algorithm winner = Algorithm::ring;
  bool close = false;  // the runner-up's interval overlaps the winner's
};

struct CollectiveModel {
  Collective collective = Collective::allreduce;
  Algorithm algorithm = Algorithm::ring;
  std::string algorithm_source;  // how the algorithm was chosen, in words
  std::string backend;
  std::vector<int> ranks;                  // the measured world sizes
  Estimate alpha;                          // seconds per message
  Estimate beta;                           // seconds per byte
  Estimate gamma;                          // seconds per reduced byte
  double scale = 0;                        // robust scale of the relative residuals
  std::array<Row, kColumns> covariance{};  // of (alpha, beta, gamma)
  double t_quantile = 0;                   // Student's t of the intervals
  std::size_t used = 0;                    // points the fit holds (weight > 0)
  std::vector<FittedPoint> points;
  std::vector<std::string> breaks;  // refused ranges with their cause
  std::vector<PredictedCase> predictions;
  std::vector<std::string> notes;
};

struct ModelResult {
  std::vector<std::string> sources;
  // The rate held to (0: none), and where it came from (model/link_rate.hpp; "": unsaid).
  double link_gbps = 0;
  std::string link_source;
  double confidence = 0.95;
  std::vector<CollectiveModel> models;  // one per collective and algorithm
};

// Throws usage_error (one line: what is wrong, how to fix it) on input no model can be fitted to.
ModelResult build_model(const std::vector<ParsedReport>& reports, const std::vector<std::string>& sources,
                        const ModelOptions& options);

// One line (under 100 columns) when a measured bus bandwidth is beyond what the link rate allows (by more than a
// tenth: noise): the rate is then probably wrong (--link-gbps in GB/s, not Gb/s; shared memory between ranks of one
// node); "" otherwise. The "of link" figures say by how much for each point.
std::string link_rate_warning(const ModelResult& r);

// Time and bus bandwidth of `algorithm` at p ranks and `bytes` from a fitted model, with the interval from the
// parameters' covariance (the fit's t quantile).
AlgorithmTime predict_time(const CollectiveModel& m, Algorithm algorithm, int p, double bytes);

}  // namespace distbench::model
