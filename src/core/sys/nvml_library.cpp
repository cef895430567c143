#include "core/sys/nvml_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

namespace distbench {
namespace {

// Binds `out` to the first of `names` the library has (a newer name first, then the one older drivers export);
// leaves it null when it has none.
template <typename F>
void bind_nvml(void* handle, std::initializer_list<const char*> names, F& out) {
  for (const char* name : names) {
    out = reinterpret_cast<F>(dlsym(handle, name));
    if (out != nullptr) return;
  }
}

}  // namespace

std::variant<std::unique_ptr<NvmlLibrary>, std::string> NvmlLibrary::open(const std::string& file) {
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fmt::format("{} (no NVIDIA driver on this node?)", why != nullptr ? why : file);
  }
  Return (*init)() = nullptr;
  bind_nvml(handle, {"nvmlInit_v2", "nvmlInit"}, init);
  if (init == nullptr) {
    dlclose(handle);
    return fmt::format("{} has no nvmlInit_v2: not NVIDIA's management library", file);
  }
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  lib->handle_ = handle;
  void* h = handle;
  bind_nvml(h, {"nvmlErrorString"}, lib->error_string);
  if (const Return r = init(); r != nvml_api::kSuccess) {
    const std::string why = lib->error_text(r);
    return fmt::format("nvmlInit_v2: {}", why);  // lib closes the library; shutdown stays null (never initialised)
  }
  bind_nvml(h, {"nvmlShutdown"}, lib->shutdown);
  bind_nvml(h, {"nvmlSystemGetDriverVersion"}, lib->system_driver_version);
  bind_nvml(h, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"},
            lib->system_cuda_driver_version);
  bind_nvml(h, {"nvmlSystemGetNVMLVersion"}, lib->system_nvml_version);
  bind_nvml(h, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}, lib->device_count);
  bind_nvml(h, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}, lib->device_by_index);
  bind_nvml(h, {"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"}, lib->device_by_pci_bus_id);
  bind_nvml(h, {"nvmlDeviceGetName"}, lib->device_name);
  bind_nvml(h, {"nvmlDeviceGetUUID"}, lib->device_uuid);
  bind_nvml(h, {"nvmlDeviceGetSerial"}, lib->device_serial);
  bind_nvml(h, {"nvmlDeviceGetVbiosVersion"}, lib->device_vbios);
  bind_nvml(h, {"nvmlDeviceGetPciInfo_v3"}, lib->device_pci);
  bind_nvml(h, {"nvmlDeviceGetMemoryInfo"}, lib->device_memory);
  bind_nvml(h, {"nvmlDeviceGetPersistenceMode"}, lib->device_persistence);
  bind_nvml(h, {"nvmlDeviceGetEccMode"}, lib->device_ecc_mode);
  bind_nvml(h, {"nvmlDeviceGetTotalEccErrors"}, lib->device_ecc_total);
  bind_nvml(h, {"nvmlDeviceGetRetiredPagesPendingStatus"}, lib->device_retired_pending);
  bind_nvml(h, {"nvmlDeviceGetRemappedRows"}, lib->device_remapped_rows);
  bind_nvml(h, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"},
            lib->device_clock_reasons);
  bind_nvml(h, {"nvmlDeviceGetClockInfo"}, lib->device_clock);
  bind_nvml(h, {"nvmlDeviceGetMaxClockInfo"}, lib->device_max_clock);
  bind_nvml(h, {"nvmlDeviceGetTemperature"}, lib->device_temperature);
  bind_nvml(h, {"nvmlDeviceGetTemperatureThreshold"}, lib->device_temperature_threshold);
  bind_nvml(h, {"nvmlDeviceGetPowerUsage"}, lib->device_power);
  bind_nvml(h, {"nvmlDeviceGetEnforcedPowerLimit"}, lib->device_power_limit);
  bind_nvml(h, {"nvmlDeviceGetCurrPcieLinkGeneration"}, lib->device_pcie_gen);
  bind_nvml(h, {"nvmlDeviceGetCurrPcieLinkWidth"}, lib->device_pcie_width);
  bind_nvml(h, {"nvmlDeviceGetMaxPcieLinkGeneration"}, lib->device_pcie_max_gen);
  bind_nvml(h, {"nvmlDeviceGetMaxPcieLinkWidth"}, lib->device_pcie_max_width);
  bind_nvml(h, {"nvmlDeviceGetNvLinkState"}, lib->device_nvlink_state);
  bind_nvml(h, {"nvmlDeviceGetNvLinkErrorCounter"}, lib->device_nvlink_errors);
  bind_nvml(h, {"nvmlEventSetCreate"}, lib->event_set_create);
  bind_nvml(h, {"nvmlEventSetFree"}, lib->event_set_free);
  bind_nvml(h, {"nvmlDeviceRegisterEvents"}, lib->register_events);
  bind_nvml(h, {"nvmlEventSetWait_v2", "nvmlEventSetWait"}, lib->event_wait);
  return lib;
}

NvmlLibrary::~NvmlLibrary() {
  if (shutdown != nullptr) shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

std::string NvmlLibrary::error_text(Return r) const {
  const char* text = error_string != nullptr ? error_string(r) : nullptr;
  return text != nullptr ? std::string(text) : fmt::format("NVML error {}", r);
}

}  // namespace distbench
