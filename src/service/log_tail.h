#pragma once
// Reads part of a job's log file for GET /v1/jobs/{id}/logs (and so `frugal logs`), bounded
// in size whatever the file's.
//
// Contract. `offset` given: the bytes from there on (for --follow: ask again from `to`).
// Else the end of the file: its last `tail` lines when given, else as much as the bound
// allows. Never more than `max_bytes` of text. A file that does not exist yet (the job has
// not run) reads as empty with size 0. Error only when the file exists but cannot be read.

#include <cstdint>
#include <optional>
#include <string>

#include "model/result.h"

namespace frugal {

struct LogChunk {
  int64_t size = 0;        // the file's size when read
  int64_t from = 0;        // byte offset of `text`'s first byte
  int64_t to = 0;          // byte offset just past `text` (where a follow-up reads on)
  std::string text;        // raw bytes (the API's JSON replaces invalid UTF-8)
  bool truncated = false;  // the byte bound cut the answer short of what was asked
};

Result<LogChunk> read_log(const std::string& path, std::optional<int64_t> offset,
                          std::optional<int> tail, size_t max_bytes);

}  // namespace frugal
