// Fuzz target: hostfile text (MPICH `host:N`, OpenMPI `host slots=N max_slots=M`, bare names) through
// parse_hostfile, then what `distbench hostfile` does with a parsed file (the total and the summary).
#include "cli/hostfile.hpp"

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace distbench;
  fuzz::expecting_errors([&] {
    const Hostfile hostfile = parse_hostfile(fuzz::as_text(data, size), "fuzz.hosts");
    FUZZ_EXPECT(!hostfile.hosts.empty());
    FUZZ_EXPECT(hostfile.format == "openmpi" || hostfile.format == "mpich");
    for (const HostEntry& h : hostfile.hosts) {
      FUZZ_EXPECT(!h.host.empty());
      FUZZ_EXPECT(h.slots >= 1);
      FUZZ_EXPECT(!h.max_slots || *h.max_slots >= h.slots);
      FUZZ_EXPECT(h.line >= 1);
    }
    FUZZ_EXPECT(hostfile.total_slots() >= static_cast<int>(hostfile.hosts.size()));
    FUZZ_EXPECT(!format_hostfile_summary(hostfile).empty());
  });
  return 0;
}
