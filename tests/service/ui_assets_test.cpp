// The dashboard's assets (service/ui_assets.h) served by the HTTP API in-process: /ui gives
// index.html with its Content-Security-Policy, app.js and app.css come with their types and
// exactly the bytes of ui/ (so does the icon), and an unknown /ui/ path or a POST is refused.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "scheduler_fixture.h"
#include "service/auth.h"
#include "service/http_api.h"

namespace frugal {
namespace {

std::string read_source(const std::string& rel) {
  std::ifstream in(std::string(FRUGAL_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class UiAssets : public ::testing::Test {
 protected:
  void SetUp() override {
    scheduler_ = fixture_.make();
    api_ = std::make_unique<HttpApi>(*scheduler_, auth_, fixture_.catalog, RequestLimits{},
                                     HttpOptions{});
    ASSERT_TRUE(api_->bind("127.0.0.1", 0).ok());
    serving_ = std::thread([this] { (void)api_->serve(); });
  }
  void TearDown() override {
    api_->stop();
    serving_.join();
  }
  httplib::Client client() { return httplib::Client("127.0.0.1", api_->port()); }

  sched_test::Fixture fixture_;
  Authenticator auth_{{}, ""};
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<HttpApi> api_;
  std::thread serving_;
};

TEST_F(UiAssets, IndexIsHtmlWithAStrictContentSecurityPolicy) {
  auto c = client();
  const std::string index = read_source("ui/index.html");
  ASSERT_FALSE(index.empty());
  for (const char* path : {"/ui", "/ui/", "/ui/index.html"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8") << path;
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-cache") << path;
    const std::string csp = r->get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'self'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("script-src 'self';"), std::string::npos) << csp;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
    EXPECT_EQ(r->body, index) << path;
  }
}

TEST_F(UiAssets, ScriptAndStyleAreTheFilesOfUiWithTheirTypes) {
  auto c = client();
  const std::pair<const char*, const char*> assets[] = {
      {"app.js", "text/javascript; charset=utf-8"},
      {"app.css", "text/css; charset=utf-8"},
      {"icon.svg", "image/svg+xml"}};
  for (const auto& [name, type] : assets) {
    auto r = c.Get(std::string("/ui/") + name);
    ASSERT_TRUE(r) << name;
    EXPECT_EQ(r->status, 200) << name;
    EXPECT_EQ(r->get_header_value("Content-Type"), type) << name;
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-cache") << name;
    EXPECT_FALSE(r->get_header_value("Content-Security-Policy").empty()) << name;
    const std::string file = read_source(std::string("ui/") + name);
    ASSERT_FALSE(file.empty()) << name;
    EXPECT_EQ(r->body, file) << name;  // byte-identical
  }
}

TEST_F(UiAssets, UnknownPathsAndOtherMethodsAreRefused) {
  auto c = client();
  for (const char* path : {"/ui/x", "/ui/app.js/x", "/ui/../CMakeLists.txt", "/uix"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
  }
  auto posted = c.Post("/ui", "", "text/plain");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 405);
  EXPECT_EQ(posted->get_header_value("Allow"), "GET");
  // The API itself still wants a token: the page holds no data.
  auto jobs = c.Get("/v1/jobs");
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->status, 401);
}

}  // namespace
}  // namespace frugal
