// NVML opened at run time: the GPU driver's libnvidia-ml.so.1, initialised for as long as this object lives. The
// build needs neither a header nor the library; a node without NVIDIA's driver gets the reason it could not be
// opened, so that every GPU check says why it was skipped. Calls a driver lacks (older drivers) are null: a reading
// that needs one is "not in this driver's NVML".
#pragma once

#include "core/sys/nvml_api.hpp"

#include <memory>
#include <string>
#include <variant>

namespace distbench {

struct NvmlLibrary {
  using Device = nvml_api::Device;
  using Return = nvml_api::Return;

  // The library, initialised; or why not ("libnvidia-ml.so.1: cannot open shared object file: ...", "nvmlInit_v2:
  // Driver Not Loaded"). `file` is the name given to dlopen (tests pass one that does not exist).
  static std::variant<std::unique_ptr<NvmlLibrary>, std::string> open(const std::string& file = "libnvidia-ml.so.1");
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The API's text for a return code ("Not Supported"), or the code as a number.
  std::string error_text(Return r) const;

  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*system_driver_version)(char*, unsigned) = nullptr;
  Return (*system_cuda_driver_version)(int*) = nullptr;
  Return (*system_nvml_version)(char*, unsigned) = nullptr;
  Return (*device_count)(unsigned*) = nullptr;
  Return (*device_by_index)(unsigned, Device*) = nullptr;
  Return (*device_by_pci_bus_id)(const char*, Device*) = nullptr;
  Return (*device_name)(Device, char*, unsigned) = nullptr;
  Return (*device_uuid)(Device, char*, unsigned) = nullptr;
  Return (*device_serial)(Device, char*, unsigned) = nullptr;
  Return (*device_vbios)(Device, char*, unsigned) = nullptr;
  Return (*device_pci)(Device, nvml_api::PciInfo*) = nullptr;
  Return (*device_memory)(Device, nvml_api::Memory*) = nullptr;
  Return (*device_persistence)(Device, nvml_api::EnableState*) = nullptr;
  Return (*device_ecc_mode)(Device, nvml_api::EnableState*, nvml_api::EnableState*) = nullptr;
  Return (*device_ecc_total)(Device, int, int, unsigned long long*) = nullptr;
  Return (*device_retired_pending)(Device, nvml_api::EnableState*) = nullptr;
  Return (*device_remapped_rows)(Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  Return (*device_clock_reasons)(Device, unsigned long long*) = nullptr;
  Return (*device_clock)(Device, int, unsigned*) = nullptr;
  Return (*device_max_clock)(Device, int, unsigned*) = nullptr;
  Return (*device_temperature)(Device, int, unsigned*) = nullptr;
  Return (*device_temperature_threshold)(Device, int, unsigned*) = nullptr;
  Return (*device_power)(Device, unsigned*) = nullptr;
  Return (*device_power_limit)(Device, unsigned*) = nullptr;
  Return (*device_pcie_gen)(Device, unsigned*) = nullptr;
  Return (*device_pcie_width)(Device, unsigned*) = nullptr;
  Return (*device_pcie_max_gen)(Device, unsigned*) = nullptr;
  Return (*device_pcie_max_width)(Device, unsigned*) = nullptr;
  Return (*device_nvlink_state)(Device, unsigned, nvml_api::EnableState*) = nullptr;
  Return (*device_nvlink_errors)(Device, unsigned, int, unsigned long long*) = nullptr;
  Return (*event_set_create)(nvml_api::EventSet*) = nullptr;
  Return (*event_set_free)(nvml_api::EventSet) = nullptr;
  Return (*register_events)(Device, unsigned long long, nvml_api::EventSet) = nullptr;
  Return (*event_wait)(nvml_api::EventSet, nvml_api::EventData*, unsigned) = nullptr;

 private:
  NvmlLibrary() = default;
  void* handle_ = nullptr;
};

}  // namespace distbench
