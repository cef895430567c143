// The default cap of a bucket of gradients reduced in one call, in MiB: PyTorch DDP's bucket_cap_mb. The one
// definition: train's and zero's plans and the --bucket option's help read it.
#pragma once

namespace distbench {

inline constexpr double kDdpBucketMiB = 25;

}  // namespace distbench
