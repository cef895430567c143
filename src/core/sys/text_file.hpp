// Reading a whole input file (a hostfile, a report) for the commands that take one, and writing a command's whole
// output to standard output with its errors seen.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace distbench {

// The cap for text a person writes (a hostfile, a rules or settings file); each caller chooses its own cap.
inline constexpr std::size_t kSmallTextFileMaxBytes = std::size_t{1} << 20;  // 1 MiB

// The file's bytes. Follows symbolic links; refuses anything but a regular file (a FIFO, a device such as /dev/zero,
// a directory) and a file of more than `max_bytes` bytes, so that no input can make it read forever or exhaust
// memory. Throws usage_error naming WHAT and PATH: "cannot read WHAT 'PATH': <the system's reason>; check the path
// and its permissions", "WHAT 'PATH' is not a regular file (a character device); ...", "WHAT 'PATH' is larger than
// 1 MiB; ...".
std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes);

// Writes `text` to standard output and flushes it; throws failure ("cannot write to standard output: No space left
// on device") when any of it was not written, so that `distbench report r.json > /dev/full` does not exit 0.
void write_stdout(std::string_view text);

}  // namespace distbench
