#pragma once
// Internal to the trace readers: one entry point per format (trace_<format>.cpp), called by
// read_trace (trace_reader.cpp) once the header has been read and the format chosen.
// Each appends to `trace.jobs` through a JobCollector and returns the first fatal error.

#include <string>
#include <string_view>

#include "io/trace_table.h"

namespace frugal {

Status read_itp_table(const Table& table, const TraceOptions& options, Trace& trace);
Status read_elasticflow_table(const Table& table, const TraceOptions& options, Trace& trace);
Status read_openb_table(const Table& table, const TraceOptions& options, Trace& trace);
Status read_pollux_table(const Table& table, const TraceOptions& options, Trace& trace);
Status read_native_table(const Table& table, const TraceOptions& options, Trace& trace);
// `text` is the whole file (BOM removed); one JSON object per non-blank line.
Status read_native_jsonl(std::string_view text, const std::string& path,
                         const TraceOptions& options, Trace& trace);

// Sets the native-format field `key` of `job` from its text form `value` (shared by the
// native CSV and JSONL readers). Unknown keys, classes, tiers and GPU models are errors.
Status set_native_field(JobSpec& job, std::string_view key, std::string_view value,
                        const Where& where, const GpuCatalog& catalog);
// Checks across a native job's fields once all are set (a deadline before the submit).
Status check_native_job(const JobSpec& job, const Where& w);

// Resolves a '|'-separated list of GPU model names through `catalog` (duplicates dropped).
Status parse_model_list(std::string_view text, std::string_view field, const Where& where,
                        const GpuCatalog& catalog, std::vector<GpuModelId>& out);

}  // namespace frugal
