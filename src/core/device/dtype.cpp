#include "core/device/dtype.hpp"

#include <array>
#include <utility>

namespace distbench {
namespace {

constexpr std::array kAllDTypes = {DType::int8,   DType::uint8,   DType::int32,    DType::uint32,  DType::int64,
                                   DType::uint64, DType::float16, DType::bfloat16, DType::float32, DType::float64};

struct Alias {
  std::string_view text;
  DType type;
};

constexpr std::array kAliases = {
    Alias{"int8", DType::int8},     Alias{"char", DType::int8},       Alias{"uint8", DType::uint8},
    Alias{"int32", DType::int32},   Alias{"int", DType::int32},       Alias{"uint32", DType::uint32},
    Alias{"int64", DType::int64},   Alias{"uint64", DType::uint64},   Alias{"float16", DType::float16},
    Alias{"half", DType::float16},  Alias{"fp16", DType::float16},    Alias{"bfloat16", DType::bfloat16},
    Alias{"bf16", DType::bfloat16}, Alias{"float32", DType::float32}, Alias{"float", DType::float32},
    Alias{"fp32", DType::float32},  Alias{"float64", DType::float64}, Alias{"double", DType::float64},
    Alias{"fp64", DType::float64},
};

}  // namespace

std::span<const DType> all_dtypes() { return kAllDTypes; }

std::string_view name(DType t) {
  switch (t) {
    case DType::int8: return "int8";
    case DType::uint8: return "uint8";
    case DType::int32: return "int32";
    case DType::uint32: return "uint32";
    case DType::int64: return "int64";
    case DType::uint64: return "uint64";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
  }
  return "?";
}

std::string_view nccl_tests_name(DType t) {
  switch (t) {
    case DType::float16: return "half";
    case DType::float32: return "float";
    case DType::float64: return "double";
    default: return name(t);
  }
}

std::optional<DType> parse_dtype(std::string_view text) {
  for (const auto& alias : kAliases) {
    if (alias.text == text) return alias.type;
  }
  return std::nullopt;
}

std::size_t size_of(DType t) {
  switch (t) {
    case DType::int8:
    case DType::uint8: return 1;
    case DType::float16:
    case DType::bfloat16: return 2;
    case DType::int32:
    case DType::uint32:
    case DType::float32: return 4;
    case DType::int64:
    case DType::uint64:
    case DType::float64: return 8;
  }
  return 0;
}

bool is_integer(DType t) {
  return t == DType::int8 || t == DType::uint8 || t == DType::int32 || t == DType::uint32 || t == DType::int64 ||
         t == DType::uint64;
}

bool is_signed(DType t) { return !(t == DType::uint8 || t == DType::uint32 || t == DType::uint64); }

double exact_integer_limit(DType t) {
  switch (t) {
    case DType::float16: return 2048.0;              // 11-bit significand
    case DType::bfloat16: return 256.0;              // 8-bit significand
    case DType::float32: return 16777216.0;          // 2^24
    case DType::float64: return 9007199254740992.0;  // 2^53
    default: return 9007199254740992.0;              // integers: checked modulo 2^bits, no limit from rounding
  }
}

}  // namespace distbench
