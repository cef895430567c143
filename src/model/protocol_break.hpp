// Whether a transport's protocol switch shows in a fit: per rank count, the cases whose largest message is past the
// eager limit (model/transport.hpp) against those below it (3 or more on each side), each side's median of measured /
// model time. Where the
// two differ by 1.3x or more (the cliff ratio of breaks.hpp) the model names the switch. A message within 64 bytes of
// the limit counts as past it: Open MPI's limit includes its header.
#pragma once

#include "model/transport.hpp"

#include <optional>
#include <string>
#include <vector>

namespace distbench::model {

struct ProtocolPoint {
  int nranks = 0;
  double bytes = 0;
  double message = 0;              // the largest message of one step, bytes; NaN: unknown (segmented by the library)
  double measured = 0, model = 0;  // seconds
};

struct ProtocolBreak {
  int nranks = 0;
  double first_past = 0;   // the smallest size whose messages are past the limit
  double last_past = 0;    // the largest
  double ratio_below = 0;  // median measured / model of the cases below the limit
  double ratio_past = 0;   // and past it
  std::size_t below = 0;   // cases below the limit (the line names them)
};

bool past_limit(double message, double limit);

// Points sorted by ranks, then size (as the fit keeps them).
std::vector<ProtocolBreak> protocol_breaks(const std::vector<ProtocolPoint>& points, double limit);

// "p=2, 128 KiB .. 2 MiB: past btl_tcp_eager_limit (64 KiB, ...): 1.9x the model's time, 1.0x below it; ..."
std::string describe(const ProtocolBreak& b, const EagerLimit& limit);

}  // namespace distbench::model
