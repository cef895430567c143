// Reducing one vector per rank onto the root, element by element, without the root receiving every rank's vector:
// a binomial tree of the Connector's bounded point-to-point messages (the shape MPI_Reduce takes for short
// messages). Each rank sends one message and receives at most ceil(log2 p); the root receives ceil(log2 p) vectors
// of the one length, so that what moves to it, and what it holds, is O(length x log p), not O(length x p) as a
// gather of every rank's vector would be.
#pragma once

#include "core/comm/connector.hpp"

#include <chrono>
#include <span>
#include <vector>

namespace distbench {

enum class ElementwiseOp { min, max, sum };

// Collective over `c`: every rank passes a vector of the same length; the root gets, for each element, its min, max
// or sum over the ranks (others get an empty vector). Throws Error(timeout) when a message does not come or leave
// by `deadline`, and failure when a rank's vector has another length.
std::vector<double> reduce_elementwise(Connector& c, std::span<const double> mine, ElementwiseOp op, int root,
                                       std::chrono::steady_clock::time_point deadline);

// Rank `from`'s vector on `root` (a copy there when from == root; nothing moves elsewhere). Empty on other ranks.
std::vector<double> vector_of_rank(Connector& c, std::span<const double> mine, int from, int root,
                                   std::chrono::steady_clock::time_point deadline);

}  // namespace distbench
