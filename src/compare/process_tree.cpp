#include "compare/process_tree.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace distbench::compare {
namespace {

// The record getdents64(2) fills (glibc has no declaration of it under every configuration).
struct DirEntry64 {
  std::uint64_t inode;
  std::int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[1];
};

// A process id from a decimal name; -1 for anything else ("self", "sys", ...).
pid_t pid_of_name(const char* name) {
  if (*name == '\0') return -1;
  std::int64_t value = 0;
  for (const char* c = name; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9' || value > static_cast<std::int64_t>(kPidLimit)) return -1;
    value = value * 10 + (*c - '0');
  }
  return value > 0 && value < static_cast<std::int64_t>(kPidLimit) ? static_cast<pid_t>(value) : -1;
}

// The parent of process `pid` from /proc/PID/stat; -1 when it is gone.
pid_t read_parent(const char* pid_name) {
  char path[48] = "/proc/";
  const std::size_t len = std::strlen(pid_name);
  if (len > 20) return -1;
  std::memcpy(path + 6, pid_name, len);
  std::memcpy(path + 6 + len, "/stat", 6);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[512];  // the parent comes before byte 100: pid, a name of at most 64 bytes, the state
  ssize_t n;
  do {
    n = ::read(fd, text, sizeof text);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  return n > 0 ? parent_in_stat(text, static_cast<std::size_t>(n)) : -1;
}

}  // namespace

pid_t parent_in_stat(const char* text, std::size_t n) {
  std::size_t close = n;
  for (std::size_t i = n; i > 0; --i) {
    if (text[i - 1] == ')') {
      close = i - 1;
      break;
    }
  }
  if (close == n) return -1;
  std::size_t at = close + 1;
  // " S PPID": a space, the state, a space, the parent's id.
  if (at + 3 >= n || text[at] != ' ' || text[at + 2] != ' ') return -1;
  at += 3;
  std::int64_t value = 0;
  const std::size_t first = at;
  while (at < n && text[at] >= '0' && text[at] <= '9' && value < static_cast<std::int64_t>(kPidLimit)) {
    value = value * 10 + (text[at++] - '0');
  }
  if (at == first || value >= static_cast<std::int64_t>(kPidLimit)) return -1;
  return static_cast<pid_t>(value);
}

std::size_t descendants_of(pid_t root, const ProcessEntry* entries, std::size_t n, std::uint64_t* marks, pid_t* out,
                           std::size_t out_capacity) {
  std::memset(marks, 0, kPidBitmapWords * sizeof(std::uint64_t));
  mark_pid(marks, root);
  // A pass marks the children of what is marked; a chain of depth d takes at most d passes (fewer when parents come
  // first, as /proc lists them in pid order).
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (entries[i].pid != root && !pid_marked(marks, entries[i].pid) && pid_marked(marks, entries[i].parent)) {
        mark_pid(marks, entries[i].pid);
        grew = true;
      }
    }
  }
  std::size_t found = 0;
  for (std::size_t i = 0; i < n && found < out_capacity; ++i) {
    if (entries[i].pid != root && pid_marked(marks, entries[i].pid)) out[found++] = entries[i].pid;
  }
  return found;
}

void mark_parents(const ProcessEntry* entries, std::size_t n, std::uint64_t* parents) {
  std::memset(parents, 0, kPidBitmapWords * sizeof(std::uint64_t));
  for (std::size_t i = 0; i < n; ++i) mark_pid(parents, entries[i].parent);
}

std::size_t scan_processes(ProcessEntry* entries, std::size_t capacity, char* dents, std::size_t dents_size) {
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  std::size_t count = 0;
  while (count < capacity) {
    const long got = ::syscall(SYS_getdents64, dir, dents, dents_size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    for (long at = 0; at < got && count < capacity;) {
      const auto* entry = reinterpret_cast<const DirEntry64*>(dents + at);
      at += entry->length;
      const pid_t pid = pid_of_name(entry->name);
      if (pid <= 0) continue;
      const pid_t parent = read_parent(entry->name);
      if (parent < 0) continue;  // ended meanwhile
      entries[count++] = {pid, parent};
    }
  }
  ::close(dir);
  return count;
}

}  // namespace distbench::compare
