// The deadline helpers live in core (core/deadline.hpp); connectors include them from here as before.
#pragma once

#include "core/deadline.hpp"
