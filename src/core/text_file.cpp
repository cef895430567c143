#include "core/text_file.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace distbench {

std::string read_text_file(const std::string& path, std::string_view what) {
  const auto cannot = [&](int err) {
    return usage_error(
        fmt::format("cannot read {} '{}': {}; check the path and its permissions", what, path, std::strerror(err)));
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw cannot(errno);
  std::string text;
  char buffer[1 << 14];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, got);
  if (std::ferror(file.get())) throw cannot(errno != 0 ? errno : EIO);
  return text;
}

}  // namespace distbench
