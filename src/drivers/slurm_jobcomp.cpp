#include "drivers/slurm_jobcomp.h"

#include <fmt/format.h>

#include <charconv>

#include "drivers/slurm_parse.h"

namespace frugal {
namespace {

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool to_int(std::string_view s, int64_t& v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

// "2026-11-30T05:01:13" → seconds (as if UTC); "Unknown"/"None" → 0.
bool parse_time(std::string_view s, int64_t& out) {
  if (s == "Unknown" || s == "None" || s.empty()) {
    out = 0;
    return true;
  }
  int64_t y, mo, d, h, mi, se;
  if (s.size() != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':' || !to_int(s.substr(0, 4), y) || !to_int(s.substr(5, 2), mo) ||
      !to_int(s.substr(8, 2), d) || !to_int(s.substr(11, 2), h) || !to_int(s.substr(14, 2), mi) ||
      !to_int(s.substr(17, 2), se) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
      se > 60)
    return false;
  out = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
        mi * 60 + se;
  return true;
}

// Splits "K=V K2=V2 ..." on spaces; values never contain '=' followed by a key in jobcomp,
// but may be empty ("Account=").
std::vector<std::pair<std::string_view, std::string_view>> pairs(std::string_view line) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = line.find(' ', i);
    if (j == std::string_view::npos) j = line.size();
    const std::string_view tok = line.substr(i, j - i);
    const size_t eq = tok.find('=');
    if (eq != std::string_view::npos)
      out.emplace_back(tok.substr(0, eq), tok.substr(eq + 1));
    else if (!out.empty() && !tok.empty())  // a value with a space (job name): extend it
      out.back().second =
          std::string_view(out.back().second.data(),
                           static_cast<size_t>(tok.data() + tok.size() - out.back().second.data()));
    i = j;
  }
  return out;
}

// The lines of `text` with their 1-based numbers (a last line without '\n' included).
std::vector<std::pair<size_t, std::string_view>> numbered_lines(std::string_view text) {
  std::vector<std::pair<size_t, std::string_view>> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    lines.emplace_back(lines.size() + 1, text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

}  // namespace

Result<std::vector<JobcompRecord>> parse_jobcomp(std::string_view text, const std::string& origin,
                                                 int64_t utc_offset_s) {
  std::vector<JobcompRecord> out;
  for (auto [line_no, line] : numbered_lines(text)) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", origin, line_no);
    JobcompRecord r;
    bool have_id = false;
    for (const auto& [k, v] : pairs(line)) {
      auto bad = [&, key = k, value = v] {
        return Error{fmt::format("{}: {}: cannot read '{}'", where, key, value)};
      };
      if (k == "JobId") {
        if (!to_int(v, r.job_id) || r.job_id <= 0) return bad();
        have_id = true;
      } else if (k == "Name") {
        r.name = std::string(v);
      } else if (k == "UserId") {
        r.user = std::string(v.substr(0, v.find('(')));
      } else if (k == "Account") {
        r.account = std::string(v);
      } else if (k == "JobState") {
        r.state = std::string(v);
      } else if (k == "Partition") {
        r.partition = std::string(v);
      } else if (k == "NodeList") {
        auto n = expand_hostlist(v);
        if (!n.ok()) return Error{fmt::format("{}: NodeList: {}", where, n.error().message)};
        r.nodes = std::move(n).value();
      } else if (k == "StartTime" || k == "EndTime" || k == "SubmitTime") {
        int64_t t = 0;
        if (!parse_time(v, t)) return bad();
        if (t != 0) t -= utc_offset_s;
        (k == "StartTime" ? r.start_unix : k == "EndTime" ? r.end_unix : r.submit_unix) = t;
      } else if (k == "Tres") {
        // "cpu=1,mem=62.50G,node=1,billing=1,gres/gpu=2,gres/gpu:a100=2"
        for (std::string_view item = v; !item.empty();) {
          const size_t c = item.find(',');
          const std::string_view one = item.substr(0, c);
          item = c == std::string_view::npos ? std::string_view() : item.substr(c + 1);
          if (one.substr(0, 8) != "gres/gpu") continue;
          const size_t eq = one.find('=');
          int64_t n = 0;
          if (eq == std::string_view::npos || !to_int(one.substr(eq + 1), n) || n < 0) return bad();
          if (one[8] == ':')
            r.gpu_type_from_tres = std::string(one.substr(9, eq - 9));
          else
            r.gpus_from_tres = static_cast<int>(n);
          if (r.gpus_from_tres < 0) r.gpus_from_tres = static_cast<int>(n);
        }
      } else if (k == "ExitCode") {
        int64_t e = 0;
        if (!to_int(v.substr(0, v.find(':')), e)) return bad();
        r.exit_code = static_cast<int>(e);
      }
    }
    if (!have_id) return Error{fmt::format("{}: no JobId", where)};
    out.push_back(std::move(r));
  }
  return out;
}

Result<GresLog> parse_gres_log(std::string_view text, const std::string& origin) {
  GresLog log;
  for (const auto& [line_no, line] : numbered_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    const std::string where = fmt::format("{}:{}", origin, line_no);
    int64_t id = 0, start = 0;
    std::vector<std::string> nodes;
    std::vector<GresItem> items;
    for (const auto& [k, v] : pairs(line)) {
      if (k == "JobId" && !to_int(v, id)) return Error{where + ": bad JobId"};
      if (k == "Start" && !to_int(v, start)) return Error{where + ": bad Start"};
      if (k == "Nodes") {
        auto n = expand_hostlist(v);
        if (!n.ok()) return Error{where + ": Nodes: " + n.error().message};
        nodes = std::move(n).value();
      }
      if (k == "Gres") {
        for (std::string_view rest = v; !rest.empty();) {
          const size_t semi = rest.find(';');
          auto g = parse_gres(rest.substr(0, semi));
          if (!g.ok()) return Error{where + ": Gres: " + g.error().message};
          GresItem item;
          for (auto& x : g.value())
            if (x.name == "gpu" || x.name == "shard") item = x;
          items.push_back(item);
          rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
        }
      }
    }
    if (id <= 0) return Error{where + ": no JobId"};
    if (items.size() != nodes.size())
      return Error{
          fmt::format("{}: {} nodes but {} Gres entries", where, nodes.size(), items.size())};
    log[{id, start}] = std::move(items);
  }
  return log;
}

std::string gres_log_line(const SlurmJob& job) {
  std::string nodes, gres;
  for (size_t i = 0; i < job.nodes.size(); ++i) {
    nodes += (i ? "," : "") + job.nodes[i];
    const GresItem g = i < job.gres_alloc.size() ? job.gres_alloc[i] : GresItem{};
    std::string idx;
    for (size_t k = 0; k < g.indices.size(); ++k)
      idx += fmt::format("{}{}", k ? "," : "", g.indices[k]);
    std::string item = g.name.empty()   ? "gpu:0"
                       : g.type.empty() ? fmt::format("{}:{}", g.name, g.count)
                                        : fmt::format("{}:{}:{}", g.name, g.type, g.count);
    if (!idx.empty()) item += "(IDX:" + idx + ")";
    gres += (i ? ";" : "") + item;
  }
  return fmt::format("JobId={} Start={} Nodes={} Gres={}", job.id, job.start_time, nodes, gres);
}

}  // namespace frugal
