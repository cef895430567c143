#include "backends/mpi/mpi_backend.hpp"

#include "backends/mpi/mpi_collectives.hpp"
#include "backends/mpi/mpi_communicator.hpp"
#include "backends/mpi/mpi_connector.hpp"
#include "backends/mpi/mpi_thread_level.hpp"
#include "core/device/host_device.hpp"
#include "core/error.hpp"

#include <climits>
#include <cstdint>

namespace distbench::mpi {
namespace {

class MPIBackend final : public Backend {
 public:
  MPIBackend(Connector& connector, HugePages huge_pages)
      : connector_(dynamic_cast<MPIConnector*>(&connector)), huge_pages_(huge_pages), device_(huge_pages) {
    if (connector_ == nullptr) throw failure("the MPI backend needs the MPI connector");
  }

  std::string_view name() const override { return "mpi"; }
  Device& device() override { return device_; }

  std::unique_ptr<Communicator> create_communicator(const Partition& partition, const ArmedStep&) override {
    const int color = partition.group_of(connector_->rank());
    MPI_Comm comm = MPI_COMM_NULL;
    check(MPI_Comm_split(connector_->comm(), color, connector_->rank(), &comm), "MPI_Comm_split");
    return std::make_unique<MPICommunicator>(comm, types_);
  }

  KeyValues describe() const override {
    return {{"mpi.library", MPIConnector::library_version()},
            {"device", device_.describe()},
            {"memory.huge_pages", std::string(huge_pages_name(huge_pages_))},
            {"memory.thp_mode", thp_mode()}};
  }

  std::optional<std::size_t> max_count_per_call() const override { return static_cast<std::size_t>(INT_MAX); }

  // Open MPI 4.1's temporary buffers (backends/mpi/mpi_collectives.cpp).
  std::uint64_t library_scratch_bytes(Collective c, bool in_place, std::uint64_t s, int) const override {
    return mpi_collective(c).library_scratch(s, in_place);
  }

 private:
  MPIConnector* connector_;
  HugePages huge_pages_;
  HostDevice device_;
  TypeMap types_;
};

KeyValues build_versions() {
  int major = 0;
  int minor = 0;
  MPI_Get_version(&major, &minor);
  return {{"mpi.standard", fmt::format("{}.{}", major, minor)}, {"mpi.library", MPIConnector::library_version()}};
}

}  // namespace

BackendEntry mpi_backend_entry() {
  return {"mpi",
          "MPI collectives on host memory (OpenMPI)",
          [] { return std::optional<std::string>(); },
          [](Connector& connector, const BackendOptions& options) -> std::unique_ptr<Backend> {
            return std::make_unique<MPIBackend>(connector, options.huge_pages);
          },
          build_versions,
          {"mpi"},
          /*bitwise_reductions=*/true};
}

std::unique_ptr<Connector> make_mpi_connector(int& argc, char**& argv, std::string_view thread_level) {
  return std::make_unique<MPIConnector>(argc, argv, thread_level_of(thread_level));
}

}  // namespace distbench::mpi
