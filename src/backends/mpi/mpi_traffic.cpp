#include "backends/mpi/mpi_traffic.hpp"

#include "core/error.hpp"

#include <mpi.h>

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>
#include <vector>

namespace distbench::mpi {
namespace {

constexpr const char* kVariable = "pml_monitoring_messages_size";

class PmlTrafficCounter final : public TrafficCounter {
 public:
  PmlTrafficCounter(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int peers, int me)
      : session_(session), handle_(handle), per_peer_(static_cast<std::size_t>(peers)), me_(me) {}
  ~PmlTrafficCounter() override {
    MPI_T_pvar_handle_free(session_, &handle_);
    MPI_T_pvar_session_free(&session_);
    MPI_T_finalize();
  }
  PmlTrafficCounter(const PmlTrafficCounter&) = delete;
  PmlTrafficCounter& operator=(const PmlTrafficCounter&) = delete;

  std::uint64_t sent_bytes() override {
    if (MPI_T_pvar_read(session_, handle_, per_peer_.data()) != MPI_SUCCESS) {
      throw failure(fmt::format("MPI_T_pvar_read of {} failed", kVariable));
    }
    std::uint64_t sent = 0;
    for (std::size_t p = 0; p < per_peer_.size(); ++p) {
      if (static_cast<int>(p) != me_) sent += per_peer_[p];
    }
    return sent;
  }

 private:
  MPI_T_pvar_session session_;
  MPI_T_pvar_handle handle_;
  std::vector<std::uint64_t> per_peer_;
  int me_;
};

// Why the variable at `index` cannot be read as bytes per peer of MPI_COMM_WORLD, if it cannot.
std::string unusable(int index) {
  char name[256];
  char desc[1024];
  int name_len = sizeof name, desc_len = sizeof desc;
  int verbosity = 0, var_class = 0, bind = 0, readonly = 0, continuous = 0, atomic = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  if (MPI_T_pvar_get_info(index, name, &name_len, &verbosity, &var_class, &type, &enumtype, desc, &desc_len, &bind,
                          &readonly, &continuous, &atomic) != MPI_SUCCESS) {
    return fmt::format("MPI_T_pvar_get_info of {} failed", kVariable);
  }
  int type_size = 0;
  MPI_Type_size(type, &type_size);
  if (bind != MPI_T_BIND_MPI_COMM || type_size != static_cast<int>(sizeof(std::uint64_t))) {
    return fmt::format("{} is not a count of 8-byte values per rank of a communicator here", kVariable);
  }
  return {};
}

}  // namespace

void enable_pml_monitoring() { setenv("OMPI_MCA_pml_monitoring_enable", "1", 1); }

TrafficCounting open_pml_traffic_counter() {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    return {nullptr, "MPI_T_init_thread failed: this MPI has no tools interface"};
  }
  const auto give_up = [](std::string why) {
    MPI_T_finalize();
    return TrafficCounting{nullptr, std::move(why)};
  };
  int index = -1;
  if (MPI_T_pvar_get_index(kVariable, MPI_T_PVAR_CLASS_SIZE, &index) != MPI_SUCCESS) {
    const char* enabled = std::getenv("OMPI_MCA_pml_monitoring_enable");
    if (enabled == nullptr || std::string_view(enabled) == "0") {
      return give_up(fmt::format("this MPI has no performance variable {}: Open MPI's pml monitoring is off or "
                                 "absent (ompi_info | grep monitoring)",
                                 kVariable));
    }
    // Open MPI 4.1 (4.1.4 tried) counts, but withdraws the variable: MPI_Init closes the monitoring component once
    // the PML is chosen (it stays loaded and keeps counting), and closing it drops its MPI_T variables.
    return give_up(fmt::format("Open MPI's pml monitoring counts, but this Open MPI withdrew its MPI_T variable {} "
                               "during MPI_Init (4.1 does: it closes the component once the PML is chosen); its totals "
                               "reach only MPI_Finalize's output (--mca pml_monitoring_enable_output 1)",
                               kVariable));
  }
  if (std::string why = unusable(index); !why.empty()) return give_up(std::move(why));
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  if (MPI_T_pvar_session_create(&session) != MPI_SUCCESS) return give_up("MPI_T_pvar_session_create failed");
  // Open MPI binds a communicator's variable to the communicator itself (its own monitoring tests pass
  // MPI_COMM_WORLD, not its address); a count other than the world's size says the binding went wrong.
  MPI_T_pvar_handle handle = MPI_T_PVAR_HANDLE_NULL;
  int count = 0;
  int world = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (MPI_T_pvar_handle_alloc(session, index, static_cast<void*>(MPI_COMM_WORLD), &handle, &count) != MPI_SUCCESS ||
      count != world) {
    if (handle != MPI_T_PVAR_HANDLE_NULL) MPI_T_pvar_handle_free(session, &handle);
    MPI_T_pvar_session_free(&session);
    return give_up(fmt::format("{} could not be bound to MPI_COMM_WORLD ({} values for {} ranks)", kVariable, count,
                               world));
  }
  const int started = MPI_T_pvar_start(session, handle);  // a continuous variable needs no start
  if (started != MPI_SUCCESS && started != MPI_T_ERR_PVAR_NO_STARTSTOP) {
    MPI_T_pvar_handle_free(session, &handle);
    MPI_T_pvar_session_free(&session);
    return give_up(fmt::format("MPI_T_pvar_start of {} failed", kVariable));
  }
  return {std::make_unique<PmlTrafficCounter>(session, handle, count, me), {}};
}

}  // namespace distbench::mpi
