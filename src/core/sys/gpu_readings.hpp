// A node's GPUs as NVML sees them, for the health check's gpu phase: each GPU's identity (name, UUID, PCI bus,
// VBIOS), its error counters (ECC, retired pages, remapped rows, NVLink), and its state against its limits (clocks and
// the reasons they are held down, temperature, power, PCIe link). Each reading is a JSON value; one the GPU or the
// driver cannot give is named in the GPU's "unavailable" object with NVML's reason ("Not Supported"), never invented.
#pragma once

#include "core/sys/key_values.hpp"
#include "core/sys/nvml_library.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace distbench {

inline constexpr std::size_t kMaxGpusRead = 64;  // a node shows at most this many (8 on today's largest nodes)

// {"driver", "cuda_driver", "nvml_version", "count", "gpus": [{"index", "name", "uuid", "bus_id", ...}, ...],
//  "unavailable": {...}}: docs/health.md lists the keys.
nlohmann::json read_gpu_state(const NvmlLibrary& nvml, std::size_t max_gpus = kMaxGpusRead);

// What changes with load, of the GPU at `pci_bus_id` (as CUDA names it): clock event reasons, SM clock, PCIe
// generation and width, temperature, power; read while the GPU works, so that a link resting at Gen1 or an idle
// reason does not stand for the loaded state. {"unavailable": why} when NVML cannot find it.
nlohmann::json read_loaded_state(const NvmlLibrary& nvml, const std::string& pci_bus_id);

// What a node's GPUs have that should be alike across nodes of one kind, for health's drift phase: "gpu.model" and
// "gpu.vbios" (each distinct value once, in GPU order, joined by ", "), "gpu.persistence_mode" (on, off, or mixed).
// `state` is read_gpu_state's.
KeyValues gpu_facts(const nlohmann::json& state);

// The clock event reasons that hold a loaded GPU's clocks down (thermal, power, hardware slowdown), by name; idle,
// application clocks and sync boost are not faults.
nlohmann::json clock_reason_names(unsigned long long reasons);
// The same names in a line, "hw_slowdown, sw_thermal_slowdown" ("" for none).
std::string clock_reason_text(unsigned long long reasons);
// Whether any reason in `reasons` is one a healthy GPU under load should not show.
bool clock_reasons_are_faults(unsigned long long reasons);

// XID events on every GPU from construction to collect(): NVML gives them only to a listener.
class XidListener {
 public:
  explicit XidListener(const NvmlLibrary& nvml, std::size_t max_gpus = kMaxGpusRead);
  ~XidListener();
  XidListener(const XidListener&) = delete;
  XidListener& operator=(const XidListener&) = delete;
  // {"listening": bool, "why": ... when not, "events": [{"gpu": index, "xid": n}], at most 256}; waits at most
  // `wait_ms` for the first event.
  nlohmann::json collect(unsigned wait_ms = 0);

 private:
  const NvmlLibrary& nvml_;
  nvml_api::EventSet set_ = nullptr;
  std::string why_;
  std::vector<std::pair<unsigned, nvml_api::Device>> devices_;  // NVML index, handle
};

}  // namespace distbench
