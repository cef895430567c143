// Writing report files so that a reader never sees half a file: write a temporary file next to the target, then
// rename it over the target (rename is atomic within one file system). That alone survives the death of the process
// at any point; syncing to disk as well (for a machine that loses power) is asked for once, on the final write.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

enum class Durability { process, disk };

// How a reporter's final write of a run that ended with `status` is made: a complete run is synced to disk; a
// failing one is written fast (the launcher may kill the process a second after asking it to stop), which still
// survives the process.
inline Durability final_durability(const std::string& status) {
  return status == "complete" ? Durability::disk : Durability::process;
}

// Replaces the file at `path` with `content` atomically; with Durability::disk, also syncs the file and its
// directory before returning. Throws distbench::failure naming the path and the system error; the temporary file
// is removed on failure.
void write_file_atomically(const std::string& path, std::string_view content, Durability durability = Durability::disk);

// As write_file_atomically, but the new version stays open and locked (flock, exclusive) by this process: returns
// its descriptor, which the caller closes. `before_rename` runs just before the new version replaces the target (it
// may throw to leave the target as it is; the temporary file is then removed).
int write_file_atomically_locked(const std::string& path, std::string_view content, Durability durability,
                                 const std::function<void()>& before_rename);

// Writes the content into a file descriptor; returns 0, or the errno of what failed.
using ContentWriter = std::function<int(int fd)>;

// The same, with the content written by `write` (a file copied in the kernel, never held in memory whole).
int write_file_atomically_locked(const std::string& path, const ContentWriter& write, Durability durability,
                                 const std::function<void()>& before_rename);

// Writes all of `content` to `fd`, retrying short writes and interruptions. Returns errno, or 0.
int write_content(int fd, std::string_view content);

// Checks, before a run, that a report can later be written at `path`: its directory exists and a file can be
// created there (a probe file is created and removed; the target itself is neither created nor truncated), and the
// path is new or a regular file — not a directory, a device, a FIFO, nor a symbolic link (every file distbench writes
// is replaced by rename, which would put a file where the link was: name the file itself). Throws
// distbench::usage_error saying why not and what to do.
void check_writable(const std::string& path);

// A file a run names on its command line, with the option that names it ("--json", "the report").
struct NamedPath {
  std::string option;
  std::string path;
};

// Refuses (usage_error) an output that is the same file as one of the run's inputs or as another output — by path
// (symbolic links and ".." resolved) or, for files that exist, by device and inode: `report r.json --output r.json`
// would replace what it reads, `--json p --prom p` keep only one of the two.
void check_distinct_files(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace distbench
