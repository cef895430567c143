// distbench-bare-loop: the reference loop that distbench's timed path is compared with (bench/compare_bare.py).
//
// It calls MPI directly, with nothing of distbench (only <mpi.h> and the standard library), and times the nine
// collectives the way distbench's MPI backend does (src/core/comm/sampler.cpp, src/benchmarks/collective/):
//   - one send and one receive buffer from malloc, allocated once for the largest case (with glibc's defaults a
//     large block sits 16 bytes into a map of its own, exactly where distbench's HostBuffer puts its buffers; with
//     --huge-pages on, from 2 MiB, 16 bytes past a 2 MiB boundary and advised, as distbench's);
//   - per case: fill the send region, w warm-up calls, a barrier, then n samples, each the steady_clock time
//     around k back-to-back calls divided by k;
//   - at the end of the case every rank's samples go to rank 0, which averages each sample over the ranks
//     (distbench's default -a avg) and prints the median and mean of those per-sample figures.
// It does NOT calibrate: k and n come from the command line (read by the driver from distbench's JSON report of
// the same case), so both tools time the same number of calls per sample.
//
//   mpirun -np 2 distbench-bare-loop allreduce --placement out-of-place --case 262144:53:20 --case 2:1492:20
//   mpirun -np 2 distbench-bare-loop allgather --cases cases.txt      # lines "count k n", '#' comments
//
// Sizes follow nccl-tests (and distbench): count is the element count passed to MPI (float32, sum); the reported
// S ("bytes") is count*4 for allreduce, broadcast, reduce, sendrecv and count*nranks*4 for reduce-scatter,
// allgather, alltoall, gather, scatter. Rank 0 prints one JSON object per case and line:
//   {"tool": "bare-loop", "collective", "placement", "root", "bytes", "count", "nranks", "ops_per_sample",
//    "samples", "warmup", "thread_level" (the level MPI provided), "median_us", "mean_us", "min_us", "max_us",
//    "samples_us": [...]}
// Times are microseconds per call; samples_us holds the per-sample averages over ranks, in the order taken.
// The JSON is written with printf: every field is a number or one of the fixed names above.
#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

enum class Coll { allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall, gather, scatter, sendrecv };

constexpr std::string_view kNames[] = {"allreduce", "reduce-scatter", "allgather", "broadcast", "reduce",
                                       "alltoall",  "gather",         "scatter",   "sendrecv"};

std::string_view name(Coll c) { return kNames[static_cast<int>(c)]; }

std::optional<Coll> parse_coll(std::string_view s) {
  for (int i = 0; i < 9; ++i) {
    if (kNames[i] == s) return static_cast<Coll>(i);
  }
  return std::nullopt;
}

bool partitioned(Coll c) {
  return c == Coll::reduce_scatter || c == Coll::allgather || c == Coll::alltoall || c == Coll::gather ||
         c == Coll::scatter;
}

struct Case {
  long long count = 0;  // elements passed to MPI
  int k = 1;            // calls per sample
  int n = 1;            // samples
};

struct Options {
  Coll coll = Coll::allreduce;
  bool in_place = false;
  int warmup = 5;  // distbench's -w default
  int root = 0;
  int thread_level = MPI_THREAD_SINGLE;  // distbench's default level (--mpi-thread); --thread to study the others
  bool huge_pages = false;  // --huge-pages on: buffers from 2 MiB placed and advised as distbench's --huge-pages on
  std::vector<Case> cases;
};

// Element counts of one rank's send and receive regions, and the in-place offsets into the single buffer
// (distbench's buffer_shape in src/core/device/collective.cpp, i.e. nccl-tests' layout).
struct Shape {
  std::size_t send, recv, in_place_send_offset, in_place_recv_offset;
};

Shape shape(Coll c, std::size_t count, std::size_t nranks, std::size_t rank) {
  switch (c) {
    case Coll::allreduce:
    case Coll::broadcast:
    case Coll::reduce:
    case Coll::sendrecv: return {count, count, 0, 0};
    case Coll::reduce_scatter: return {count * nranks, count, 0, rank * count};
    case Coll::allgather: return {count, count * nranks, rank * count, 0};
    case Coll::alltoall: return {count * nranks, count * nranks, 0, 0};
    case Coll::gather: return {count, count * nranks, rank * count, 0};
    case Coll::scatter: return {count * nranks, count, 0, rank * count};
  }
  return {count, count, 0, 0};
}

[[noreturn]] void usage(const std::string& why) {
  const bool help = why.empty();  // --help: the usage on stdout, exit 0
  if (!help) std::fprintf(stderr, "distbench-bare-loop: %s\n", why.c_str());
  std::fprintf(help ? stdout : stderr,
               "usage: distbench-bare-loop COLLECTIVE [--placement out-of-place|in-place] [-w WARMUP] [-r ROOT]\n"
               "                           [--thread single|funneled|serialized|multiple] [--huge-pages off|on]\n"
               "                           (--case COUNT:K:N ... | --cases FILE)\n"
               "  COLLECTIVE: allreduce reduce-scatter allgather broadcast reduce alltoall gather scatter sendrecv\n"
               "  COUNT: elements per call (float32); K: calls per sample; N: samples; FILE: lines 'COUNT K N'\n");
  std::exit(help ? 0 : 2);
}

long long parse_int(const std::string& text, const char* what, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) {
    usage(std::string(what) + " '" + text + "' is not an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return v;
}

Case make_case(const std::string& count, const std::string& k, const std::string& n) {
  return {parse_int(count, "COUNT", 1, INT_MAX), static_cast<int>(parse_int(k, "K", 1, INT_MAX)),
          static_cast<int>(parse_int(n, "N", 1, 100000000))};
}

void read_cases(const std::string& path, std::vector<Case>& out) {
  std::ifstream in(path);
  if (!in) usage("cannot read " + path);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string count, k, n, extra;
    if (!(fields >> count)) continue;  // blank or comment
    if (!(fields >> k >> n) || (fields >> extra)) usage(path + ": expected 'COUNT K N', got '" + line + "'");
    out.push_back(make_case(count, k, n));
  }
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("no collective given");
  if (std::string_view(argv[1]) == "-h" || std::string_view(argv[1]) == "--help") usage("");
  const auto coll = parse_coll(argv[1]);
  if (!coll) usage(std::string("unknown collective '") + argv[1] + "'");
  o.coll = *coll;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--placement") {
      const std::string p = value();
      if (p != "out-of-place" && p != "in-place") usage("--placement takes out-of-place or in-place");
      o.in_place = p == "in-place";
    } else if (arg == "-w" || arg == "--warmup-iters") {
      o.warmup = static_cast<int>(parse_int(value(), "-w", 0, INT_MAX));
    } else if (arg == "-r" || arg == "--root") {
      o.root = static_cast<int>(parse_int(value(), "-r", 0, INT_MAX));
    } else if (arg == "--thread") {
      const std::string t = value();
      if (t == "single") {
        o.thread_level = MPI_THREAD_SINGLE;
      } else if (t == "funneled") {
        o.thread_level = MPI_THREAD_FUNNELED;
      } else if (t == "serialized") {
        o.thread_level = MPI_THREAD_SERIALIZED;
      } else if (t == "multiple") {
        o.thread_level = MPI_THREAD_MULTIPLE;
      } else {
        usage("--thread takes single, funneled, serialized or multiple");
      }
    } else if (arg == "--huge-pages") {
      const std::string h = value();
      if (h != "off" && h != "on") usage("--huge-pages takes off or on");
      o.huge_pages = h == "on";
    } else if (arg == "--case") {
      const std::string spec = value();
      const auto a = spec.find(':');
      const auto b = a == std::string::npos ? a : spec.find(':', a + 1);
      if (b == std::string::npos) usage("--case takes COUNT:K:N, got '" + spec + "'");
      o.cases.push_back(make_case(spec.substr(0, a), spec.substr(a + 1, b - a - 1), spec.substr(b + 1)));
    } else if (arg == "--cases") {
      read_cases(value(), o.cases);
    } else if (arg == "-h" || arg == "--help") {
      usage("");
    } else {
      usage("unknown option '" + arg + "'");
    }
  }
  if (o.cases.empty()) usage("no cases: give --case COUNT:K:N or --cases FILE");
  return o;
}

// Time n samples of k back-to-back calls; seconds per call of each sample. `call` is a lambda, inlined here, so
// nothing but the MPI call and the loop counter sits between the two clock reads.
template <class Call>
void time_samples(Call&& call, int k, std::vector<double>& samples) {
  for (double& sample : samples) {
    const auto start = std::chrono::steady_clock::now();
    for (int j = 0; j < k; ++j) call();
    const auto stop = std::chrono::steady_clock::now();
    sample = std::chrono::duration<double>(stop - start).count() / k;
  }
}

template <class Call>
void warm_and_time(Call&& call, int warmup, MPI_Comm comm, int k, std::vector<double>& samples) {
  for (int i = 0; i < warmup; ++i) call();
  MPI_Barrier(comm);
  time_samples(call, k, samples);
}

struct Buffers {
  char* send;  // out-of-place send buffer (1 byte in-place, as distbench allocates an empty one)
  char* recv;  // out-of-place receive buffer, or the one in-place buffer
};

// Runs one case's warm-up and samples with the MPI call distbench's MPI backend makes (prepare() and
// call_blocking() in src/backends/mpi/mpi_communicator.cpp): no copy for broadcast, no move after an in-place
// reduce-scatter.
void run_case(const Options& o, const Case& c, const Buffers& b, MPI_Comm comm, int rank, int nranks,
              std::vector<double>& samples) {
  const int count = static_cast<int>(c.count);
  const bool root = rank == o.root;
  const MPI_Datatype f = MPI_FLOAT;
  const Shape s = shape(o.coll, static_cast<std::size_t>(c.count), static_cast<std::size_t>(nranks),
                        static_cast<std::size_t>(rank));
  char* send = o.in_place ? b.recv + s.in_place_send_offset * sizeof(float) : b.send;
  char* recv = o.in_place ? b.recv + s.in_place_recv_offset * sizeof(float) : b.recv;

  // The send region holds small integers, as distbench's fill leaves it (never denormals or NaN).
  auto* in = reinterpret_cast<float*>(send);
  for (std::size_t i = 0; i < s.send; ++i) {
    in[i] = static_cast<float>(static_cast<long long>((static_cast<std::size_t>(rank) * 31 + i * 7) % 61) - 30);
  }

  const int w = o.warmup;
  const int k = c.k;
  if (!o.in_place) {
    switch (o.coll) {
      case Coll::allreduce:
        return warm_and_time([&] { MPI_Allreduce(send, recv, count, f, MPI_SUM, comm); }, w, comm, k, samples);
      case Coll::reduce_scatter:
        return warm_and_time([&] { MPI_Reduce_scatter_block(send, recv, count, f, MPI_SUM, comm); }, w, comm, k,
                             samples);
      case Coll::allgather:
        return warm_and_time([&] { MPI_Allgather(send, count, f, recv, count, f, comm); }, w, comm, k, samples);
      case Coll::broadcast: {
        char* from = root ? send : recv;  // the root broadcasts straight from its send buffer
        return warm_and_time([&] { MPI_Bcast(from, count, f, o.root, comm); }, w, comm, k, samples);
      }
      case Coll::reduce:
        return warm_and_time([&] { MPI_Reduce(send, recv, count, f, MPI_SUM, o.root, comm); }, w, comm, k, samples);
      case Coll::alltoall:
        return warm_and_time([&] { MPI_Alltoall(send, count, f, recv, count, f, comm); }, w, comm, k, samples);
      case Coll::gather:
        return warm_and_time([&] { MPI_Gather(send, count, f, recv, count, f, o.root, comm); }, w, comm, k, samples);
      case Coll::scatter:
        return warm_and_time([&] { MPI_Scatter(send, count, f, recv, count, f, o.root, comm); }, w, comm, k, samples);
      case Coll::sendrecv: {
        const int next = (rank + 1) % nranks;
        const int prev = (rank + nranks - 1) % nranks;
        return warm_and_time(
            [&] { MPI_Sendrecv(send, count, f, next, 0, recv, count, f, prev, 0, comm, MPI_STATUS_IGNORE); }, w, comm,
            k, samples);
      }
    }
    return;
  }
  // In place: one buffer; `send` and `recv` point where nccl-tests' in-place layout puts them.
  switch (o.coll) {
    case Coll::allreduce:
      return warm_and_time([&] { MPI_Allreduce(MPI_IN_PLACE, recv, count, f, MPI_SUM, comm); }, w, comm, k, samples);
    case Coll::reduce_scatter:  // the block lands at the buffer's start (distbench then moves it: not timed here)
      return warm_and_time([&] { MPI_Reduce_scatter_block(MPI_IN_PLACE, send, count, f, MPI_SUM, comm); }, w, comm, k,
                           samples);
    case Coll::allgather:
      return warm_and_time([&] { MPI_Allgather(MPI_IN_PLACE, count, f, recv, count, f, comm); }, w, comm, k, samples);
    case Coll::broadcast: return warm_and_time([&] { MPI_Bcast(recv, count, f, o.root, comm); }, w, comm, k, samples);
    case Coll::reduce: {
      void* from = root ? MPI_IN_PLACE : static_cast<void*>(send);
      return warm_and_time([&] { MPI_Reduce(from, recv, count, f, MPI_SUM, o.root, comm); }, w, comm, k, samples);
    }
    case Coll::alltoall:
      return warm_and_time([&] { MPI_Alltoall(MPI_IN_PLACE, count, f, recv, count, f, comm); }, w, comm, k, samples);
    case Coll::gather: {  // non-roots send their block from buf + rank*count
      void* from = root ? MPI_IN_PLACE : static_cast<void*>(send);
      return warm_and_time([&] { MPI_Gather(from, count, f, recv, count, f, o.root, comm); }, w, comm, k, samples);
    }
    case Coll::scatter: {  // non-roots receive their block at buf + rank*count
      void* to = root ? MPI_IN_PLACE : static_cast<void*>(recv);
      return warm_and_time([&] { MPI_Scatter(send, count, f, to, count, f, o.root, comm); }, w, comm, k, samples);
    }
    case Coll::sendrecv: {
      const int next = (rank + 1) % nranks;
      const int prev = (rank + nranks - 1) % nranks;
      return warm_and_time([&] { MPI_Sendrecv_replace(recv, count, f, next, 0, prev, 0, comm, MPI_STATUS_IGNORE); }, w,
                           comm, k, samples);
    }
  }
}

double median_of(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const std::size_t m = xs.size() / 2;
  return xs.size() % 2 ? xs[m] : 0.5 * (xs[m - 1] + xs[m]);
}

void print_case(const Options& o, const Case& c, int nranks, int provided, const std::vector<double>& all) {
  // all: nranks rows of c.n samples (seconds). Per sample, the average over ranks.
  std::vector<double> per_sample(static_cast<std::size_t>(c.n), 0.0);
  for (int r = 0; r < nranks; ++r) {
    for (int i = 0; i < c.n; ++i) {
      per_sample[static_cast<std::size_t>(i)] += all[static_cast<std::size_t>(r) * c.n + i];
    }
  }
  double sum = 0;
  for (double& x : per_sample) {
    x = x / nranks * 1e6;
    sum += x;
  }
  const double mean = sum / c.n;
  const auto [lo, hi] = std::minmax_element(per_sample.begin(), per_sample.end());
  const long long bytes = c.count * (partitioned(o.coll) ? nranks : 1) * static_cast<long long>(sizeof(float));
  std::printf(
      "{\"tool\": \"bare-loop\", \"collective\": \"%s\", \"placement\": \"%s\", \"root\": %d, "
      "\"bytes\": %lld, \"count\": %lld, \"nranks\": %d, \"ops_per_sample\": %d, \"samples\": %d, "
      "\"warmup\": %d, \"thread_level\": %d, \"median_us\": %.17g, \"mean_us\": %.17g, "
      "\"min_us\": %.17g, \"max_us\": %.17g, "
      "\"samples_us\": [",
      std::string(name(o.coll)).c_str(), o.in_place ? "in-place" : "out-of-place", o.root, bytes, c.count, nranks, c.k,
      c.n, o.warmup, provided, median_of(per_sample), mean, *lo, *hi);
  for (std::size_t i = 0; i < per_sample.size(); ++i) std::printf("%s%.17g", i ? ", " : "", per_sample[i]);
  std::printf("]}\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);  // every rank parses the same arguments; bad ones exit 2 before MPI starts

  int provided = 0;
  MPI_Init_thread(&argc, &argv, o.thread_level, &provided);
  // The data path's communicator is a split of MPI_COMM_WORLD, as distbench's (a dup, then a split per group).
  MPI_Comm comm = MPI_COMM_NULL;
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_split(MPI_COMM_WORLD, 0, world_rank, &comm);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  if (o.root >= nranks) {
    if (rank == 0) std::fprintf(stderr, "distbench-bare-loop: -r %d is outside 0..%d\n", o.root, nranks - 1);
    MPI_Finalize();
    return 2;
  }
  const auto n = static_cast<std::size_t>(nranks);
  for (const Case& c : o.cases) {
    if (static_cast<unsigned long long>(c.count) * n > static_cast<unsigned long long>(INT_MAX)) {
      if (rank == 0) std::fprintf(stderr, "distbench-bare-loop: count %lld x %d ranks is too large\n", c.count, nranks);
      MPI_Finalize();
      return 2;
    }
  }

  // Buffers once, for the largest case, from malloc (placed as distbench's HostBuffer places them): send, then
  // receive.
  std::size_t send_bytes = 0, recv_bytes = 0;
  for (const Case& c : o.cases) {
    const Shape s = shape(o.coll, static_cast<std::size_t>(c.count), n, 0);
    if (!o.in_place) send_bytes = std::max(send_bytes, s.send * sizeof(float));
    recv_bytes = std::max(recv_bytes, (o.in_place ? std::max(s.send, s.recv) : s.recv) * sizeof(float));
  }
  // With --huge-pages on, a buffer of 2 MiB or more is placed as distbench's --huge-pages on places it: 16 bytes past
  // a 2 MiB boundary (posix_memalign's block, whose header lies before that boundary), advised MADV_HUGEPAGE before
  // any of its pages is touched (run_case fills it), so every whole 2 MiB of it can be a huge page.
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  constexpr std::size_t kOffset = 16;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto allocate = [&](std::size_t bytes) -> std::pair<void*, char*> {
    if (!o.huge_pages || bytes < kHuge) {
      void* p = std::malloc(bytes == 0 ? 1 : bytes);
      return {p, static_cast<char*>(p)};
    }
    void* p = nullptr;
    if (posix_memalign(&p, kHuge, bytes + kOffset) != 0) return {nullptr, nullptr};
    madvise(p, (bytes + kOffset + page - 1) / page * page, MADV_HUGEPAGE);
    return {p, static_cast<char*>(p) + kOffset};
  };
  const auto [send_block, send_data] = allocate(send_bytes);
  const auto [recv_block, recv_data] = allocate(recv_bytes);
  Buffers b{send_data, recv_data};
  if (b.send == nullptr || b.recv == nullptr) {
    std::fprintf(stderr, "distbench-bare-loop: rank %d could not allocate %zu + %zu bytes\n", rank, send_bytes,
                 recv_bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  for (const Case& c : o.cases) {
    std::vector<double> samples(static_cast<std::size_t>(c.n), 0.0);
    run_case(o, c, b, comm, rank, nranks, samples);
    std::vector<double> all(rank == 0 ? n * static_cast<std::size_t>(c.n) : 0);
    MPI_Gather(samples.data(), c.n, MPI_DOUBLE, all.data(), c.n, MPI_DOUBLE, 0, comm);
    if (rank == 0) print_case(o, c, nranks, provided, all);
  }

  std::free(send_block);
  std::free(recv_block);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
