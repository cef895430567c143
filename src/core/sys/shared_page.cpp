#include "core/sys/shared_page.hpp"

#include "core/error.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <utility>

#include <fmt/format.h>

namespace distbench {
namespace {

std::size_t page_bytes() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// Maps the shared memory object `fd` (one page); closes fd either way.
void* map_page(int fd, const std::string& name) {
  void* data = mmap(nullptr, page_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (data == MAP_FAILED) throw failure(fmt::format("could not map shared memory {}: {}", name, std::strerror(err)));
  return data;
}

}  // namespace

SharedPage SharedPage::create() {
  std::random_device random;
  const std::string name = fmt::format("/distbench-{}-{:08x}", getpid(), random());
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) throw failure(fmt::format("could not create shared memory {}: {}", name, std::strerror(errno)));
  if (ftruncate(fd, static_cast<off_t>(page_bytes())) != 0) {
    const int err = errno;
    close(fd);
    shm_unlink(name.c_str());
    throw failure(fmt::format("could not size shared memory {}: {}", name, std::strerror(err)));
  }
  try {
    void* data = map_page(fd, name);  // a new object reads as zeros
    return SharedPage(name, data, page_bytes(), true);
  } catch (...) {
    shm_unlink(name.c_str());
    throw;
  }
}

SharedPage SharedPage::open(const std::string& name) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) throw failure(fmt::format("could not open shared memory {}: {}", name, std::strerror(errno)));
  return SharedPage(name, map_page(fd, name), page_bytes(), false);
}

SharedPage::SharedPage(SharedPage&& other) noexcept
    : name_(std::move(other.name_)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      owner_(std::exchange(other.owner_, false)) {}

SharedPage& SharedPage::operator=(SharedPage&& other) noexcept {
  if (this != &other) {
    this->~SharedPage();
    name_ = std::move(other.name_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    owner_ = std::exchange(other.owner_, false);
  }
  return *this;
}

SharedPage::~SharedPage() {
  unlink();
  if (data_ != nullptr) munmap(data_, bytes_);
  data_ = nullptr;
}

void SharedPage::unlink() {
  if (owner_) shm_unlink(name_.c_str());
  owner_ = false;
}

}  // namespace distbench
