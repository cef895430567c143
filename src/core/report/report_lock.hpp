// One writer per report file. Two runs given the same --json path would otherwise both succeed while the file flips
// between their versions. The run writing a report holds an exclusive lock (flock) on the version it wrote last; a
// report is replaced by rename, so each new version is locked before it replaces the old one and the lock is never
// off the file while the run lives. The kernel drops the lock with the process, however it ends: no lock file, no
// stale lock. A run that finds the file locked refuses before anything runs; a writer that finds, when it next
// writes, that the file is no longer the version it wrote (another process replaced it) stops writing it.
#pragma once

#include "core/report/atomic_file.hpp"

#include <sys/types.h>

#include <string>
#include <string_view>

namespace distbench {

class ReportLock {
 public:
  explicit ReportLock(std::string path) : path_(std::move(path)) {}
  ~ReportLock();
  ReportLock(const ReportLock&) = delete;
  ReportLock& operator=(const ReportLock&) = delete;

  // Before the run: locks the report as it stands, if it exists. Throws usage_error when another live process holds
  // it (another run writing the same path).
  void claim();
  // Replaces the report with `content` and keeps the new version locked (claiming it first if claim() was not
  // called). Throws failure when the report on disk is not the version this run wrote or claimed last (another
  // process replaced it meanwhile), leaving it as it is.
  void replace(std::string_view content, Durability durability);
  // The same, the content written by `write` (a file copied without holding it in memory).
  void replace(const ContentWriter& write, Durability durability);

 private:
  std::string path_;
  bool claimed_ = false;
  bool lockable_ = true;  // false on a file system without locks: nothing is held or checked there
  int fd_ = -1;           // the version this process holds, locked; -1 before the first
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

}  // namespace distbench
