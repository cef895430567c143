#include "benchmarks/tp/tp_ops.hpp"

#include "core/device/half.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <cstring>

namespace distbench::tp {
namespace {

// The full-tensor index of element k of part g's block.
std::size_t global_index(const ShardLayout& l, int g, std::size_t k) {
  const std::size_t r = k / l.shard.cols, c = k % l.shard.cols;
  return l.block_offset(g) + r * l.full.cols + c;
}

}  // namespace

std::string_view name(Op op) {
  switch (op) {
    case Op::scatter: return "scatter";
    case Op::gather: return "gather";
    case Op::reduce: return "reduce";
    case Op::copy: return "copy";
  }
  return "?";
}

std::string_view name(Pass pass) { return pass == Pass::forward ? "forward" : "backward"; }

std::string_view name(Primitive p) {
  switch (p) {
    case Primitive::slice: return "slice";
    case Primitive::allgather: return "allgather";
    case Primitive::allreduce: return "allreduce";
    case Primitive::identity: return "identity";
  }
  return "?";
}

std::optional<Op> parse_op(std::string_view text) {
  for (Op op : {Op::scatter, Op::gather, Op::reduce, Op::copy}) {
    if (text == name(op)) return op;
  }
  return std::nullopt;
}

Primitive primitive(Op op, Pass pass) {
  const bool fwd = pass == Pass::forward;
  switch (op) {
    case Op::scatter: return fwd ? Primitive::slice : Primitive::allgather;
    case Op::gather: return fwd ? Primitive::allgather : Primitive::slice;
    case Op::reduce: return fwd ? Primitive::allreduce : Primitive::identity;
    case Op::copy: return fwd ? Primitive::identity : Primitive::allreduce;
  }
  return Primitive::identity;
}

bool along_dim(Primitive p) { return p == Primitive::slice || p == Primitive::allgather; }

std::optional<Collective> collective_of(Primitive p) {
  if (p == Primitive::allgather) return Collective::allgather;
  if (p == Primitive::allreduce) return Collective::allreduce;
  return std::nullopt;
}

float full_value(std::size_t i) { return static_cast<float>(static_cast<int>((i * 7 + 3) % 11) - 5); }
float summand(std::size_t i, int g) {
  return static_cast<float>(static_cast<int>((i * 5 + static_cast<std::size_t>(g) * 3) % 7) - 3);
}

OpRunner::OpRunner(Communicator& group, Device& device, DenseMath& math, const ShardLayout& layout, DType dtype)
    : group_(group), device_(device), math_(math), layout_(layout), dtype_(dtype), me_(group.rank()) {
  if (dtype != DType::float32 && dtype != DType::bfloat16 && dtype != DType::float16) {
    throw usage_error(fmt::format("--dtype {}: the tensor-parallel operations run on float32, bfloat16 or float16",
                                  distbench::name(dtype)));
  }
  full_ = device_.allocate(layout.full.elements() * element_bytes());
  shard_ = device_.allocate(layout.shard.elements() * element_bytes());
  if (layout.dim == 1 && layout.parts > 1) staging_ = device_.allocate(layout.full.elements() * element_bytes());
}

void OpRunner::upload(Buffer& to, const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * element_bytes());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype_ == DType::float32) {
      std::memcpy(bytes.data() + 4 * i, &values[i], 4);
    } else {
      const std::uint16_t h = dtype_ == DType::bfloat16 ? float_to_bfloat16(values[i]) : float_to_half(values[i]);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
  }
  math_.upload(to.data(), bytes.data(), bytes.size());
}

std::vector<float> OpRunner::download(Buffer& from, std::size_t count) {
  std::vector<std::byte> bytes(count * element_bytes());
  math_.download(bytes.data(), from.data(), bytes.size());
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (dtype_ == DType::float32) {
      std::memcpy(&out[i], bytes.data() + 4 * i, 4);
    } else {
      std::uint16_t h = 0;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      out[i] = dtype_ == DType::bfloat16 ? bfloat16_to_float(h) : half_to_float(h);
    }
  }
  return out;
}

void OpRunner::prepare(Primitive p) {
  const ShardLayout& l = layout_;
  switch (p) {
    case Primitive::slice:
    case Primitive::identity: {
      std::vector<float> v(l.full.elements());
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = full_value(i);
      upload(*full_, v);
      return;
    }
    case Primitive::allgather: {
      std::vector<float> v(l.shard.elements());
      for (std::size_t k = 0; k < v.size(); ++k) v[k] = full_value(global_index(l, me_, k));
      upload(*shard_, v);
      return;
    }
    case Primitive::allreduce: {
      std::vector<float> v(l.full.elements());
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = summand(i, me_);
      upload(*full_, v);
      return;
    }
  }
}

void OpRunner::run(Primitive p, Seconds timeout) {
  const ShardLayout& l = layout_;
  const std::size_t es = element_bytes();
  switch (p) {
    case Primitive::identity: return;
    case Primitive::slice:
      math_.copy_rows(shard_->data(), l.shard.cols * es,
                      static_cast<std::byte*>(full_->data()) + l.block_offset(me_) * es, l.full.cols * es,
                      l.shard.cols * es, l.shard.rows);
      math_.synchronize();
      return;
    case Primitive::allreduce: {
      const BufferRef at{full_.get(), 0};
      group_.start({Collective::allreduce, at, at, l.full.elements(), dtype_, ReduceOp::sum, 0})->wait(timeout);
      math_.synchronize();
      return;
    }
    case Primitive::allgather: {
      Buffer* into = staging_ ? staging_.get() : full_.get();
      group_.start({Collective::allgather, {shard_.get(), 0}, {into, 0}, l.shard.elements(), dtype_, ReduceOp::sum, 0})
          ->wait(timeout);
      if (staging_) {  // G blocks of R x C/G, one after another: each becomes its columns of the R x C tensor
        for (int g = 0; g < l.parts; ++g) {
          math_.copy_rows(static_cast<std::byte*>(full_->data()) + l.block_offset(g) * es, l.full.cols * es,
                          static_cast<std::byte*>(staging_->data()) + g * l.shard.elements() * es, l.shard.cols * es,
                          l.shard.cols * es, l.shard.rows);
        }
      }
      math_.synchronize();
      return;
    }
  }
}

std::uint64_t OpRunner::count_wrong(Primitive p) {
  const ShardLayout& l = layout_;
  std::uint64_t wrong = 0;
  switch (p) {
    case Primitive::slice: {
      const auto got = download(*shard_, l.shard.elements());
      for (std::size_t k = 0; k < got.size(); ++k) wrong += got[k] != full_value(global_index(l, me_, k));
      return wrong;
    }
    case Primitive::identity:
    case Primitive::allgather: {
      const auto got = download(*full_, l.full.elements());
      for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != full_value(i);
      return wrong;
    }
    case Primitive::allreduce: {
      const auto got = download(*full_, l.full.elements());
      for (std::size_t i = 0; i < got.size(); ++i) {
        float sum = 0;
        for (int g = 0; g < group_.size(); ++g) sum += summand(i, g);
        wrong += got[i] != sum;
      }
      return wrong;
    }
  }
  return wrong;
}

}  // namespace distbench::tp
