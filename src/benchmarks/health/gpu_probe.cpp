// Phase gpu on the first rank of each node: what NVML says of the node's GPUs, the XIDs of the kernel log, the XID
// events during the phase, and the copy bandwidth between the node's GPUs. The other ranks have nothing to do.
#include "benchmarks/health/probes.hpp"

#include "core/sys/gpu_readings.hpp"
#include "core/sys/kernel_xids.hpp"
#include "core/sys/nvml_library.hpp"

#include <variant>

namespace distbench::health {
namespace {

nlohmann::json kernel_xids_json(const KernelXids& k) {
  nlohmann::json j = {{"readable", k.readable}, {"records", k.records}};
  if (!k.readable) j["why"] = k.why;
  j["xids"] = nlohmann::json::array();
  for (const KernelXid& x : k.xids) {
    j["xids"].push_back({{"bus_id", x.bus_id}, {"xid", x.xid}, {"count", x.count}, {"last_line", x.last_line}});
  }
  return j;
}

nlohmann::json peer_copies_json(const PeerCopies& p) {
  nlohmann::json j = {{"gpus", p.gpus}};
  if (!p.skipped.empty()) {
    j["skipped"] = p.skipped;
  } else {
    j["gbps"] = p.gbps;
    j["direct"] = p.direct;
  }
  return j;
}

}  // namespace

nlohmann::json probe_gpus(World& world, const HealthPlan& plan, PhaseContext& ctx) {
  if (world.connector().local_rank() != 0) return nlohmann::json::object();
  nlohmann::json out = nlohmann::json::object();
  ctx.step = "opening NVML";
  auto opened = NvmlLibrary::open(plan.nvml_library);
  if (const auto* why = std::get_if<std::string>(&opened)) {
    // No driver: one skipped record speaks for every GPU check; the kernel log is not read for nothing.
    out["nvml_unavailable"] = *why;
    out["peer_copies"] = peer_copies_json(world.device().peer_copies());
    return out;
  }
  const NvmlLibrary& nvml = *std::get<std::unique_ptr<NvmlLibrary>>(opened);
  XidListener listener(nvml);  // listening while the copies below load the GPUs
  ctx.step = "reading NVML";
  out["nvml"] = read_gpu_state(nvml);
  ctx.step = "copies between GPUs";
  out["peer_copies"] = peer_copies_json(world.device().peer_copies());
  ctx.step = "XID events";
  out["xid_events"] = listener.collect(0);
  ctx.step = "reading the kernel log";
  out["kernel_xids"] = kernel_xids_json(read_kernel_xids());
  return out;
}

}  // namespace distbench::health
