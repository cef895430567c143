// Copy bandwidth between the GPUs of one node, every ordered pair: what NVLink or PCIe peer-to-peer gives a
// collective inside a node. Measured by the node's first rank (Device::peer_copies), judged in health's gpu phase.
#pragma once

#include <string>
#include <vector>

namespace distbench {

struct PeerCopies {
  std::vector<std::string> gpus;          // "0 (NVIDIA H200)", in device order
  std::vector<std::vector<double>> gbps;  // [from][to], bytes copied per second / 1e9; 0 on the diagonal
  std::vector<std::vector<bool>> direct;  // [from][to]: peer to peer; false: staged through host memory by CUDA
  std::string skipped;                    // why no matrix was measured ("" when it was)
};

}  // namespace distbench
