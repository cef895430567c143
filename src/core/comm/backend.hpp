// What a backend is, and the entry that describes one (the registry of this build's backends is
// src/backends/registry.hpp: the core does not know which backends exist).
#pragma once

#include "core/comm/communicator.hpp"
#include "core/comm/connector.hpp"
#include "core/comm/groups.hpp"
#include "core/device/device.hpp"
#include "core/device/huge_pages.hpp"
#include "core/sys/key_values.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace distbench {

// Settings a backend may use; each backend ignores what it has no use for.
struct BackendOptions {
  int gpus_per_process = 1;               // -g: devices (ranks) driven by one process
  int device_index = -1;                  // -1: chosen from the local rank
  int agg_iters = 1;                      // -m: operations per group call
  int graph_launches = 0;                 // -G: replay a captured timed loop this many times (0: no graphs)
  bool blocking = false;                  // -z: blocking communicator initialisation and calls
  bool register_buffers = false;          // -R
  bool nccl_mem_alloc = false;            // --alloc: device buffers from ncclMemAlloc, not cudaMalloc (-R implies it)
  double timeout_s = 300.0;               // -T: bound on the backend's own waits (communicator set-up, teardown)
  HugePages huge_pages = HugePages::off;  // --huge-pages: host buffers' policy (core/device/huge_pages.hpp)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual Device& device() = 0;
  // Collective over every rank of the connector: each rank gets the communicator of its own group.
  virtual std::unique_ptr<Communicator> create_communicator(const Partition& partition, const ArmedStep& step) = 0;
  // Runtime facts for `info` and reports (library versions, devices).
  virtual KeyValues describe() const = 0;
  // Library and driver versions only, cheap to read (no device work, unlike describe): health's drift phase compares
  // them across nodes. Empty by default.
  virtual KeyValues library_versions() const { return {}; }
  // What makes this backend's figures mean something else on this machine, as {warning code, text} (several
  // processes taking turns on one GPU); a run lists each among its warnings. Empty by default.
  virtual KeyValues cautions() const { return {}; }

  // The most elements one collective call can carry (MPI's counts are ints); nullopt: no limit below memory's.
  virtual std::optional<std::size_t> max_count_per_call() const { return std::nullopt; }
  // Device memory the library itself may take, per rank, for one call of `c` moving a message of `message_bytes`
  // (nccl-tests' size S), on top of the benchmark's buffers: a reduction's temporary buffers, an in-place call's
  // copy. 0 where the library allocates nothing per call (NCCL sets its buffers up once, with the communicator).
  virtual std::uint64_t library_scratch_bytes(Collective c, bool in_place, std::uint64_t message_bytes,
                                              int nranks) const {
    (void)c, (void)in_place, (void)message_bytes, (void)nranks;
    return 0;
  }
};

struct BackendEntry {
  std::string name;
  std::string summary;
  // Why the backend cannot run on this machine (no device, no driver); nullopt when it can.
  std::function<std::optional<std::string>()> unavailable_reason;
  std::function<std::unique_ptr<Backend>(Connector&, const BackendOptions&)> create;
  // Versions known at build time (headers, libraries linked).
  std::function<KeyValues()> build_versions;
  // The connector kinds (Connector::kind) it runs with; empty: any.
  std::vector<std::string> connectors;
  // Whether its collectives reduce with the bitwise operators (band, bor, bxor: core/device/reduce_op.hpp).
  bool bitwise_reductions = false;
};

}  // namespace distbench
