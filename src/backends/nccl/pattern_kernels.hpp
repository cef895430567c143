// The verification kernels: fill a buffer with a rank's pattern input and count the elements of a result that differ
// from the expected values, with the formulas of core/device/pattern.hpp (compiled for the device). Only the count
// comes
// back to the host. Launches are asynchronous on `stream`; the current device must be the stream's.
#pragma once

#include "core/device/dtype.hpp"
#include "core/device/pattern.hpp"
#include "core/device/reduce_op.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace distbench::nccl {

// Element i of `data` (count elements of `dtype`) gets pattern_input(pattern, rank, i).
cudaError_t launch_fill(void* data, std::size_t count, DType dtype, const PatternParams& pattern, int rank,
                        cudaStream_t stream);

// Adds to `*counter` (device memory) the number of wrong elements over `nblocks` blocks (`blocks` in device memory);
// `longest` is the largest block count. An element is wrong when it differs from pattern_expected() encoded in
// `dtype`; with `tolerance` > 0 (floating-point avg only) when it is farther than that from the expected value or
// still holds the poison bytes.
cudaError_t launch_count_wrong(const void* data, DType dtype, const PatternParams& pattern, ReduceOp op,
                               const ExpectBlock* blocks, int nblocks, std::uint64_t longest, double tolerance,
                               unsigned long long* counter, cudaStream_t stream);

// Element j of each of the `nblocks` blocks (`blocks` in device memory; `longest` the largest block count) gets
// pattern_expected() encoded in `dtype`: what launch_count_wrong counts as right.
cudaError_t launch_fill_expected(void* data, DType dtype, const PatternParams& pattern, ReduceOp op,
                                 const ExpectBlock* blocks, int nblocks, std::uint64_t longest, cudaStream_t stream);

}  // namespace distbench::nccl
