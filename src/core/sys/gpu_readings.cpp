#include "core/sys/gpu_readings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>

namespace distbench {
namespace {

using NvmlDevice = nvml_api::Device;
using nvml_api::Return;

// A call the driver lacks reads as missing (GpuReader::read checks `call == nullptr` first).
template <typename Fn, typename L>
auto nvml_call(Fn fn, L lambda) -> std::function<Return()> {
  if (fn == nullptr) return nullptr;
  return lambda;
}

// One GPU's readings: each call's value under its key, or its reason under "unavailable".
class GpuReader {
 public:
  GpuReader(const NvmlLibrary& nvml, NvmlDevice device, nlohmann::json& out)
      : nvml_(nvml), device_(device), out_(out) {}

  // `call` fills a value and returns NVML's code; `store` turns the value into JSON.
  template <typename F, typename S>
  bool read(const char* key, F call, S store) {
    if (call == nullptr) return missing(key, "not in this driver's NVML");
    const Return r = call();
    if (r != nvml_api::kSuccess) return missing(key, nvml_.error_text(r));
    store();
    return true;
  }
  bool missing(const char* key, const std::string& why) {
    out_["unavailable"][key] = why;
    return false;
  }

  void text(const char* key, Return (*fn)(NvmlDevice, char*, unsigned), unsigned size) {
    std::string buf(size, '\0');
    read(key, nvml_call(fn, [&] { return fn(device_, buf.data(), size); }),
         [&] { out_[key] = std::string(buf.c_str()); });
  }
  void uint(const char* key, Return (*fn)(NvmlDevice, unsigned*), double scale = 1) {
    unsigned v = 0;
    read(key, nvml_call(fn, [&] { return fn(device_, &v); }), [&] {
      if (scale == 1) {
        out_[key] = v;
      } else {
        out_[key] = v * scale;
      }
    });
  }

 private:
  const NvmlLibrary& nvml_;
  NvmlDevice device_;
  nlohmann::json& out_;
};

// Name, UUID, serial, VBIOS, PCI bus, memory and persistence mode.
void read_identity(const NvmlLibrary& nvml, NvmlDevice d, nlohmann::json& g, GpuReader& r) {
  r.text("name", nvml.device_name, nvml_api::kNameBufferSize);
  r.text("uuid", nvml.device_uuid, nvml_api::kUuidBufferSize);
  r.text("serial", nvml.device_serial, nvml_api::kSerialBufferSize);
  r.text("vbios", nvml.device_vbios, nvml_api::kVbiosBufferSize);
  nvml_api::PciInfo pci{};
  r.read("bus_id", nvml_call(nvml.device_pci, [&] { return nvml.device_pci(d, &pci); }),
         [&] { g["bus_id"] = std::string(pci.bus_id); });
  nvml_api::Memory mem{};
  r.read("memory_total_bytes", nvml_call(nvml.device_memory, [&] { return nvml.device_memory(d, &mem); }),
         [&] { g["memory_total_bytes"] = mem.total; });
  nvml_api::EnableState persistence = 0;
  r.read("persistence_mode",
         nvml_call(nvml.device_persistence, [&] { return nvml.device_persistence(d, &persistence); }),
         [&] { g["persistence_mode"] = persistence != 0; });
}

// Memory errors.
void read_errors(const NvmlLibrary& nvml, NvmlDevice d, nlohmann::json& g, GpuReader& r) {
  // Errors: ECC counters (volatile: since the driver loaded; aggregate: the GPU's life), retired pages (before
  // Ampere) and remapped rows (Ampere on).
  nvml_api::EnableState ecc_now = 0, ecc_pending = 0;
  r.read("ecc_enabled",
         nvml_call(nvml.device_ecc_mode, [&] { return nvml.device_ecc_mode(d, &ecc_now, &ecc_pending); }),
         [&] { g["ecc_enabled"] = ecc_now != 0; });
  struct Counter {
    const char* key;
    int type;
    int counter;
  };
  for (const Counter& c :
       {Counter{"ecc_volatile_corrected", nvml_api::kMemoryErrorCorrected, nvml_api::kVolatileEcc},
        Counter{"ecc_volatile_uncorrected", nvml_api::kMemoryErrorUncorrected, nvml_api::kVolatileEcc},
        Counter{"ecc_aggregate_corrected", nvml_api::kMemoryErrorCorrected, nvml_api::kAggregateEcc},
        Counter{"ecc_aggregate_uncorrected", nvml_api::kMemoryErrorUncorrected, nvml_api::kAggregateEcc}}) {
    unsigned long long n = 0;
    r.read(c.key, nvml_call(nvml.device_ecc_total, [&] { return nvml.device_ecc_total(d, c.type, c.counter, &n); }),
           [&] { g[c.key] = n; });
  }
  nvml_api::EnableState retired_pending = 0;
  r.read("retired_pages_pending",
         nvml_call(nvml.device_retired_pending, [&] { return nvml.device_retired_pending(d, &retired_pending); }),
         [&] { g["retired_pages_pending"] = retired_pending != 0; });
  unsigned corr = 0, unc = 0, pending = 0, failure = 0;
  r.read("remapped_rows",
         nvml_call(nvml.device_remapped_rows,
                   [&] { return nvml.device_remapped_rows(d, &corr, &unc, &pending, &failure); }),
         [&] {
           g["remapped_rows"] = {
               {"correctable", corr}, {"uncorrectable", unc}, {"pending", pending != 0}, {"failure", failure != 0}};
         });
}

// Clocks and their event reasons, temperature, power, the PCIe link.
void read_state(const NvmlLibrary& nvml, NvmlDevice d, nlohmann::json& g, GpuReader& r) {
  // State against limits.
  unsigned long long reasons = 0;
  r.read("clock_event_reasons",
         nvml_call(nvml.device_clock_reasons, [&] { return nvml.device_clock_reasons(d, &reasons); }), [&] {
           g["clock_event_reasons"] = reasons;
           g["clock_event_reason_names"] = clock_reason_names(reasons);
         });
  for (const auto& [key, type, max] :
       {std::tuple{"sm_clock_mhz", nvml_api::kClockSm, false}, std::tuple{"sm_clock_max_mhz", nvml_api::kClockSm, true},
        std::tuple{"mem_clock_mhz", nvml_api::kClockMem, false},
        std::tuple{"mem_clock_max_mhz", nvml_api::kClockMem, true}}) {
    auto fn = max ? nvml.device_max_clock : nvml.device_clock;
    unsigned mhz = 0;
    r.read(key, nvml_call(fn, [&, t = type] { return fn(d, t, &mhz); }), [&, k = key] { g[k] = mhz; });
  }
  unsigned temp = 0;
  r.read(
      "temperature_c",
      nvml_call(nvml.device_temperature, [&] { return nvml.device_temperature(d, nvml_api::kTemperatureGpu, &temp); }),
      [&] { g["temperature_c"] = temp; });
  for (const auto& [key, type] : {std::pair{"temperature_slowdown_c", nvml_api::kThresholdSlowdown},
                                  std::pair{"temperature_shutdown_c", nvml_api::kThresholdShutdown}}) {
    unsigned t = 0;
    r.read(key,
           nvml_call(nvml.device_temperature_threshold,
                     [&, ty = type] { return nvml.device_temperature_threshold(d, ty, &t); }),
           [&, k = key] { g[k] = t; });
  }
  r.uint("power_w", nvml.device_power, 1e-3);  // NVML gives milliwatts
  r.uint("power_limit_w", nvml.device_power_limit, 1e-3);
  r.uint("pcie_gen", nvml.device_pcie_gen);
  r.uint("pcie_width", nvml.device_pcie_width);
  r.uint("pcie_max_gen", nvml.device_pcie_max_gen);
  r.uint("pcie_max_width", nvml.device_pcie_max_width);
}

// NVLink links.
void read_nvlink(const NvmlLibrary& nvml, NvmlDevice d, nlohmann::json& g, GpuReader& r) {
  // NVLink: each link that exists (a GPU without NVLink answers Not Supported for link 0), up or down, and its
  // error counters.
  if (nvml.device_nvlink_state != nullptr) {
    nlohmann::json links = nlohmann::json::array();
    std::string why;
    for (unsigned link = 0; link < nvml_api::kNvLinkMaxLinks; ++link) {
      nvml_api::EnableState up = 0;
      const Return rs = nvml.device_nvlink_state(d, link, &up);
      if (rs != nvml_api::kSuccess) {
        if (link == 0) why = nvml.error_text(rs);
        continue;
      }
      nlohmann::json l = {{"link", link}, {"up", up != 0}};
      for (const auto& [key, counter] :
           {std::pair{"replay", nvml_api::kNvLinkReplay}, std::pair{"recovery", nvml_api::kNvLinkRecovery},
            std::pair{"crc_flit", nvml_api::kNvLinkCrcFlit}}) {
        unsigned long long n = 0;
        if (nvml.device_nvlink_errors != nullptr &&
            nvml.device_nvlink_errors(d, link, counter, &n) == nvml_api::kSuccess) {
          l[key] = n;
        }
      }
      links.push_back(std::move(l));
    }
    if (links.empty()) {
      r.missing("nvlink", why.empty() ? "no link answered" : why);
    } else {
      g["nvlink"] = std::move(links);
    }
  } else {
    r.missing("nvlink", "not in this driver's NVML");
  }
}

nlohmann::json read_one_gpu(const NvmlLibrary& nvml, unsigned index, NvmlDevice d) {
  nlohmann::json g = {{"index", index}};
  GpuReader r(nvml, d, g);
  read_identity(nvml, d, g, r);
  read_errors(nvml, d, g, r);
  read_state(nvml, d, g, r);
  read_nvlink(nvml, d, g, r);
  return g;
}

}  // namespace

nlohmann::json read_loaded_state(const NvmlLibrary& nvml, const std::string& pci_bus_id) {
  NvmlDevice d = nullptr;
  if (nvml.device_by_pci_bus_id == nullptr) return {{"unavailable", "not in this driver's NVML"}};
  if (const Return r = nvml.device_by_pci_bus_id(pci_bus_id.c_str(), &d); r != nvml_api::kSuccess) {
    return {{"unavailable", fmt::format("no GPU at PCI bus {}: {}", pci_bus_id, nvml.error_text(r))}};
  }
  nlohmann::json g = nlohmann::json::object();
  GpuReader r(nvml, d, g);
  unsigned long long reasons = 0;
  r.read("clock_event_reasons",
         nvml_call(nvml.device_clock_reasons, [&] { return nvml.device_clock_reasons(d, &reasons); }), [&] {
           g["clock_event_reasons"] = reasons;
           g["clock_event_reason_names"] = clock_reason_names(reasons);
         });
  unsigned mhz = 0;
  r.read("sm_clock_mhz", nvml_call(nvml.device_clock, [&] { return nvml.device_clock(d, nvml_api::kClockSm, &mhz); }),
         [&] { g["sm_clock_mhz"] = mhz; });
  unsigned temp = 0;
  r.read(
      "temperature_c",
      nvml_call(nvml.device_temperature, [&] { return nvml.device_temperature(d, nvml_api::kTemperatureGpu, &temp); }),
      [&] { g["temperature_c"] = temp; });
  r.uint("power_w", nvml.device_power, 1e-3);
  r.uint("pcie_gen", nvml.device_pcie_gen);
  r.uint("pcie_width", nvml.device_pcie_width);
  r.uint("pcie_max_gen", nvml.device_pcie_max_gen);
  r.uint("pcie_max_width", nvml.device_pcie_max_width);
  return g;
}

KeyValues gpu_facts(const nlohmann::json& state) {
  std::vector<std::string> models, vbioses, persistence;
  auto once = [](std::vector<std::string>& seen, const std::string& v) {
    if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
  };
  for (const auto& g : state.value("gpus", nlohmann::json::array())) {
    once(models, g.value("name", std::string("?")));
    once(vbioses, g.value("vbios", std::string("?")));
    if (g.contains("persistence_mode")) once(persistence, g["persistence_mode"].get<bool>() ? "on" : "off");
  }
  if (models.empty()) return {};
  KeyValues facts = {{"gpu.model", fmt::format("{}", fmt::join(models, ", "))},
                     {"gpu.vbios", fmt::format("{}", fmt::join(vbioses, ", "))}};
  if (!persistence.empty())
    facts.emplace_back("gpu.persistence_mode", persistence.size() > 1 ? "mixed" : persistence[0]);
  return facts;
}

nlohmann::json clock_reason_names(unsigned long long reasons) {
  nlohmann::json names = nlohmann::json::array();
  for (const auto& [bit, name] :
       {std::pair{nvml_api::kReasonGpuIdle, "gpu_idle"},
        std::pair{nvml_api::kReasonApplicationsClocks, "applications_clocks"},
        std::pair{nvml_api::kReasonSwPowerCap, "sw_power_cap"}, std::pair{nvml_api::kReasonHwSlowdown, "hw_slowdown"},
        std::pair{nvml_api::kReasonSyncBoost, "sync_boost"},
        std::pair{nvml_api::kReasonSwThermal, "sw_thermal_slowdown"},
        std::pair{nvml_api::kReasonHwThermal, "hw_thermal_slowdown"},
        std::pair{nvml_api::kReasonHwPowerBrake, "hw_power_brake"},
        std::pair{nvml_api::kReasonDisplayClocks, "display_clocks"}}) {
    if ((reasons & bit) != 0) names.push_back(name);
  }
  return names;
}

std::string clock_reason_text(unsigned long long reasons) {
  std::string names;
  for (const auto& n : clock_reason_names(reasons)) names += (names.empty() ? "" : ", ") + n.get<std::string>();
  return names;
}

bool clock_reasons_are_faults(unsigned long long reasons) {
  return (reasons & (nvml_api::kReasonHwSlowdown | nvml_api::kReasonSwThermal | nvml_api::kReasonHwThermal |
                     nvml_api::kReasonHwPowerBrake)) != 0;
}

nlohmann::json read_gpu_state(const NvmlLibrary& nvml, std::size_t max_gpus) {
  nlohmann::json out = nlohmann::json::object();
  auto system_text = [&](const char* key, Return (*fn)(char*, unsigned)) {
    if (fn == nullptr) return;
    std::string buf(nvml_api::kVersionBufferSize, '\0');
    if (fn(buf.data(), nvml_api::kVersionBufferSize) == nvml_api::kSuccess) out[key] = std::string(buf.c_str());
  };
  system_text("driver", nvml.system_driver_version);
  system_text("nvml_version", nvml.system_nvml_version);
  int cuda = 0;
  if (nvml.system_cuda_driver_version != nullptr && nvml.system_cuda_driver_version(&cuda) == nvml_api::kSuccess) {
    out["cuda_driver"] = fmt::format("{}.{}", cuda / 1000, (cuda % 1000) / 10);
  }
  unsigned count = 0;
  if (nvml.device_count == nullptr) {
    out["unavailable"]["count"] = "not in this driver's NVML";
    return out;
  }
  if (const Return rc = nvml.device_count(&count); rc != nvml_api::kSuccess) {
    out["unavailable"]["count"] = nvml.error_text(rc);
    return out;
  }
  out["count"] = count;
  out["gpus"] = nlohmann::json::array();
  for (unsigned i = 0; i < count && i < max_gpus; ++i) {
    NvmlDevice d = nullptr;
    if (const Return rd = nvml.device_by_index(i, &d); rd != nvml_api::kSuccess) {
      // A GPU that NVML counts and cannot open (fallen off the bus, "GPU is lost") is itself a finding.
      out["gpus"].push_back({{"index", i}, {"lost", nvml.error_text(rd)}});
      continue;
    }
    out["gpus"].push_back(read_one_gpu(nvml, i, d));
  }
  return out;
}

XidListener::XidListener(const NvmlLibrary& nvml, std::size_t max_gpus) : nvml_(nvml) {
  if (nvml.event_set_create == nullptr || nvml.register_events == nullptr || nvml.event_wait == nullptr ||
      nvml.device_count == nullptr || nvml.device_by_index == nullptr) {
    why_ = "this driver's NVML has no event calls";
    return;
  }
  if (const Return r = nvml.event_set_create(&set_); r != nvml_api::kSuccess) {
    why_ = "nvmlEventSetCreate: " + nvml.error_text(r);
    set_ = nullptr;
    return;
  }
  unsigned count = 0;
  if (nvml.device_count(&count) != nvml_api::kSuccess) count = 0;
  for (unsigned i = 0; i < count && i < max_gpus; ++i) {
    NvmlDevice d = nullptr;
    if (nvml.device_by_index(i, &d) != nvml_api::kSuccess) continue;
    if (const Return r = nvml.register_events(d, nvml_api::kEventXidCritical, set_); r != nvml_api::kSuccess) {
      why_ = fmt::format("nvmlDeviceRegisterEvents on GPU {}: {}", i, nvml.error_text(r));
      continue;
    }
    devices_.emplace_back(i, d);
  }
}

XidListener::~XidListener() {
  if (set_ != nullptr && nvml_.event_set_free != nullptr) nvml_.event_set_free(set_);
}

nlohmann::json XidListener::collect(unsigned wait_ms) {
  nlohmann::json out = {{"listening", set_ != nullptr && !devices_.empty()}};
  if (!why_.empty()) out["why"] = why_;
  out["events"] = nlohmann::json::array();
  if (set_ == nullptr || devices_.empty()) return out;
  constexpr std::size_t kMaxEvents = 256;
  for (std::size_t n = 0; n < kMaxEvents; ++n) {
    nvml_api::EventData e{};
    if (nvml_.event_wait(set_, &e, n == 0 ? wait_ms : 0) != nvml_api::kSuccess) break;
    int gpu = -1;
    for (const auto& [index, device] : devices_) {
      if (device == e.device) gpu = static_cast<int>(index);
    }
    out["events"].push_back({{"gpu", gpu}, {"xid", e.event_data}});
  }
  return out;
}

}  // namespace distbench
