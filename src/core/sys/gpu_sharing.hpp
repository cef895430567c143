// Several processes on one GPU. Without NVIDIA's Multi-Process Service (MPS) a GPU runs one process's work at a time,
// in time slices of about a millisecond: a collective between processes that share it waits for the slices, and the
// time it shows is the scheduler's, not the transport's (on one H200, NCCL over sockets between 2 processes: 1.8 ms
// per message time-sliced, 0.15 ms under MPS). The run says which it was; without MPS it warns.
#pragma once

#include <optional>
#include <string>

namespace distbench {

// Whether an MPS control daemon serves this machine, and what showed it.
struct MpsDaemon {
  bool running = false;
  std::string evidence;  // "process nvidia-cuda-mps-control (pid 812)", "control pipe /tmp/nvidia-mps/control"
};

// MPS's pipe folder: the CUDA_MPS_PIPE_DIRECTORY value when set and not empty, else NVIDIA's default /tmp/nvidia-mps.
std::string mps_pipe_directory(const char* variable);
// Looks for the daemon: a process named nvidia-cuda-mps-control or nvidia-cuda-mps-server among `proc_root`'s
// numbered folders (their `comm`), else the daemon's `control` pipe in `pipe_directory` (a daemon of the host seen
// from a container shows only its pipe).
MpsDaemon find_mps(const std::string& pipe_directory, const std::string& proc_root);
// This machine's: find_mps(mps_pipe_directory(getenv("CUDA_MPS_PIPE_DIRECTORY")), "/proc").
MpsDaemon find_mps();

// The report's fact when processes share each GPU ("2 processes per GPU, under MPS (...)"); nullopt for one.
std::optional<std::string> gpu_sharing_text(int processes_per_gpu, const MpsDaemon& mps);
// The warning when they share one without MPS; nullopt for one process per GPU, or under MPS.
std::optional<std::string> gpu_sharing_warning(int processes_per_gpu, const MpsDaemon& mps);

}  // namespace distbench
