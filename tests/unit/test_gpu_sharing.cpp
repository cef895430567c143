// Several processes on one GPU: finding NVIDIA's MPS daemon (a process of its name, or its control pipe) and what a
// run says with and without it.
#include "core/sys/gpu_sharing.hpp"

#include "core/report/record.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace distbench {
namespace {

namespace fs = std::filesystem;

// A folder laid out as /proc (numbered folders with a comm file) and an MPS pipe folder, removed afterwards.
class GpuSharing : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("distbench_gpu_sharing_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(proc() / "self");
    fs::create_directories(pipes());
    process(1, "systemd");
    process(4242, "distbench");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path proc() const { return dir_ / "proc"; }
  fs::path pipes() const { return dir_ / "nvidia-mps"; }
  void process(int pid, const std::string& comm) const {
    fs::create_directories(proc() / std::to_string(pid));
    std::ofstream(proc() / std::to_string(pid) / "comm") << comm << '\n';
  }

  fs::path dir_;
};

TEST_F(GpuSharing, TheDaemonIsFoundByItsProcessName) {
  EXPECT_EQ(find_mps(pipes().string(), proc().string()).state, MpsState::absent);
  ASSERT_EQ(::mkfifo((pipes() / "control").c_str(), 0600), 0);
  process(812, "nvidia-cuda-mps");  // comm keeps 15 characters of nvidia-cuda-mps-control
  const MpsDaemon mps = find_mps(pipes().string(), proc().string());
  EXPECT_EQ(mps.state, MpsState::running);
  EXPECT_EQ(mps.evidence, "process nvidia-cuda-mps (pid 812)");
}

// The daemon leaves its pipe behind when it quits (an H200's /tmp after `echo quit | nvidia-cuda-mps-control`), and
// a daemon outside a container shows only its pipe: a pipe without the process is neither.
TEST_F(GpuSharing, AControlPipeWithoutTheProcessLeavesItUnknownAndAPlainFileIsNothing) {
  std::ofstream(pipes() / "control") << "";
  EXPECT_EQ(find_mps(pipes().string(), proc().string()).state, MpsState::absent);
  fs::remove(pipes() / "control");
  ASSERT_EQ(::mkfifo((pipes() / "control").c_str(), 0600), 0);
  const MpsDaemon mps = find_mps(pipes().string(), proc().string());
  EXPECT_EQ(mps.state, MpsState::unknown);
  EXPECT_NE(mps.evidence.find("a control pipe in " + pipes().string()), std::string::npos) << mps.evidence;
  EXPECT_FALSE(gpu_sharing_warning(2, mps));
  EXPECT_NE(gpu_sharing_text(2, mps)->find("under MPS or time-sliced"), std::string::npos);
}

TEST_F(GpuSharing, NoDaemonSaysWhereItLooked) {
  const MpsDaemon mps = find_mps(pipes().string(), (dir_ / "no-such-proc").string());
  EXPECT_EQ(mps.state, MpsState::absent);
  EXPECT_EQ(mps.evidence, "no nvidia-cuda-mps process, no control pipe in " + pipes().string());
}

TEST(GpuSharingPipes, ThePipeFolderIsTheVariablesElseNvidiasDefault) {
  EXPECT_EQ(mps_pipe_directory(nullptr), "/tmp/nvidia-mps");
  EXPECT_EQ(mps_pipe_directory(""), "/tmp/nvidia-mps");
  EXPECT_EQ(mps_pipe_directory("/run/mps"), "/run/mps");
}

TEST(GpuSharingText, OneProcessPerGpuSaysNothing) {
  const MpsDaemon none{MpsState::absent, "no nvidia-cuda-mps process, no control pipe in /tmp/nvidia-mps"};
  EXPECT_FALSE(gpu_sharing_text(1, none));
  EXPECT_FALSE(gpu_sharing_warning(1, none));
}

TEST(GpuSharingText, SharedWithoutMpsWarnsAndSharedUnderMpsIsAFactOnly) {
  const MpsDaemon none{MpsState::absent, "no nvidia-cuda-mps process, no control pipe in /tmp/nvidia-mps"};
  const MpsDaemon mps{MpsState::running, "process nvidia-cuda-mps (pid 812)"};
  EXPECT_EQ(*gpu_sharing_text(2, none),
            "2 processes per GPU, time-sliced: no MPS daemon (no nvidia-cuda-mps process, no control pipe in "
            "/tmp/nvidia-mps)");
  EXPECT_EQ(*gpu_sharing_text(4, mps), "4 processes per GPU, under MPS (process nvidia-cuda-mps (pid 812))");
  const auto warning = gpu_sharing_warning(2, none);
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("2 processes share each GPU"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("nvidia-cuda-mps-control -d"), std::string::npos) << *warning;
  EXPECT_LE(std::string("warning: ").size() + gpu_sharing_warning(1000, none)->size(), kWarningColumns);
  EXPECT_FALSE(gpu_sharing_warning(2, mps));
}

}  // namespace
}  // namespace distbench
