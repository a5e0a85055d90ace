// The HTML report of a `frugal pack` run (io/html_pack.h through io/html_report.h): the
// unallocated and fragmentation curves against arrived load with the bound, the levels
// table, the x axis in arrived %, and the errors of a malformed document.

#include <gtest/gtest.h>

#include <string>

#include "io/html_report.h"

namespace frugal {
namespace {

using nlohmann::json;

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// The d attribute of the path of series `id`.
std::string path_of(const std::string& h, const std::string& id) {
  const size_t p = h.find("data-series=\"" + id + "\" d=\"");
  if (p == std::string::npos) return "<missing>";
  const size_t a = p + id.size() + 19;
  return h.substr(a, h.find('"', a) - a);
}

// Arrived 0..4 %: fgd allocates 0, 1, 2, 2.5, 3; frugal 0, 1, 2, 3, 3.5 (null at 4 %: no run
// reached it); the bound 0, 1, 2, 3, 4.
json pack_doc() {
  json summary = json::array();
  for (const auto& [p, u] : {std::pair{"fgd", 1.0}, {"frugal", 0.5}})
    summary.push_back({{"policy", p},
                       {"arrived_pct", 4},
                       {"unallocated_gpu_pct", u},
                       {"bound_unallocated_pct", 0.0},
                       {"fragmentation_pct", 2.0}});
  return {
      {"meta", {{"pods", "p.csv"}, {"nodes", "n.csv"}, {"runs", 3}, {"migrations_per_100", 0}}},
      {"curves",
       {{"fgd", {{"alloc_pct", {0, 1, 2, 2.5, 3}}, {"fragmentation_pct", {0, 0.5, 1, 1.5, 2}}}},
        {"frugal",
         {{"alloc_pct", {0, 1, 2, 3, nullptr}}, {"fragmentation_pct", {0, 0.5, 1, 1, nullptr}}}}}},
      {"bound", {{"alloc_pct", {0, 1, 2, 3, 4}}, {"wall_s", 0.1}}},
      {"summary", summary}};
}

TEST(HtmlPack, DrawsUnallocatedAndFragmentationAgainstArrivedLoadWithTheBound) {
  auto page = render_html_report(json{{"pack", pack_doc()}}, {});
  ASSERT_TRUE(page.ok()) << page.error().message;
  const std::string& h = page.value();
  EXPECT_EQ(count_of(h, "data-chart=\"pack-unallocated\""), 1u);
  EXPECT_EQ(count_of(h, "data-chart=\"pack-fragmentation\""), 1u);
  // Levels 0..4 hold nothing from 90 % on: the zoomed chart is left out.
  EXPECT_EQ(count_of(h, "data-chart=\"pack-unallocated-high\""), 0u);
  // Five points each for fgd and the bound, four for frugal (its null is skipped).
  for (const char* id : {"fgd:unallocated_pct", "bound:unallocated_pct", "fgd:fragmentation_pct"})
    EXPECT_EQ(count_of(path_of(h, id), " L") + 1, 5u) << id;
  EXPECT_EQ(count_of(path_of(h, "frugal:unallocated_pct"), " L") + 1, 4u);
  EXPECT_EQ(path_of(h, "bound:fragmentation_pct"), "<missing>");  // no bound on fragmentation
  // The x axis in arrived %, not hours; the last tick is the last level.
  EXPECT_NE(h.find(">4%</text>"), std::string::npos);
  EXPECT_EQ(h.find("h</text>"), std::string::npos);
  // The levels table: a row per level, a cell per policy and the bound.
  EXPECT_NE(h.find("<tr data-arrived=\"4\">"), std::string::npos);
  EXPECT_NE(h.find("<td data-policy=\"fgd\" data-value=\"1.0\">1.00</td>"), std::string::npos);
  EXPECT_NE(h.find("<td data-policy=\"frugal\" data-value=\"0.5\">0.50</td>"), std::string::npos);
  EXPECT_NE(h.find("<td data-policy=\"bound\" data-value=\"0.0\">0.00</td>"), std::string::npos);
  // No job table, the data embedded.
  EXPECT_EQ(h.find("id=\"jobs\""), std::string::npos);
  EXPECT_NE(h.find("id=\"frugal-data\""), std::string::npos);
}

TEST(HtmlPack, PacksOwnJsonRendersTheSameAsWrapped) {
  // `frugal report --json` of pack --format json's own document.
  auto a = render_html_report(pack_doc(), {});
  auto b = render_html_report(json{{"pack", pack_doc()}}, {});
  ASSERT_TRUE(a.ok() && b.ok());
  const auto body = [](const std::string& h) { return h.substr(0, h.find("id=\"frugal-data\"")); };
  EXPECT_EQ(body(a.value()), body(b.value()));
}

TEST(HtmlPack, NamesWhatAMalformedDocumentLacks) {
  json d = pack_doc();
  d.erase("curves");
  auto r = render_html_report(json{{"pack", d}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("\"curves\""), std::string::npos) << r.error().message;
  d = pack_doc();
  d["curves"]["frugal"].erase("fragmentation_pct");
  r = render_html_report(json{{"pack", d}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("curves.frugal has no \"fragmentation_pct\""), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace frugal
