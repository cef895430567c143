#include "benchmarks/collective/case_geometry.hpp"

namespace distbench::collective {

CaseGeometry case_geometry(Collective collective, DType dtype, std::uint64_t asked, int nranks, int rank) {
  CaseGeometry g;
  g.asked = asked;
  g.elem = size_of(dtype);
  g.count = call_count(collective, asked / g.elem, nranks);
  g.shape = buffer_shape(collective, g.count, nranks, rank);
  g.message = message_elements(collective, g.count, nranks) * g.elem;
  return g;
}

}  // namespace distbench::collective
