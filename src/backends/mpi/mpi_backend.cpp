#include "backends/mpi/mpi_backend.hpp"

#include "backends/mpi/mpi_communicator.hpp"
#include "backends/mpi/mpi_connector.hpp"
#include "core/error.hpp"
#include "core/host_device.hpp"

namespace distbench::mpi {
namespace {

class MPIBackend final : public Backend {
 public:
  explicit MPIBackend(Connector& connector) : connector_(dynamic_cast<MPIConnector*>(&connector)) {
    if (connector_ == nullptr) throw failure("the MPI backend needs the MPI connector");
  }

  std::string_view name() const override { return "mpi"; }
  Device& device() override { return device_; }

  std::unique_ptr<Communicator> create_communicator(const Partition& partition) override {
    const int color = partition.group_of(connector_->rank());
    MPI_Comm comm = MPI_COMM_NULL;
    check(MPI_Comm_split(connector_->comm(), color, connector_->rank(), &comm), "MPI_Comm_split");
    return std::make_unique<MPICommunicator>(comm, types_);
  }

  KeyValues describe() const override {
    return {{"mpi.library", MPIConnector::library_version()}, {"device", device_.describe()}};
  }

 private:
  MPIConnector* connector_;
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
  return {"mpi", "MPI collectives on host memory (OpenMPI)", [] { return std::optional<std::string>(); },
          [](Connector& connector, const BackendOptions&) -> std::unique_ptr<Backend> {
            return std::make_unique<MPIBackend>(connector);
          },
          build_versions,
          {"mpi"}};
}

std::unique_ptr<Connector> make_mpi_connector(int& argc, char**& argv) {
  return std::make_unique<MPIConnector>(argc, argv);
}

}  // namespace distbench::mpi
