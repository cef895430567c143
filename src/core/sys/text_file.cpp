#include "core/sys/text_file.hpp"

#include "core/error.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace distbench {
namespace {

// Closes the descriptor on every path out of read_text_file.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string size_text(std::size_t bytes) {
  if (bytes % (std::size_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes % (std::size_t{1} << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

}  // namespace

std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  const std::string shown = escape_text(path);
  const auto cannot = [&](int err) {
    return usage_error(
        fmt::format("cannot read {} '{}': {}; check the path and its permissions", what, shown, std::strerror(err)));
  };
  if (path.empty()) throw usage_error(fmt::format("the {} path is empty; give the path of a file", what));
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below, before any read.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) throw cannot(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw cannot(errno);
  if (!S_ISREG(st.st_mode))
    throw usage_error(fmt::format("{} '{}' is not a regular file ({}); give the path of a regular file", what, shown,
                                  kind_of(st.st_mode)));
  const auto too_large = [&] {
    return usage_error(
        fmt::format("{} '{}' is larger than {}, the most distbench reads as a {}; check that it is the right file",
                    what, shown, size_text(max_bytes), what));
  };
  if (st.st_size < 0 || static_cast<unsigned long long>(st.st_size) > max_bytes) throw too_large();

  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 14];
  while (true) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw cannot(errno);
    }
    if (got == 0) break;
    if (static_cast<std::size_t>(got) > max_bytes - text.size()) throw too_large();  // it grew while being read
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

void write_stdout(std::string_view text) {
  std::fflush(stdout);  // what was printed before goes first
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      throw failure(fmt::format("cannot write to standard output: {}; check where it goes (a full disk, a closed pipe)",
                                std::strerror(err)));
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace distbench
