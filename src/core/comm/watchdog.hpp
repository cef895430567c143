// The watchdog bounds a process's waits: core/sys/watchdog.hpp. This header stays for the includes outside this change
// (backends, connectors, the collective and latency benchmarks, cli, compare); it goes once they include
// core/sys/watchdog.hpp.
#pragma once

#include "core/sys/watchdog.hpp"
