// The reduction operators are the device's elementwise arithmetic: core/device/reduce_op.hpp. This header stays for
// the includes outside this change (backends, the collective benchmark, cli/list_cmd); it goes once they include
// core/device/reduce_op.hpp.
#pragma once

#include "core/device/reduce_op.hpp"
