// The few calls of NVIDIA's Management Library (NVML) that the health check reads, declared from NVIDIA's documented
// C API (NVML API Reference Guide) because no NVML header is packaged where distbench builds: the library itself,
// libnvidia-ml.so.1, comes with the GPU driver and is opened at run time (nvml_library.hpp). Only the types and
// constants these calls take are declared; their numeric values are the API's.
#pragma once

namespace distbench::nvml_api {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorTimeout = 10;

using Device = struct nvmlDevice_st*;      // nvmlDevice_t, opaque
using EventSet = struct nvmlEventSet_st*;  // nvmlEventSet_t, opaque
using EnableState = int;                   // nvmlEnableState_t: 0 disabled, 1 enabled

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it.
struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_sub_system_id;
  char bus_id[32];
};

struct Memory {  // nvmlMemory_t
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct EventData {  // nvmlEventData_t
  Device device;
  unsigned long long event_type;
  unsigned long long event_data;  // the XID, for a critical XID event
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};

// nvmlMemoryErrorType_t, nvmlEccCounterType_t
inline constexpr int kMemoryErrorCorrected = 0;
inline constexpr int kMemoryErrorUncorrected = 1;
inline constexpr int kVolatileEcc = 0;
inline constexpr int kAggregateEcc = 1;
// nvmlClockType_t
inline constexpr int kClockSm = 1;
inline constexpr int kClockMem = 2;
// nvmlTemperatureSensors_t, nvmlTemperatureThresholds_t
inline constexpr int kTemperatureGpu = 0;
inline constexpr int kThresholdShutdown = 0;
inline constexpr int kThresholdSlowdown = 1;
// nvmlNvLinkErrorCounter_t
inline constexpr int kNvLinkReplay = 0;
inline constexpr int kNvLinkRecovery = 1;
inline constexpr int kNvLinkCrcFlit = 2;
inline constexpr unsigned kNvLinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
// nvmlEventTypeXidCriticalError
inline constexpr unsigned long long kEventXidCritical = 0x8ULL;

// Clock event ("throttle") reasons, the bits of nvmlDeviceGetCurrentClocksEventReasons.
inline constexpr unsigned long long kReasonGpuIdle = 0x1ULL;
inline constexpr unsigned long long kReasonApplicationsClocks = 0x2ULL;
inline constexpr unsigned long long kReasonSwPowerCap = 0x4ULL;
inline constexpr unsigned long long kReasonHwSlowdown = 0x8ULL;
inline constexpr unsigned long long kReasonSyncBoost = 0x10ULL;
inline constexpr unsigned long long kReasonSwThermal = 0x20ULL;
inline constexpr unsigned long long kReasonHwThermal = 0x40ULL;
inline constexpr unsigned long long kReasonHwPowerBrake = 0x80ULL;
inline constexpr unsigned long long kReasonDisplayClocks = 0x100ULL;

// Buffer sizes the API documents for its strings.
inline constexpr unsigned kNameBufferSize = 96;     // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kUuidBufferSize = 96;     // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned kSerialBufferSize = 30;   // NVML_DEVICE_SERIAL_BUFFER_SIZE
inline constexpr unsigned kVbiosBufferSize = 32;    // NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE
inline constexpr unsigned kVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

}  // namespace distbench::nvml_api
