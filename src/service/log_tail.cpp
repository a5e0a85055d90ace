#include "service/log_tail.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace frugal {

Result<LogChunk> read_log(const std::string& path, std::optional<int64_t> offset,
                          std::optional<int> tail, size_t max_bytes) {
  LogChunk c;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return c;  // not written yet
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("{}: {}", path, std::strerror(errno))};
  in.seekg(0, std::ios::end);
  c.size = static_cast<int64_t>(in.tellg());
  const auto bound = static_cast<int64_t>(max_bytes);
  if (offset) {
    c.from = std::clamp<int64_t>(*offset, 0, c.size);
    c.to = std::min(c.size, c.from + bound);
    c.truncated = c.to < c.size;
  } else {
    c.to = c.size;
    c.from = std::max<int64_t>(0, c.size - bound);
  }
  c.text.resize(static_cast<size_t>(c.to - c.from));
  in.seekg(c.from);
  in.read(c.text.data(), static_cast<std::streamsize>(c.text.size()));
  if (in.gcount() != static_cast<std::streamsize>(c.text.size())) {
    // The file shrank between the two reads: return what was there.
    c.text.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
    c.to = c.from + static_cast<int64_t>(c.text.size());
  }
  if (offset) return c;
  // From the end: the last `tail` lines (a final line without '\n' counts as one). `start`
  // ends up past the newline before them, or at 0 when the chunk holds fewer lines.
  size_t start = 0;
  if (tail) {
    start = c.text.size();
    size_t end = start;
    if (end > 0 && c.text[end - 1] == '\n') --end;  // the last line's own newline
    for (int i = 0; i < *tail; ++i) {
      const size_t nl = end == 0 ? std::string::npos : c.text.rfind('\n', end - 1);
      if (nl == std::string::npos) {
        start = 0;
        break;
      }
      start = nl + 1;
      end = nl;
    }
    c.text.erase(0, start);
  }
  c.from = c.to - static_cast<int64_t>(c.text.size());
  // Short of what was asked: earlier bytes exist that the bound (not the line count) left out.
  c.truncated = c.from > 0 && start == 0;
  return c;
}

}  // namespace frugal
