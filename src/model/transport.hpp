// Where point-to-point messages change protocol in the library a report ran on. Open MPI's ob1 layer sends a message
// up to its transport's eager limit at once; a larger one goes by rendezvous: a first fragment with the request, the
// receiver's go-ahead, then the rest. The switch moves a collective's time off one latency-bandwidth line (in both
// directions at once over TCP it can halve the rate: docs/model.md, 'Verification'), so the model names it.
// Read from the report: the MPI library (Open MPI only; other libraries: none), the hosts the ranks ran on (several:
// the tcp transport between them; one: shared memory, vader, called sm from Open MPI 5), the OMPI_MCA_* variables
// mpirun set for --mca (pml, btl, btl_<transport>_eager_limit), else the library's default limit.
#pragma once

#include "core/report/run_info.hpp"

#include <optional>
#include <string>

namespace distbench::model {

struct EagerLimit {
  double bytes = 0;       // messages of this size and more (a header is added to the payload) go by rendezvous
  std::string parameter;  // "btl_tcp_eager_limit"
  std::string source;     // "Open MPI's default" or "OMPI_MCA_btl_tcp_eager_limit=4194304"
  std::string transport;  // "tcp between hosts", "vader (shared memory)"
};

// nullopt where the report does not say enough: another MPI library, another pml (ucx), a btl list this cannot read,
// a limit that is not a whole number of bytes.
std::optional<EagerLimit> eager_limit(const RunInfo& info);

bool same_limit(const EagerLimit& a, const EagerLimit& b);

}  // namespace distbench::model
