// Validation of POST /v1/jobs bodies: every bad field is named.

#include "service/job_request.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "io/catalog_yaml.h"

namespace frugal {
namespace {

const GpuCatalog& catalog() {
  static const GpuCatalog c = load_builtin_catalog().value();
  return c;
}

std::string field_of(const std::string& body) {
  const auto j = nlohmann::json::parse(body);
  const auto r = parse_job_request(j, catalog(), RequestLimits{});
  if (const auto* e = std::get_if<FieldError>(&r)) return e->field;
  return "";
}

TEST(JobRequest, OnlyCommandIsRequired) {
  const auto r =
      parse_job_request(nlohmann::json::parse(R"({"command":"true"})"), catalog(), RequestLimits{});
  ASSERT_TRUE(std::holds_alternative<JobRequest>(r));
  const JobRequest& q = std::get<JobRequest>(r);
  EXPECT_EQ(q.gpus, 1);
  EXPECT_EQ(q.gpu_milli, 1000);
  EXPECT_EQ(q.tier, Tier::kGeneral);
  EXPECT_EQ(q.checkpoint_signal, 10);
}

TEST(JobRequest, FullRequestRoundTrips) {
  const auto j = nlohmann::json::parse(
      R"({"name":"n","command":"c","workdir":"/tmp","env":{"B":"2","A":"1"},"gpus":1,
          "gpu_milli":250,"gpu_model":"a100","class":"finetune","tier":"core",
          "deadline":1800000000,"deferrable":true,"min_gpus":0,"max_gpus":0,
          "checkpoint_signal":"SIGUSR2","grace_s":5})");
  const auto r = parse_job_request(j, catalog(), RequestLimits{});
  ASSERT_TRUE(std::holds_alternative<JobRequest>(r));
  const JobRequest& q = std::get<JobRequest>(r);
  EXPECT_EQ(q.gpu_model, "A100-80GB");  // canonical
  EXPECT_EQ(q.env.front().first, "A");  // sorted
  EXPECT_EQ(q.checkpoint_signal, 12);
  const auto back = job_request_from_stored(to_json(q));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(to_json(back.value()), to_json(q));
}

TEST(JobRequest, EveryBadFieldIsNamed) {
  EXPECT_EQ(field_of(R"([1,2])"), "body");
  EXPECT_EQ(field_of(R"({})"), "command");
  EXPECT_EQ(field_of(R"({"command":""})"), "command");
  EXPECT_EQ(field_of(R"({"command":5})"), "command");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":-3})"), "gpus");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":1.5})"), "gpus");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":"2"})"), "gpus");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":100000})"), "gpus");
  EXPECT_EQ(field_of(R"({"command":"x","gpu_milli":0})"), "gpu_milli");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":2,"gpu_milli":500})"), "gpu_milli");
  EXPECT_EQ(field_of(R"({"command":"x","gpu_model":"Z9000"})"), "gpu_model");
  EXPECT_EQ(field_of(R"({"command":"x","class":"party"})"), "class");
  EXPECT_EQ(field_of(R"({"command":"x","tier":"gold"})"), "tier");
  EXPECT_EQ(field_of(R"({"command":"x","deadline":-1})"), "deadline");
  EXPECT_EQ(field_of(R"({"command":"x","deferrable":"yes"})"), "deferrable");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":2,"min_gpus":3})"), "min_gpus");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":2,"max_gpus":1})"), "max_gpus");
  // Elastic bounds: whole GPUs only, and min_gpus below gpus only with max_gpus above it.
  EXPECT_EQ(field_of(R"({"command":"x","gpu_milli":500,"max_gpus":2})"), "max_gpus");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":0,"max_gpus":2})"), "max_gpus");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":2,"min_gpus":1})"), "min_gpus");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":2,"min_gpus":1,"max_gpus":4})"), "");
  EXPECT_EQ(field_of(R"({"command":"x","checkpoint_signal":"SIGFOO"})"), "checkpoint_signal");
  EXPECT_EQ(field_of(R"({"command":"x","checkpoint_signal":9})"), "checkpoint_signal");
  EXPECT_EQ(field_of(R"({"command":"x","grace_s":1000})"), "grace_s");
  EXPECT_EQ(field_of(R"({"command":"x","workdir":"rel/path"})"), "workdir");
  EXPECT_EQ(field_of(R"({"command":"x","env":{"1BAD":"v"}})"), "env");
  EXPECT_EQ(field_of(R"({"command":"x","env":{"A":1}})"), "env");
  EXPECT_EQ(field_of(R"({"command":"x","env":["A=1"]})"), "env");
  EXPECT_EQ(field_of(R"({"command":"x","colour":"blue"})"), "colour");
  // Found by a review: a signal number past 32 bits wrapped (2^32 + 10 became SIGUSR1);
  // "" was taken as the default class or tier; a 900 kB environment value was accepted and
  // the job then failed at exec (E2BIG).
  EXPECT_EQ(field_of(R"({"command":"x","checkpoint_signal":4294967306})"), "checkpoint_signal");
  EXPECT_EQ(field_of(R"({"command":"x","checkpoint_signal":18446744073709551615})"),
            "checkpoint_signal");
  EXPECT_EQ(field_of(R"({"command":"x","checkpoint_signal":-4294967286})"), "checkpoint_signal");
  EXPECT_EQ(field_of(R"({"command":"x","checkpoint_signal":12})"), "");
  EXPECT_EQ(field_of(R"({"command":"x","class":""})"), "class");
  EXPECT_EQ(field_of(R"({"command":"x","gpus":0,"gpu_model":"H100"})"), "gpu_model");
  EXPECT_EQ(field_of(R"({"command":"x","tier":""})"), "tier");
  EXPECT_EQ(field_of(R"({"command":"x","tier":null,"class":null})"), "");
  EXPECT_EQ(field_of(R"({"command":"x","env":{"A":")" + std::string(131070, 'v') + R"("}})"),
            "env");
  EXPECT_EQ(field_of(R"({"command":"x","env":{"A":")" + std::string(131069, 'v') + R"("}})"), "");
}

// Sharing measured idle: a guest is one card, fractional or general tier, never elastic.
TEST(JobRequest, SharingFields) {
  EXPECT_EQ(field_of(R"({"command":"x","lend_idle":"yes"})"), "lend_idle");
  EXPECT_EQ(field_of(R"({"command":"x","opportunistic":1})"), "opportunistic");
  EXPECT_EQ(field_of(R"({"command":"x","opportunistic":true,"gpus":2})"), "opportunistic");
  EXPECT_EQ(field_of(R"({"command":"x","opportunistic":true,"tier":"core"})"), "opportunistic");
  EXPECT_EQ(field_of(R"({"command":"x","opportunistic":true,"gpus":1,"max_gpus":2})"),
            "opportunistic");
  EXPECT_EQ(field_of(R"({"command":"x","opportunistic":true,"tier":"core","gpu_milli":500})"), "");
  EXPECT_EQ(field_of(R"({"command":"x","opportunistic":true})"), "");  // general tier
  EXPECT_EQ(field_of(R"({"command":"x","lend_idle":true,"gpus":8})"), "");
  const auto r = parse_job_request(
      nlohmann::json::parse(R"({"command":"x","lend_idle":true,"opportunistic":true})"), catalog(),
      RequestLimits{});
  const JobRequest& q = std::get<JobRequest>(r);
  const Result<JobRequest> back = job_request_from_stored(to_json(q));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back.value().lend_idle);
  EXPECT_TRUE(back.value().opportunistic);
}

TEST(JobRequest, SignalNames) {
  EXPECT_EQ(parse_signal("SIGUSR1"), 10);
  EXPECT_EQ(parse_signal("USR1"), 10);
  EXPECT_EQ(parse_signal("15"), 15);
  EXPECT_EQ(parse_signal("0"), 0);
  EXPECT_EQ(parse_signal("SIG"), 0);
  EXPECT_EQ(parse_signal("99"), 0);
}

// The field table (job_request_fields) is what the parser accepts, what to_json writes and
// what `frugal submit` makes flags of: the three cannot drift apart.
TEST(JobRequest, FieldTableMatchesStoredFormAndParser) {
  const nlohmann::json stored = to_json(JobRequest{});
  std::set<std::string> table;
  for (const RequestField& f : job_request_fields()) {
    EXPECT_TRUE(table.insert(f.name).second) << "twice: " << f.name;
    EXPECT_TRUE(stored.contains(f.name)) << "to_json lacks " << f.name;
    EXPECT_EQ(std::string(f.flag).empty(), std::string(f.name) == "command") << f.name;
    // Known to the parser: the stored default value of each field parses.
    if (std::string(f.name) == "command") continue;  // given below; "" is refused
    nlohmann::json body = {{"command", "true"}};
    body[f.name] = stored[f.name];
    if (std::string(f.name) == "grace_s") body[f.name] = 1.0;      // stored -1: "the service's"
    if (std::string(f.name) == "estimate_s") body[f.name] = 60.0;  // stored 0: "predicted"
    const auto r = parse_job_request(body, catalog(), RequestLimits{});
    const auto* e = std::get_if<FieldError>(&r);
    EXPECT_EQ(e, nullptr) << f.name << ": " << (e ? e->field + " " + e->message : "");
  }
  for (const auto& [key, value] : stored.items()) EXPECT_TRUE(table.count(key)) << key;
}

// A list field (kList: `frugal submit --dataset`, repeatable) is an array in the stored form;
// list_item_error is the parser's own check of each item, so the CLI refuses what the service
// would, in the same words.
TEST(JobRequest, ListFieldsAreArraysCheckedItemByItem) {
  const nlohmann::json stored = to_json(JobRequest{});
  size_t lists = 0;
  for (const RequestField& f : job_request_fields())
    if (f.kind == RequestField::Kind::kList) {
      ++lists;
      EXPECT_TRUE(stored[f.name].is_array()) << f.name;
    }
  EXPECT_EQ(lists, 1u);  // datasets
  EXPECT_EQ(list_item_error(kDatasetsField, "corpus@v1", {}), "");
  EXPECT_NE(list_item_error(kDatasetsField, "corpus", {}).find("not name@version"),
            std::string::npos);
  EXPECT_NE(list_item_error(kDatasetsField, "a/b@v1", {}).find("not name@version"),
            std::string::npos);
  EXPECT_NE(list_item_error(kDatasetsField, "corpus@v1", {"corpus@v1"}).find("listed twice"),
            std::string::npos);
  for (const char* bad : {"corpus", "@v1", "corpus@"}) {
    const auto r = parse_job_request({{"command", "true"}, {"datasets", {"x@1", bad}}}, catalog(),
                                     RequestLimits{});
    const auto* e = std::get_if<FieldError>(&r);
    ASSERT_NE(e, nullptr) << bad;
    EXPECT_EQ(e->field, "datasets");
    EXPECT_EQ(e->message, list_item_error(kDatasetsField, bad, {"x@1"}));
  }
  const auto r = parse_job_request({{"command", "true"}, {"datasets", {"b@2", "a@1"}}}, catalog(),
                                   RequestLimits{});
  ASSERT_TRUE(std::holds_alternative<JobRequest>(r));
  EXPECT_EQ(std::get<JobRequest>(r).datasets, (std::vector<std::string>{"b@2", "a@1"}));
  EXPECT_EQ(to_json(std::get<JobRequest>(r))["datasets"], nlohmann::json({"b@2", "a@1"}));
}

TEST(JobRequest, SimulationOnlyFieldsAreRefusedNamingTheBackend) {
  RequestLimits limits;
  limits.backend = "slurm";
  for (const std::string& f : simulation_only_fields()) {
    nlohmann::json body = {{"command", "true"}, {f, true}};
    const auto r = parse_job_request(body, catalog(), limits);
    const auto* e = std::get_if<FieldError>(&r);
    ASSERT_NE(e, nullptr) << f;
    EXPECT_EQ(e->field, f);
    EXPECT_NE(e->message.find("slurm backend"), std::string::npos) << e->message;
  }
}

}  // namespace
}  // namespace frugal
