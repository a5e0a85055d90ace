#pragma once
// The HTML report of a `frugal pack` run (the openb static-fill experiment; `pack --html FILE`,
// or `frugal report` of a document {"pack": PACK_JSON}): the unallocated and fragmentation
// curves against arrived load, per policy, with the LP bound, and the summary levels as a
// table. Internal to the renderer (io/html_report.h), which wraps it in the page.
//
// Input: `frugal pack --format json`'s document: "curves" {policy: {"alloc_pct": [median
// allocated % at arrived 0, 1, ..., 130 % (null where no run reached the level)],
// "fragmentation_pct": [...]}}, optional "bound" {"alloc_pct": [...]}, "summary" rows
// {policy, arrived_pct, unallocated_gpu_pct, bound_unallocated_pct, fragmentation_pct,
// migrations_used}, "meta" {pods, nodes, runs, migrations_per_100}.
//
// DOM contract (tests/ui/report_pack.test.mjs; see also io/svg_chart.h):
//  - chart pack-unallocated: series P:unallocated_pct = 100 − curves[P].alloc_pct[x] at x =
//    arrived %, and bound:unallocated_pct = 100 − bound.alloc_pct[x] when there is a bound;
//  - chart pack-unallocated-high: the same series from 90 % arrived on (x >= 90);
//  - chart pack-fragmentation: series P:fragmentation_pct = curves[P].fragmentation_pct[x];
//  - table #pack-levels: a row per summary arrived level (<tr data-arrived="X">), a cell
//    <td data-policy="P" data-value="unallocated_gpu_pct"> per policy and
//    <td data-policy="bound" data-value="bound_unallocated_pct"> when the rows carry it.

#include <nlohmann/json.hpp>
#include <string>

#include "model/result.h"

namespace frugal {

// The pack part of the page (headings from <h2>). Errors name what is missing or malformed.
Result<std::string> html_pack_section(const nlohmann::json& pack);

}  // namespace frugal
