#include "core/report/report_lock.hpp"

#include "core/error.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace distbench {
namespace {

constexpr int kClaimTries = 5;  // the file replaced between our open and our lock: look again

bool same_file(const struct stat& a, dev_t dev, ino_t ino) { return a.st_dev == dev && a.st_ino == ino; }

}  // namespace

ReportLock::~ReportLock() {
  if (fd_ >= 0) ::close(fd_);
}

void ReportLock::claim() {
  claimed_ = true;
  for (int attempt = 0; attempt < kClaimTries; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return;  // nothing there yet (or nothing we may read): the first write creates it, locked
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) {
        throw usage_error(
            fmt::format("report '{}' is being written by another run that is still going (it holds the "
                        "file's lock); wait for that run to end, or give this one another path",
                        path_));
      }
      lockable_ = false;  // a file system without locks: nothing to hold
      return;
    }
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &now) == 0 && same_file(now, held.st_dev, held.st_ino)) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = fd;
      dev_ = held.st_dev;
      ino_ = held.st_ino;
      return;
    }
    ::close(fd);  // replaced (or removed) while we locked it
  }
  throw usage_error(
      fmt::format("report '{}' keeps being replaced by another process; stop that process, or give this "
                  "run another path",
                  path_));
}

void ReportLock::replace(std::string_view content, Durability durability) {
  replace([content](int fd) { return write_content(fd, content); }, durability);
}

void ReportLock::replace(const ContentWriter& write, Durability durability) {
  if (!claimed_) claim();
  auto still_ours = [this] {
    if (!lockable_) return;
    struct stat now {};
    if (::stat(path_.c_str(), &now) != 0) return;  // removed meanwhile: write it again
    if (fd_ >= 0 && same_file(now, dev_, ino_)) return;
    throw failure(
        fmt::format("report '{}' was replaced by another process while this run was writing it (another "
                    "run writing the same path?); this run leaves it as it is",
                    path_));
  };
  const int fd = write_file_atomically_locked(path_, write, durability, still_ours);
  struct stat written {};
  (void)::fstat(fd, &written);
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  dev_ = written.st_dev;
  ino_ = written.st_ino;
}

}  // namespace distbench
