#include "backends/nccl/pattern_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

namespace distbench::nccl {
namespace {

constexpr int kPatternThreads = 256;
constexpr std::uint64_t kMaxGridX = 4096;
constexpr unsigned kMaxGridY = 65535;
constexpr unsigned kMaxCtas = 65536;         // enough to fill any GPU; larger grids only add scheduling
constexpr unsigned char kPoisonByte = 0xA5;  // the byte Device::poison writes (as the host device does)

// How one dtype is stored, encoded from a pattern value and decoded for the tolerance test. Integers wrap modulo
// 2^bits, as encode_pattern() does on the host; floats are m * 2^e, exact in a double and in the dtype (pattern.hpp),
// so converting them rounds nothing, as on the host.
template <typename T>
struct Plain {
  using Storage = T;
  static __device__ Storage encode(const PatternValue& v) {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<Storage>(pattern_double(v));
    } else {
      return static_cast<Storage>(v.m);
    }
  }
  static __device__ double decode(Storage s) { return static_cast<double>(s); }
};

struct Half {
  using Storage = unsigned short;
  static __device__ Storage encode(const PatternValue& v) {
    return __half_as_ushort(__float2half_rn(static_cast<float>(pattern_double(v))));
  }
  static __device__ double decode(Storage s) { return __half2float(__ushort_as_half(s)); }
};

struct BFloat16 {
  using Storage = unsigned short;
  static __device__ Storage encode(const PatternValue& v) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(static_cast<float>(pattern_double(v))));
  }
  static __device__ double decode(Storage s) { return __bfloat162float(__ushort_as_bfloat16(s)); }
};

template <typename Storage>
__device__ bool is_poison(Storage s) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&s);
  for (unsigned k = 0; k < sizeof(Storage); ++k) {
    if (bytes[k] != kPoisonByte) return false;
  }
  return true;
}

template <typename Codec>
__global__ void fill_kernel(typename Codec::Storage* data, std::uint64_t count, PatternParams pattern, int rank) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = Codec::encode(pattern_input(pattern, rank, i));
  }
}

template <typename Codec>
__global__ void count_wrong_kernel(const typename Codec::Storage* data, PatternParams pattern, ReduceOp op,
                                   const ExpectBlock* blocks, int nblocks, double tolerance,
                                   unsigned long long* counter) {
  // The tolerance is in units of the element's scale 2^e (verify_tolerance.hpp), plus one smallest subnormal per
  // rank: a rounding in the subnormal range loses up to half of one, whatever the scale.
  const double subnormal_slack = pattern.nranks * ldexp(1.0, pattern.min_exponent);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0;
  for (int b = static_cast<int>(blockIdx.y); b < nblocks; b += static_cast<int>(gridDim.y)) {
    const ExpectBlock block = blocks[b];
    for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < block.count;
         j += stride) {
      const auto got = data[block.offset + j];
      const PatternValue expected = pattern_expected(pattern, op, block, j);
      bool right = false;
      if (tolerance > 0) {
        const double diff = Codec::decode(got) - pattern_double(expected);
        const double bound = tolerance * ldexp(1.0, expected.e) + subnormal_slack;
        right = !is_poison(got) && diff <= bound && -diff <= bound;
      } else {
        right = got == Codec::encode(expected);
      }
      if (!right) ++wrong;
    }
  }
  if (wrong != 0) atomicAdd(counter, wrong);
}

template <typename Codec>
__global__ void fill_expected_kernel(typename Codec::Storage* data, PatternParams pattern, ReduceOp op,
                                     const ExpectBlock* blocks, int nblocks) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (int b = static_cast<int>(blockIdx.y); b < nblocks; b += static_cast<int>(gridDim.y)) {
    const ExpectBlock block = blocks[b];
    for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < block.count;
         j += stride) {
      data[block.offset + j] = Codec::encode(pattern_expected(pattern, op, block, j));
    }
  }
}

unsigned pattern_grid(std::uint64_t elements) {
  const std::uint64_t blocks = (elements + kPatternThreads - 1) / kPatternThreads;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(blocks, 1, kMaxGridX));
}

// Calls f(Codec{}) with the codec of `t`.
template <typename F>
cudaError_t with_codec(DType t, F&& f) {
  switch (t) {
    case DType::int8: return f(Plain<signed char>{});
    case DType::uint8: return f(Plain<unsigned char>{});
    case DType::int32: return f(Plain<int>{});
    case DType::uint32: return f(Plain<unsigned>{});
    case DType::int64: return f(Plain<long long>{});
    case DType::uint64: return f(Plain<unsigned long long>{});
    case DType::float16: return f(Half{});
    case DType::bfloat16: return f(BFloat16{});
    case DType::float32: return f(Plain<float>{});
    case DType::float64: return f(Plain<double>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_fill(void* data, std::size_t count, DType dtype, const PatternParams& pattern, int rank,
                        cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return with_codec(dtype, [&]<typename Codec>(Codec) {
    fill_kernel<Codec><<<pattern_grid(count), kPatternThreads, 0, stream>>>(static_cast<typename Codec::Storage*>(data),
                                                                            count, pattern, rank);
    return cudaGetLastError();
  });
}

cudaError_t launch_count_wrong(const void* data, DType dtype, const PatternParams& pattern, ReduceOp op,
                               const ExpectBlock* blocks, int nblocks, std::uint64_t longest, double tolerance,
                               unsigned long long* counter, cudaStream_t stream) {
  if (nblocks == 0 || longest == 0) return cudaSuccess;
  const unsigned grid_y = std::min(static_cast<unsigned>(nblocks), kMaxGridY);
  const unsigned grid_x = std::max(1u, std::min(pattern_grid(longest), kMaxCtas / grid_y));
  const dim3 grid(grid_x, grid_y);
  return with_codec(dtype, [&]<typename Codec>(Codec) {
    count_wrong_kernel<Codec><<<grid, kPatternThreads, 0, stream>>>(static_cast<const typename Codec::Storage*>(data),
                                                                    pattern, op, blocks, nblocks, tolerance, counter);
    return cudaGetLastError();
  });
}

cudaError_t launch_fill_expected(void* data, DType dtype, const PatternParams& pattern, ReduceOp op,
                                 const ExpectBlock* blocks, int nblocks, std::uint64_t longest, cudaStream_t stream) {
  if (nblocks == 0 || longest == 0) return cudaSuccess;
  const unsigned grid_y = std::min(static_cast<unsigned>(nblocks), kMaxGridY);
  const unsigned grid_x = std::max(1u, std::min(pattern_grid(longest), kMaxCtas / grid_y));
  const dim3 grid(grid_x, grid_y);
  return with_codec(dtype, [&]<typename Codec>(Codec) {
    fill_expected_kernel<Codec><<<grid, kPatternThreads, 0, stream>>>(static_cast<typename Codec::Storage*>(data),
                                                                      pattern, op, blocks, nblocks);
    return cudaGetLastError();
  });
}

}  // namespace distbench::nccl
