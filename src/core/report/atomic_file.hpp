// Writing report files so that a reader never sees half a file: write a temporary file next to the target, sync
// it, then rename it over the target (rename is atomic within one file system).
#pragma once

#include <string>
#include <string_view>

namespace distbench {

// Replaces the file at `path` with `content` atomically. Throws distbench::failure naming the path and the system
// error; the temporary file is removed on failure.
void write_file_atomically(const std::string& path, std::string_view content);

// Checks, before a run, that a report can later be written at `path`: its directory exists and a file can be
// created there (a probe file is created and removed; the target itself is neither created nor truncated).
// Throws distbench::usage_error saying why not and what to do.
void check_writable(const std::string& path);

}  // namespace distbench
