// Bandwidth figures of the model, as pure functions (test_limits.cpp checks each against the definition).
// busbw is nccl-tests' bus bandwidth: busbw = bus_factor(p) * S / T (core/device/collective.hpp). GB/s are 1e9 bytes/s.
#pragma once

#include "model/cost_formulas.hpp"

namespace distbench::model {

// busbw in GB/s of a case of `bytes` taking `seconds` at p ranks: bus_factor(p) * S / T / 1e9.
double busbw_gbps(Collective c, int p, double bytes, double seconds);

// The bus bandwidth the fitted model approaches for large S, where alpha no longer counts:
//   lim S->inf bus_factor(p) * S / (b S beta + c S gamma) = bus_factor(p) / (b beta + c gamma), in GB/s.
// NaN when b beta + c gamma is 0.
double model_bound_gbps(Collective c, int p, const CostTerms& t, double beta, double gamma);

// The bus bandwidth an algorithm can reach over links of `link_gbps` (GB/s per rank and direction), with alpha and
// gamma free: each rank moves b * S bytes over its link, so T >= b S / L and busbw <= bus_factor(p) / b * L. For the
// ring algorithms b = bus_factor(p): the bound is the link rate itself.
double link_bound_gbps(Collective c, int p, const CostTerms& t, double link_gbps);

// Hockney's half-performance length generalised to an algorithm: the size at which the start-up term equals the
// transfer and reduction terms, S_1/2 = a alpha / (b beta + c gamma), in bytes; below it alpha dominates.
double half_performance_bytes(const CostTerms& t, double alpha, double beta, double gamma);

}  // namespace distbench::model
