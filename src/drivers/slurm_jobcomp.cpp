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

// What a jobcomp field is read with: the line's place ("file:line") for messages and the
// controller's offset from UTC.
struct FieldContext {
  const std::string& where;
  int64_t utc_offset_s;
};

Error cannot_read(const FieldContext& c, std::string_view key, std::string_view value) {
  return Error{fmt::format("{}: {}: cannot read '{}'", c.where, key, value)};
}

template <auto M>
Status read_text(JobcompRecord& r, std::string_view, std::string_view v, const FieldContext&) {
  r.*M = std::string(v);
  return Status::Ok();
}

// A time field (parse_time's format), moved from the controller's local time to UTC.
template <auto M>
Status read_time(JobcompRecord& r, std::string_view k, std::string_view v, const FieldContext& c) {
  int64_t t = 0;
  if (!parse_time(v, t)) return cannot_read(c, k, v);
  if (t != 0) t -= c.utc_offset_s;
  r.*M = t;
  return Status::Ok();
}

// "cpu=1,mem=62.50G,node=1,billing=1,gres/gpu=2,gres/gpu:a100=2"
Status read_tres(JobcompRecord& r, std::string_view k, std::string_view v, const FieldContext& c) {
  for (std::string_view item = v; !item.empty();) {
    const size_t comma = item.find(',');
    const std::string_view one = item.substr(0, comma);
    item = comma == std::string_view::npos ? std::string_view() : item.substr(comma + 1);
    if (one.substr(0, 8) != "gres/gpu") continue;
    const size_t eq = one.find('=');
    int64_t n = 0;
    if (eq == std::string_view::npos || !to_int(one.substr(eq + 1), n) || n < 0)
      return cannot_read(c, k, v);
    if (one[8] == ':')
      r.gpu_type_from_tres = std::string(one.substr(9, eq - 9));
    else
      r.gpus_from_tres = static_cast<int>(n);
    if (r.gpus_from_tres < 0) r.gpus_from_tres = static_cast<int>(n);
  }
  return Status::Ok();
}

// One jobcomp key and what its value sets; keys not in the table are skipped.
struct JobcompField {
  std::string_view key;
  Status (*read)(JobcompRecord& r, std::string_view k, std::string_view v, const FieldContext& c);
};

constexpr JobcompField kJobcompFields[] = {
    {"JobId",
     [](JobcompRecord& r, std::string_view k, std::string_view v, const FieldContext& c) {
       if (!to_int(v, r.job_id) || r.job_id <= 0) return Status(cannot_read(c, k, v));
       return Status::Ok();
     }},
    {"Name", read_text<&JobcompRecord::name>},
    {"UserId",
     [](JobcompRecord& r, std::string_view, std::string_view v, const FieldContext&) {
       r.user = std::string(v.substr(0, v.find('(')));
       return Status::Ok();
     }},
    {"Account", read_text<&JobcompRecord::account>},
    {"JobState", read_text<&JobcompRecord::state>},
    {"Partition", read_text<&JobcompRecord::partition>},
    {"QOS", read_text<&JobcompRecord::qos>},
    {"TimeLimit",
     [](JobcompRecord& r, std::string_view k, std::string_view v, const FieldContext& c) {
       // Minutes, or UNLIMITED / Partition_Limit (no limit of its own).
       if (v == "UNLIMITED" || v == "Partition_Limit" || v.empty()) return Status::Ok();
       if (!to_int(v, r.time_limit_min) || r.time_limit_min < 0)
         return Status(cannot_read(c, k, v));
       if (r.time_limit_min >= 0xfffffffe) r.time_limit_min = -1;  // NO_VAL / INFINITE
       return Status::Ok();
     }},
    {"NodeList",
     [](JobcompRecord& r, std::string_view, std::string_view v, const FieldContext& c) {
       auto n = expand_hostlist(v);
       if (!n.ok())
         return Status(Error{fmt::format("{}: NodeList: {}", c.where, n.error().message)});
       r.nodes = std::move(n).value();
       return Status::Ok();
     }},
    {"StartTime", read_time<&JobcompRecord::start_unix>},
    {"EndTime", read_time<&JobcompRecord::end_unix>},
    {"SubmitTime", read_time<&JobcompRecord::submit_unix>},
    {"Tres", read_tres},
    {"ExitCode",
     [](JobcompRecord& r, std::string_view k, std::string_view v, const FieldContext& c) {
       int64_t e = 0;
       if (!to_int(v.substr(0, v.find(':')), e)) return Status(cannot_read(c, k, v));
       r.exit_code = static_cast<int>(e);
       return Status::Ok();
     }},
};

Status read_jobcomp_field(JobcompRecord& r, std::string_view k, std::string_view v,
                          const FieldContext& c) {
  for (const JobcompField& f : kJobcompFields)
    if (f.key == k) return f.read(r, k, v, c);
  return Status::Ok();
}

// One line of frugal's GRES log as read so far.
struct GresLogLine {
  int64_t id = 0, start = 0;
  std::vector<std::string> nodes;
  std::vector<GresItem> items;
};

// "gpu:h100:2(IDX:0-1);shard:a100:3(IDX:0)": per node, its gpu or shard item (an empty
// item where it has neither).
Status read_gres_items(std::string_view v, const std::string& where, std::vector<GresItem>& items) {
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
  return Status::Ok();
}

Status read_gres_log_field(GresLogLine& l, std::string_view k, std::string_view v,
                           const std::string& where) {
  if (k == "JobId" && !to_int(v, l.id)) return Error{where + ": bad JobId"};
  if (k == "Start" && !to_int(v, l.start)) return Error{where + ": bad Start"};
  if (k == "Nodes") {
    auto n = expand_hostlist(v);
    if (!n.ok()) return Error{where + ": Nodes: " + n.error().message};
    l.nodes = std::move(n).value();
  }
  if (k == "Gres") return read_gres_items(v, where, l.items);
  return Status::Ok();
}

}  // namespace

Result<std::vector<JobcompRecord>> parse_jobcomp(std::string_view text, const std::string& origin,
                                                 int64_t utc_offset_s) {
  std::vector<JobcompRecord> out;
  for (auto [line_no, line] : numbered_lines(text)) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", origin, line_no);
    const FieldContext c{where, utc_offset_s};
    JobcompRecord r;
    r.line = line_no;
    for (const auto& [k, v] : pairs(line))
      if (Status st = read_jobcomp_field(r, k, v, c); !st.ok()) return st.error();
    // A JobId either sets job_id > 0 or fails the line above.
    if (r.job_id <= 0) return Error{fmt::format("{}: no JobId", where)};
    out.push_back(std::move(r));
  }
  return out;
}

Result<GresLog> parse_gres_log(std::string_view text, const std::string& origin) {
  GresLog log;
  for (const auto& [line_no, line] : numbered_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    const std::string where = fmt::format("{}:{}", origin, line_no);
    GresLogLine l;
    for (const auto& [k, v] : pairs(line))
      if (Status st = read_gres_log_field(l, k, v, where); !st.ok()) return st.error();
    if (l.id <= 0) return Error{where + ": no JobId"};
    if (l.items.size() != l.nodes.size())
      return Error{
          fmt::format("{}: {} nodes but {} Gres entries", where, l.nodes.size(), l.items.size())};
    log[{l.id, l.start}] = std::move(l.items);
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
