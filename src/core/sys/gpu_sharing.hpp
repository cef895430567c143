// Several processes on one GPU. Without NVIDIA's Multi-Process Service (MPS) a GPU runs one process's work at a time,
// in time slices of about a millisecond: a collective between processes that share it waits for the slices, and the
// time it shows is the scheduler's, not the transport's; under MPS they run at once (both figures: docs/gpu.md,
// 'Several ranks on one GPU'). The run says which it was; without MPS it warns.
#pragma once

#include <optional>
#include <string>

namespace distbench {

// Whether an MPS control daemon serves this machine, and what showed it. Its control pipe alone does not tell: the
// daemon leaves it behind when it quits (seen on an H200), and a daemon outside a container shows only its pipe.
enum class MpsState { absent, running, unknown };
struct MpsDaemon {
  MpsState state = MpsState::absent;
  std::string evidence;  // "process nvidia-cuda-mps (pid 812)", "a control pipe in /tmp/nvidia-mps but no ..."
};

// MPS's pipe folder: the CUDA_MPS_PIPE_DIRECTORY value when set and not empty, else NVIDIA's default /tmp/nvidia-mps.
std::string mps_pipe_directory(const char* variable);
// Looks for the daemon: running when a process named nvidia-cuda-mps-control or nvidia-cuda-mps-server is among
// `proc_root`'s numbered folders (their `comm`); else unknown when a `control` pipe or socket is in
// `pipe_directory`; else absent.
MpsDaemon find_mps(const std::string& pipe_directory, const std::string& proc_root);
// This machine's: find_mps(mps_pipe_directory(getenv("CUDA_MPS_PIPE_DIRECTORY")), "/proc").
MpsDaemon find_mps();

// The report's fact when processes share each GPU ("2 processes per GPU, under MPS (...)"); nullopt for one.
std::optional<std::string> gpu_sharing_text(int processes_per_gpu, const MpsDaemon& mps);
// The warning's line when they share one and no MPS daemon is there (what the times then are, and the evidence, in
// the report's gpu.sharing fact and docs/methods.md); nullopt for one process per GPU, under MPS, or when
// whether one serves them is unknown (the fact says so).
std::optional<std::string> gpu_sharing_warning(int processes_per_gpu, const MpsDaemon& mps);

}  // namespace distbench
