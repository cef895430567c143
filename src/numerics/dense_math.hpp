// DenseMath is a device's interface: core/device/dense_math.hpp. This header stays for the includes outside
// this change (backends/nccl); it goes once they include core/device/dense_math.hpp.
#pragma once

#include "core/device/dense_math.hpp"
