// The HTML report renderer (io/html_report.h) on grouped documents: a section per group with
// its own cards and charts, the baseline resolved per group, one job table with a group
// column, and the errors of a malformed grouping.

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "io/html_escape.h"
#include "io/html_report.h"

namespace frugal {
namespace {

using nlohmann::json;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// The attribute `attr` of the first element carrying `marker` at or after `from`.
std::string attr_after(const std::string& s, const std::string& marker, const std::string& attr,
                       size_t from = 0) {
  const size_t p = s.find(marker, from);
  if (p == std::string::npos) return "<missing>";
  const size_t a = s.find(attr + "=\"", p);
  const size_t b = s.find('"', a + attr.size() + 2);
  return s.substr(a + attr.size() + 2, b - a - attr.size() - 2);
}

json run(const std::string& policy, double total, const std::string& job_id) {
  return {{"policy", policy},
          {"cost", {{"total_usd", total}, {"co2_kg", 5.0}}},
          {"waste", {{"idle_unallocated_usd", total / 10}}},
          {"jct_s", {{"mean", 100.0}, {"p99", 400.0}}},
          {"wait_s", {{"mean", 20.0}}},
          {"gpu_utilization", 0.5},
          {"deadline_misses", 0},
          {"by_team", {{"ml", {{"total_usd", total}}}}},
          {"timeline",
           {{"t", {0.0, 3600.0}}, {"allocated_gpus", {1.0, 2.0}}, {"queue_jobs", {3.0, 0.0}}}},
          {"jobs_total", 1},
          {"jobs", json::array({{{"id", job_id}, {"team", "ml"}, {"cost_usd", total}}})}};
}

// Two traces; the second lists its runs in the other order.
json grouped() {
  return {
      {"groups",
       {{{"name", "itp-cluster01"}, {"runs", {run("fifo", 200, "a1"), run("frugal", 150, "a2")}}},
        {{"name", "<x> & y"}, {"runs", {run("frugal", 90, "b1"), run("fifo", 100, "b2")}}}}}};
}

// The text of group `name`'s section (escaped name).
std::string section(const std::string& h, const std::string& name) {
  const size_t a = h.find("<section class=\"group\" data-group=\"" + name + "\"");
  if (a == std::string::npos) return {};
  const size_t b = h.find("<section class=\"group\"", a + 1);
  return h.substr(a, (b == std::string::npos ? h.find("id=\"h-jobs\"") : b) - a);
}

TEST(HtmlGroups, ASectionPerGroupWithItsCardsAndCharts) {
  auto page = render_html_report(grouped(), {});
  ASSERT_TRUE(page.ok()) << page.error().message;
  const std::string& h = page.value();
  EXPECT_EQ(count(h, "<section class=\"group\""), 2u);
  EXPECT_NE(h.find("<nav aria-label=\"Groups\">"), std::string::npos);
  EXPECT_NE(h.find("<a href=\"#group-itp-cluster01\">itp-cluster01</a>"), std::string::npos);
  EXPECT_NE(h.find("<a href=\"#group--x----y\">&lt;x&gt; &amp; y</a>"), std::string::npos);
  const std::string a = section(h, "itp-cluster01"), b = section(h, "&lt;x&gt; &amp; y");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_NE(a.find("id=\"group-itp-cluster01\""), std::string::npos);
  for (const std::string* s : {&a, &b}) {
    EXPECT_EQ(count(*s, "<section class=\"card\""), 2u);
    for (const char* chart : {"gpus", "queue", "waste", "cost-by-team"})
      EXPECT_EQ(count(*s, std::string("data-chart=\"") + chart + "\""), 1u) << chart;
    EXPECT_EQ(count(*s, "data-series=\"fifo:allocated_gpus\" d=\"M"), 1u);
  }
  EXPECT_EQ(attr_after(a, "data-policy=\"frugal\"", "data-value"), "150");
  EXPECT_EQ(attr_after(b, "data-policy=\"frugal\"", "data-value"), "90");
  EXPECT_EQ(attr_after(b, "data-label=\"ml\" data-policy=\"fifo\"", "data-value"), "100");
  // Every id on the page is unique (each group's parts have their own).
  std::set<std::string> ids;
  const std::regex id_re("\\sid=\"([^\"]+)\"");
  for (std::sregex_iterator i(h.begin(), h.end(), id_re), end; i != end; ++i)
    EXPECT_TRUE(ids.insert((*i)[1].str()).second) << "id " << (*i)[1].str() << " repeats";
}

TEST(HtmlGroups, IdsStayUniqueWhenNamesLookAlike) {
  const json doc = {{"groups",
                     {{{"name", "a b"}, {"runs", {run("fifo", 1, "j")}}},
                      {{"name", "a-b"}, {"runs", {run("fifo", 2, "j")}}},
                      {{"name", "a-b-2"}, {"runs", {run("fifo", 3, "j")}}},
                      {{"name", "a-b.h"}, {"runs", {run("fifo", 4, "j")}}}}}};
  auto page = render_html_report(doc, {});
  ASSERT_TRUE(page.ok()) << page.error().message;
  const std::string& h = page.value();
  std::set<std::string> ids;
  const std::regex id_re("\\sid=\"([^\"]+)\"");
  for (std::sregex_iterator i(h.begin(), h.end(), id_re), end; i != end; ++i)
    EXPECT_TRUE(ids.insert((*i)[1].str()).second) << "id " << (*i)[1].str() << " repeats";
  EXPECT_EQ(count(h, "<a href=\"#group-a-b"), 4u);
  for (const char* id : {"group-a-b", "group-a-b-2", "group-a-b-2-2", "group-a-b-h"})
    EXPECT_EQ(ids.count(id), 1u) << id;
}

TEST(HtmlGroups, TheBaselineIsEachGroupsRunOfThePolicy) {
  auto first = render_html_report(grouped(), {});  // no baseline: each group's first run
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(
      attr_after(section(first.value(), "itp-cluster01"), "data-delta=\"total_usd\"", "data-value"),
      "-0.25");  // frugal vs fifo
  EXPECT_EQ(attr_after(section(first.value(), "&lt;x&gt; &amp; y"), "data-delta=\"total_usd\"",
                       "data-value"),
            number_text(10.0 / 90));  // fifo vs frugal, the second group's first run
  HtmlReportOptions o;
  o.baseline = "fifo";
  auto page = render_html_report(grouped(), o);
  ASSERT_TRUE(page.ok());
  const std::string b = section(page.value(), "&lt;x&gt; &amp; y");
  EXPECT_EQ(attr_after(b, "data-delta=\"total_usd\"", "data-value"), "-0.1");  // frugal vs fifo
  EXPECT_NE(b.find("fifo <small>(baseline)</small>"), std::string::npos);
  EXPECT_EQ(count(page.value(), "data-delta=\"total_usd\""), 2u);  // one non-baseline per group
}

TEST(HtmlGroups, OneJobTableOverAllGroups) {
  auto page = render_html_report(grouped(), {});
  ASSERT_TRUE(page.ok());
  const std::string& h = page.value();
  EXPECT_NE(h.find("<thead><tr><th scope=\"col\"><button type=\"button\">group</button></th>"
                   "<th scope=\"col\"><button type=\"button\">policy</button></th>"),
            std::string::npos);
  EXPECT_EQ(count(h, "<tr data-group="), 4u);
  EXPECT_NE(h.find("<tr data-group=\"itp-cluster01\" data-policy=\"fifo\" data-job=\"a1\">"
                   "<td>itp-cluster01</td><td>fifo</td><td>a1</td>"),
            std::string::npos);
  EXPECT_NE(h.find("<tr data-group=\"&lt;x&gt; &amp; y\" data-policy=\"fifo\" data-job=\"b2\">"),
            std::string::npos);
  EXPECT_NE(h.find("Rows 1–4 of 4"), std::string::npos);
}

TEST(HtmlGroups, AnUngroupedPageHasNoGroupMarkup) {
  const json doc = {{"runs", {run("fifo", 200, "a1"), run("frugal", 150, "a2")}}};
  auto page = render_html_report(doc, {});
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page.value().find("data-group"), std::string::npos);
  EXPECT_EQ(page.value().find("<nav"), std::string::npos);
  EXPECT_EQ(page.value().find(">group</button>"), std::string::npos);
  EXPECT_NE(page.value().find("<h2 id=\"h-summary\">Summary</h2>"), std::string::npos);
}

TEST(HtmlGroups, MalformedGroupingsAreNamed) {
  const auto error = [](const json& doc, const std::string& baseline = "") {
    HtmlReportOptions o;
    o.baseline = baseline;
    auto page = render_html_report(doc, o);
    return page.ok() ? std::string("<ok>") : page.error().message;
  };
  json doc = grouped();
  doc["groups"][1].erase("name");
  EXPECT_NE(error(doc).find("group 2 has no \"name\""), std::string::npos) << error(doc);
  doc = grouped();
  doc["groups"][1]["name"] = "itp-cluster01";
  EXPECT_NE(error(doc).find("\"itp-cluster01\" appears twice"), std::string::npos) << error(doc);
  doc = grouped();
  doc["groups"][0]["runs"] = json::array();
  EXPECT_NE(error(doc).find("\"itp-cluster01\" holds no run"), std::string::npos) << error(doc);
  doc = grouped();
  doc["groups"][1]["runs"].erase(1);
  EXPECT_NE(error(doc, "fifo").find("--baseline fifo: no run of that policy in group \"<x> & y\""),
            std::string::npos)
      << error(doc, "fifo");
  EXPECT_NE(error(json{{"groups", json::array()}}).find("holds no run"), std::string::npos);
  EXPECT_NE(error(json{{"groups", 3}}).find("not an array"), std::string::npos);
}

}  // namespace
}  // namespace frugal
