#include "benchmarks/collective/fused_allreduce.hpp"

#include <vector>

namespace distbench::collective {
namespace {

void unpack_into(Device& device, Buffer& fusion, const std::vector<TensorRef>& tensors, DType dtype) {
  std::size_t offset = 0;
  for (const auto& t : tensors) {
    device.copy(t.data, BufferRef{&fusion, offset}, t.count * size_of(dtype));
    offset += t.count * size_of(dtype);
  }
  device.synchronize();
}

class FusedWork final : public Work {
 public:
  FusedWork(std::unique_ptr<Work> inner, Device& device, Buffer& fusion, std::vector<TensorRef> tensors, DType dtype)
      : inner_(std::move(inner)), device_(device), fusion_(fusion), tensors_(std::move(tensors)), dtype_(dtype) {}

  bool done() override {
    if (!unpacked_ && inner_->done()) finish();
    return unpacked_;
  }
  void wait(Seconds timeout) override {
    inner_->wait(timeout);
    if (!unpacked_) finish();
  }

 private:
  void finish() {
    unpack_into(device_, fusion_, tensors_, dtype_);
    unpacked_ = true;
  }

  std::unique_ptr<Work> inner_;
  Device& device_;
  Buffer& fusion_;
  std::vector<TensorRef> tensors_;
  DType dtype_;
  bool unpacked_ = false;
};

}  // namespace

CollectiveCall FusedAllreduce::pack(std::span<const TensorRef> tensors, DType dtype, ReduceOp op) {
  std::size_t total = 0;
  for (const auto& t : tensors) total += t.count;
  const std::size_t bytes = total * size_of(dtype);
  if (!fusion_ || fusion_->bytes() < bytes) fusion_ = device_.allocate(bytes);
  std::size_t offset = 0;
  for (const auto& t : tensors) {
    device_.copy(BufferRef{fusion_.get(), offset}, t.data, t.count * size_of(dtype));
    offset += t.count * size_of(dtype);
  }
  device_.synchronize();
  CollectiveCall call;
  call.collective = Collective::allreduce;
  call.send = call.recv = BufferRef{fusion_.get(), 0};
  call.count = total;
  call.dtype = dtype;
  call.op = op;
  return call;
}

void FusedAllreduce::unpack(std::span<const TensorRef> tensors, DType dtype) {
  unpack_into(device_, *fusion_, {tensors.begin(), tensors.end()}, dtype);
}

void FusedAllreduce::run(std::span<const TensorRef> tensors, DType dtype, ReduceOp op, Seconds timeout,
                         const ArmedStep& step) {
  comm_.run(pack(tensors, dtype, op), step);
  comm_.synchronize(timeout);
  unpack(tensors, dtype);
}

std::unique_ptr<Work> FusedAllreduce::start(std::span<const TensorRef> tensors, DType dtype, ReduceOp op) {
  auto inner = comm_.start(pack(tensors, dtype, op));
  return std::make_unique<FusedWork>(std::move(inner), device_, *fusion_,
                                     std::vector<TensorRef>(tensors.begin(), tensors.end()), dtype);
}

}  // namespace distbench::collective
