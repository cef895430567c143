#include "core/sys/gpu_sharing.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace distbench {
namespace {

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// The first MPS process among proc_root's numbered folders, as "process NAME (pid N)".
std::optional<std::string> mps_process(const std::string& proc_root) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(proc_root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string pid = it->path().filename().string();
    if (!all_digits(pid)) continue;
    std::ifstream in(it->path() / "comm");
    std::string name;
    // comm holds at most 15 characters: "nvidia-cuda-mps-control" reads "nvidia-cuda-mps".
    if (std::getline(in, name) && name.rfind("nvidia-cuda-mps", 0) == 0) {
      return fmt::format("process {} (pid {})", name, pid);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string mps_pipe_directory(const char* variable) {
  return variable != nullptr && *variable != '\0' ? std::string(variable) : std::string("/tmp/nvidia-mps");
}

MpsDaemon find_mps(const std::string& pipe_directory, const std::string& proc_root) {
  if (auto process = mps_process(proc_root)) return {MpsState::running, std::move(*process)};
  const std::filesystem::path pipe = std::filesystem::path(pipe_directory) / "control";
  std::error_code ec;
  const auto status = std::filesystem::status(pipe, ec);
  if (!ec && (std::filesystem::is_fifo(status) || std::filesystem::is_socket(status))) {
    return {MpsState::unknown,
            fmt::format("a control pipe in {} but no nvidia-cuda-mps process visible: a daemon outside this "
                        "container, or one that has quit",
                        pipe_directory)};
  }
  return {MpsState::absent, fmt::format("no nvidia-cuda-mps process, no control pipe in {}", pipe_directory)};
}

MpsDaemon find_mps() { return find_mps(mps_pipe_directory(std::getenv("CUDA_MPS_PIPE_DIRECTORY")), "/proc"); }

std::optional<std::string> gpu_sharing_text(int processes_per_gpu, const MpsDaemon& mps) {
  if (processes_per_gpu <= 1) return std::nullopt;
  const char* how = mps.state == MpsState::running  ? "under MPS"
                    : mps.state == MpsState::absent ? "time-sliced: no MPS daemon"
                                                    : "under MPS or time-sliced";
  return fmt::format("{} processes per GPU, {} ({})", processes_per_gpu, how, mps.evidence);
}

std::optional<std::string> gpu_sharing_warning(int processes_per_gpu, const MpsDaemon& mps) {
  if (processes_per_gpu <= 1 || mps.state != MpsState::absent) return std::nullopt;
  // One line (why, and the evidence, are in docs/methods.md and the report's gpu.sharing fact).
  return fmt::format("{} processes share each GPU, no MPS: times are time slices; nvidia-cuda-mps-control -d",
                     processes_per_gpu);
}

}  // namespace distbench
