// The HTML report renderer (io/html_report.h) on a small simulated run and on hand-made JSON.

#include "io/html_report.h"

#include <gtest/gtest.h>

#include <regex>

#include "../common/test_util.h"
#include "io/html_escape.h"
#include "io/run_json.h"
#include "sim/summary.h"

namespace frugal {
namespace {

using nlohmann::json;
using testing::cluster_of;
using testing::job;
using testing::kA100;
using testing::node;
using testing::run_sim;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// The attribute `attr` of the first element carrying `marker`.
std::string attr_after(const std::string& s, const std::string& marker, const std::string& attr) {
  const size_t p = s.find(marker);
  if (p == std::string::npos) return "<missing>";
  const size_t a = s.find(attr + "=\"", p);
  const size_t b = s.find('"', a + attr.size() + 2);
  return s.substr(a + attr.size() + 2, b - a - attr.size() - 2);
}

json small_run_doc(std::vector<JobSpec> jobs) {
  auto cluster = cluster_of({node("n0", kA100, 4), node("n1", kA100, 4)});
  SimOptions o;
  o.timeline = true;
  std::vector<Summary> sums;
  std::vector<SimResult> results;
  for (const char* p : {"fifo", "backfill"}) {
    results.push_back(run_sim(jobs, cluster, p, o));
    sums.push_back(summarize(results.back()));
  }
  return report_document(sums, results, RunInputs{jobs, testing::test_gpus(), cluster});
}

TEST(HtmlReport, TheJobTableCarriesItsFirstPageAsHtmlAndEveryRowInTheJson) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 70; ++i) jobs.push_back(job("j" + std::to_string(i), i * 30, 1, 600));
  const json doc = small_run_doc(jobs);  // 70 jobs in each of 2 runs: 140 rows
  auto page = render_html_report(doc, {});
  ASSERT_TRUE(page.ok()) << page.error().message;
  const std::string& h = page.value();
  EXPECT_EQ(count(h, "<tr data-policy="), 100u);
  EXPECT_EQ(count(h, "<tr data-policy=\"fifo\""), 70u);
  EXPECT_NE(h.find("Rows 1–100 of 140"), std::string::npos);
  EXPECT_EQ(doc["runs"][1]["jobs"].size(), 70u);  // the script renders the rest from here
}

TEST(HtmlReport, ChartsOfASmallRunHaveNonEmptyPaths) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 40; ++i) jobs.push_back(job("j" + std::to_string(i), i * 60, 1 + i % 4, 900));
  jobs[3].team = "<b>ops & \"infra\"</b>";
  const json doc = small_run_doc(jobs);
  auto page = render_html_report(doc, {});
  ASSERT_TRUE(page.ok()) << page.error().message;
  const std::string& h = page.value();
  for (const char* chart : {"gpus", "queue", "cost-by-team", "cost-by-class", "cost-by-region"})
    EXPECT_EQ(count(h, std::string("data-chart=\"") + chart + "\""), 1u) << chart;
  for (const char* series :
       {"fifo:provisioned_gpus", "fifo:allocated_gpus", "fifo:busy_gpus", "backfill:queue_jobs"}) {
    const std::string d = attr_after(h, std::string("data-series=\"") + series + "\"", "d");
    EXPECT_GE(d.size(), 4u) << series;
    EXPECT_EQ(d[0], 'M') << series;
  }
  EXPECT_EQ(count(h, "<tr data-policy=\"fifo\""), 40u);
  EXPECT_EQ(count(h, "<section class=\"card\""), 2u);
  // Team names escaped in the table and the charts; the raw text only inside the JSON.
  const std::string markup = h.substr(0, h.find("id=\"frugal-data\""));
  EXPECT_EQ(markup.find("<b>ops"), std::string::npos);
  EXPECT_NE(h.find("&lt;b&gt;ops &amp; &quot;infra&quot;&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(h.find("http://"), std::string::npos);
  EXPECT_EQ(h.find("https://"), std::string::npos);
  EXPECT_FALSE(std::regex_search(h, std::regex("<(script|link|img)[^>]+(src|href)=")));
  // The embedded JSON reads back as the input.
  const size_t a = h.find("id=\"frugal-data\">") + 17;
  const size_t b = h.find("</script>", a);
  EXPECT_EQ(json::parse(h.substr(a, b - a)), doc);
}

json hand_doc() {
  json base = {{"policy", "fifo"},
               {"cost", {{"total_usd", 200.0}, {"co2_kg", 50.0}}},
               {"waste", {{"idle_unallocated_usd", 30.0}, {"stranded_usd", 10.0}}},
               {"jct_s", {{"mean", 100.0}, {"p99", 400.0}}},
               {"wait_s", {{"mean", 20.0}}},
               {"gpu_utilization", 0.5},
               {"deadline_misses", 2},
               {"by_team", {{"</script><x>", {{"total_usd", 200.0}}}}}};
  json other = base;
  other["policy"] = "frugal";
  other["cost"]["total_usd"] = 150.0;
  other["waste"]["stranded_usd"] = 5.0;
  other["deadline_misses"] = 0;
  return {{"runs", {base, other}}};
}

TEST(HtmlReport, CardValuesAreTheJsonNumbers) {
  auto page = render_html_report(hand_doc(), {});
  ASSERT_TRUE(page.ok());
  const std::string& h = page.value();
  const std::string frugal_card = h.substr(h.find("data-policy=\"frugal\""));
  EXPECT_EQ(attr_after(frugal_card, "data-metric=\"total_usd\"", "data-value"), "150");
  EXPECT_EQ(attr_after(frugal_card, "data-metric=\"waste_share\"", "data-value"),
            number_text(35.0 / 150));
  EXPECT_EQ(attr_after(frugal_card, "data-metric=\"jct_p99_s\"", "data-value"), "400");
  EXPECT_EQ(attr_after(frugal_card, "data-metric=\"co2_kg\"", "data-value"), "50");
  EXPECT_EQ(attr_after(frugal_card, "data-delta=\"total_usd\"", "data-value"), "-0.25");
  EXPECT_EQ(attr_after(frugal_card, "data-delta=\"deadline_misses\"", "data-value"), "-1");
  EXPECT_EQ(count(h, "data-delta="), 8u);  // every metric of the non-baseline card (base != 0)
  EXPECT_EQ(h.find("data-chart=\"gpus\""), std::string::npos);  // no timeline: no line chart
  EXPECT_EQ(attr_after(h, "data-label=\"stranded_usd\" data-policy=\"frugal\"", "data-value"), "5");
  // "</" in the data cannot close the script element.
  EXPECT_EQ(count(h, "</script>"), 2u);
  EXPECT_NE(h.find("<\\/script><x>"), std::string::npos);
}

TEST(HtmlReport, BaselineOption) {
  HtmlReportOptions o;
  o.baseline = "frugal";
  auto page = render_html_report(hand_doc(), o);
  ASSERT_TRUE(page.ok());
  const std::string fifo_card = page.value().substr(page.value().find("data-policy=\"fifo\""));
  EXPECT_EQ(attr_after(fifo_card, "data-delta=\"total_usd\"", "data-value"),
            number_text(50.0 / 150));
  o.baseline = "nope";
  auto bad = render_html_report(hand_doc(), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("nope"), std::string::npos);
  EXPECT_FALSE(render_html_report(json::object(), {}).ok());
}

TEST(HtmlReport, UnwritableFileIsNamed) {
  const Status st = write_html_report("/nonexistent-dir/r.html", hand_doc(), {});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("/nonexistent-dir/r.html"), std::string::npos);
}

TEST(HtmlReport, JobRowsAreCapped) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 30; ++i) jobs.push_back(job("j" + std::to_string(i), 0, 4, 100 + i));
  auto cluster = cluster_of({node("n0", kA100, 4)});
  SimOptions o;
  o.timeline = true;
  std::vector<SimResult> results = {run_sim(jobs, cluster, "fifo", o)};
  std::vector<Summary> sums = {summarize(results[0])};
  const json doc =
      report_document(sums, results, RunInputs{jobs, testing::test_gpus(), cluster}, 10);
  ASSERT_EQ(doc["runs"][0]["jobs"].size(), 10u);
  EXPECT_EQ(doc["runs"][0]["jobs_total"], 30);
  // FIFO on one node: the last arrivals waited longest and are kept.
  EXPECT_EQ(doc["runs"][0]["jobs"].back()["id"], "j29");
}

}  // namespace
}  // namespace frugal
