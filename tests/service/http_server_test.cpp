// HttpServer's handler lanes: GET requests for background_paths run on the low-priority lane
// (nice 19), everything else on the normal handler pool.
#include "service/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace frugal {
namespace {

TEST(HttpServer, BackgroundPathsRunAtTheLowestPriority) {
  HttpServerOptions o;
  o.handler_threads = 2;
  o.background_paths = {"/metrics"};
  HttpServer server(
      [](const HttpRequest& r) {
        HttpResponse resp;
        resp.content_type = "text/plain";
        // This thread's own nice value (Linux: PRIO_PROCESS with a thread id).
        resp.body =
            r.method + " " + std::to_string(getpriority(PRIO_PROCESS, static_cast<id_t>(gettid())));
        return resp;
      },
      [](int status, const std::string& message) {
        HttpResponse resp;
        resp.status = status;
        resp.body = message;
        return resp;
      },
      o);
  ASSERT_TRUE(server.bind("127.0.0.1", 0).ok());
  std::thread serving([&] { (void)server.serve(); });
  httplib::Client c("127.0.0.1", server.port());
  const int normal = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
  auto metrics = c.Get("/metrics?x=1");
  auto other = c.Get("/v1/jobs");
  auto posted = c.Post("/metrics", "", "text/plain");  // only GET goes to the lane
  server.stop();
  serving.join();
  ASSERT_TRUE(metrics && other && posted);
  EXPECT_EQ(metrics->body, "GET 19");  // lowering one's own priority needs no privilege
  EXPECT_EQ(other->body, "GET " + std::to_string(normal));
  EXPECT_EQ(posted->body, "POST " + std::to_string(normal));
}

}  // namespace
}  // namespace frugal
