// One page of memory shared by the processes of a host, by name (POSIX shared memory): one process creates it, the
// others open it by the name it chose, and once all have it mapped the creator removes the name, so nothing is
// left behind however the processes end. Used for the cache-line ping between co-located ranks (cache_line_ping).
#pragma once

#include <cstddef>
#include <string>

namespace distbench {

class SharedPage {
 public:
  // Creates a page under a new name (this process's id and a random part); throws Error(failure) when the system
  // refuses (no /dev/shm, out of memory), with what it said.
  static SharedPage create();
  // Maps the page `name` that another process created; throws Error(failure) when it cannot.
  static SharedPage open(const std::string& name);

  SharedPage(SharedPage&& other) noexcept;
  SharedPage& operator=(SharedPage&& other) noexcept;
  SharedPage(const SharedPage&) = delete;
  SharedPage& operator=(const SharedPage&) = delete;
  ~SharedPage();

  const std::string& name() const { return name_; }
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  // Removes the name (the creator, once every process has opened it); the mapping stays. Idempotent.
  void unlink();

 private:
  SharedPage(std::string name, void* data, std::size_t bytes, bool owner)
      : name_(std::move(name)), data_(data), bytes_(bytes), owner_(owner) {}
  std::string name_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  bool owner_ = false;  // created it, and its name is not yet removed
};

}  // namespace distbench
