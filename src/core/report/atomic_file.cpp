#include "core/report/atomic_file.hpp"

#include "core/error.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace distbench {
namespace {

namespace fs = std::filesystem;

// The longest file name (one path component) Linux file systems take.
constexpr std::size_t kNameMax = 255;

// A name no other writer uses: same directory as the target, this process's id and a per-process counter,
// "F.tmp.PID.N". When F is so long that the name would pass kNameMax, F is cut (on a UTF-8 boundary) to fit, so
// that every name legal for the report has a legal temporary name.
std::string temp_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const std::string suffix = fmt::format(".tmp.{}.{}", ::getpid(), counter.fetch_add(1));
  const auto slash = path.rfind('/');
  const std::size_t base_start = slash == std::string::npos ? 0 : slash + 1;
  std::string base = path.substr(base_start);
  if (base.size() + suffix.size() > kNameMax) {
    std::size_t keep = kNameMax - suffix.size();
    while (keep > 0 && (static_cast<unsigned char>(base[keep]) & 0xC0u) == 0x80u) --keep;  // not inside a character
    base.resize(keep);
  }
  return path.substr(0, base_start) + base + suffix;
}

std::string directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Makes the rename itself durable; best effort (some file systems refuse fsync on directories).
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

[[noreturn]] void fail_write(const std::string& path, const char* step, int err) {
  throw failure(fmt::format("cannot write report '{}': {} failed: {}", path, step, std::strerror(err)));
}

[[noreturn]] void not_writable(const std::string& path, const std::string& reason,
                               std::string_view fix = "choose a path in an existing, writable directory") {
  throw usage_error(fmt::format("cannot write report '{}': {}; {}", path, reason, fix));
}

}  // namespace

int write_content(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

int write_file_atomically_locked(const std::string& path, std::string_view content, Durability durability,
                                 const std::function<void()>& before_rename) {
  return write_file_atomically_locked(
      path, [content](int fd) { return write_content(fd, content); }, durability, before_rename);
}

int write_file_atomically_locked(const std::string& path, const ContentWriter& write, Durability durability,
                                 const std::function<void()>& before_rename) {
  const std::string temp = temp_name(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail_write(path, "creating a temporary file", errno);
  auto discard = [&] {
    ::close(fd);
    ::unlink(temp.c_str());
  };

  int err = write(fd);
  const char* step = "writing";
  if (err == 0 && durability == Durability::disk && ::fsync(fd) != 0) {
    err = errno;
    step = "syncing";
  }
  // A new file nobody else has opened: the lock is free (and a file system without locks leaves it unlocked).
  if (err == 0) (void)::flock(fd, LOCK_EX | LOCK_NB);
  if (err == 0 && before_rename) {
    try {
      before_rename();
    } catch (...) {
      discard();
      throw;
    }
  }
  if (err == 0 && ::rename(temp.c_str(), path.c_str()) != 0) {
    err = errno;
    step = "renaming the temporary file";
  }
  if (err != 0) {
    discard();
    fail_write(path, step, err);
  }
  if (durability == Durability::disk) sync_directory(directory_of(path));
  return fd;
}

void write_file_atomically(const std::string& path, std::string_view content, Durability durability) {
  const int fd = write_file_atomically_locked(path, content, durability, nullptr);
  if (::close(fd) != 0) fail_write(path, "closing", errno);
}

void check_writable(const std::string& path) {
  if (path.empty()) not_writable(path, "the path is empty");

  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    not_writable(path, "it is a symbolic link, which writing would replace by a file",
                 "name the file it points to, or another path");
  }
  const fs::file_status target = fs::status(path, ec);
  if (fs::is_directory(target)) not_writable(path, "it is a directory, not a file");
  if (fs::exists(target) && !fs::is_regular_file(target)) not_writable(path, "it exists and is not a regular file");

  const std::string dir = directory_of(path);
  const fs::file_status dir_status = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    not_writable(path, fmt::format("cannot access directory '{}': {}", dir, ec.message()));
  }
  if (!fs::exists(dir_status)) not_writable(path, fmt::format("directory '{}' does not exist", dir));
  if (!fs::is_directory(dir_status)) not_writable(path, fmt::format("'{}' is not a directory", dir));

  // The temporary name is cut to fit, the report's own is not: a name the file system refuses would fail only at the
  // first rename, after the run.
  const std::size_t name_bytes = fs::path(path).filename().native().size();
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const std::size_t limit = name_max > 0 ? static_cast<std::size_t>(name_max) : kNameMax;
  if (name_bytes > limit) {
    not_writable(path, fmt::format("the file name is {} bytes and this file system takes at most {} (shorten it)",
                                   name_bytes, limit));
  }

  const std::string probe = temp_name(path);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    not_writable(path, fmt::format("cannot create a file in '{}': {}", dir, std::strerror(err)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;  // both exist: device and inode
  if (a == b) return true;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ec && ca == cb;
}

}  // namespace

void check_distinct_files(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    for (const NamedPath& in : inputs) {
      if (same_file(out.path, in.path)) {
        throw usage_error(fmt::format("{} {}: that is {} this run reads ({}); write to another path", out.option,
                                      excerpt(out.path), in.option, excerpt(in.path)));
      }
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (same_file(out.path, outputs[j].path)) {
        throw usage_error(
            fmt::format("{} and {} both name the file '{}': one would replace the other; give each its "
                        "own file",
                        outputs[j].option, out.option, excerpt(outputs[j].path)));
      }
    }
  }
}

}  // namespace distbench
