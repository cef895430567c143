// The deadline bounds a process's waits: core/sys/deadline.hpp. This header stays for the includes outside this change
// (backends, connectors, the collective and latency benchmarks, cli, compare); it goes once they include
// core/sys/deadline.hpp.
#pragma once

#include "core/sys/deadline.hpp"
