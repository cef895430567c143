#include "core/sys/kernel_xids.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <map>

namespace distbench {
namespace {

constexpr std::string_view kXidMark = "NVRM: Xid (";
constexpr std::size_t kLastLineChars = 200;

// "NVRM: Xid (PCI:0000:3b:00): 79, pid=..." -> bus "0000:3b:00", XID 79; false for any other line.
bool parse_xid_line(std::string_view line, std::string& bus, int& xid) {
  const auto at = line.find(kXidMark);
  if (at == std::string_view::npos) return false;
  std::string_view rest = line.substr(at + kXidMark.size());
  const auto close = rest.find("):");
  if (close == std::string_view::npos || close > 64) return false;
  std::string_view where = rest.substr(0, close);
  if (where.rfind("PCI:", 0) == 0) where.remove_prefix(4);
  rest.remove_prefix(close + 2);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  int value = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (ec != std::errc() || end == rest.data() || value < 0) return false;
  bus = std::string(where);
  xid = value;
  return true;
}

}  // namespace

void XidTally::add(std::string_view line) {
  std::string bus;
  int xid = 0;
  if (!parse_xid_line(line, bus, xid)) return;
  auto key = std::make_pair(bus, xid);
  auto it = seen_.find(key);
  if (it == seen_.end()) {
    if (seen_.size() >= max_kinds_) return;
    it = seen_.emplace(key, KernelXid{bus, xid, 0, ""}).first;
  }
  ++it->second.count;
  const auto semi = line.find(';');
  std::string_view message = semi == std::string_view::npos ? line : line.substr(semi + 1);
  message = message.substr(0, kLastLineChars);
  while (!message.empty() && message.back() == '\n') message.remove_suffix(1);
  it->second.last_line = std::string(message);
}

std::vector<KernelXid> XidTally::result() const {
  std::vector<KernelXid> out;
  for (const auto& [key, x] : seen_) out.push_back(x);
  return out;
}

std::vector<KernelXid> parse_kernel_xids(const std::vector<std::string>& lines, std::size_t max_kinds) {
  XidTally tally(max_kinds);
  for (const std::string& line : lines) tally.add(line);
  return tally.result();
}

KernelXids read_kernel_xids(const std::string& path, std::size_t max_records, double max_seconds) {
  KernelXids out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    out.why = std::string(path) + ": " + std::strerror(errno);
    return out;
  }
  XidTally tally;
  const auto began = std::chrono::steady_clock::now();
  char record[8192];
  while (out.records < max_records) {
    const ssize_t n = ::read(fd, record, sizeof record);
    if (n < 0) {
      if (errno == EPIPE) continue;  // records were overwritten while reading: go on from the oldest left
      if (errno == EINTR) continue;
      if (errno != EAGAIN) out.why = std::string(path) + ": " + std::strerror(errno);
      break;
    }
    if (n == 0) break;
    ++out.records;
    tally.add(std::string_view(record, static_cast<std::size_t>(n)));
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() > max_seconds) break;
  }
  ::close(fd);
  out.readable = out.why.empty();
  out.xids = tally.result();
  return out;
}

}  // namespace distbench
