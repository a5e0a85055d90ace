#pragma once
// Why a plugin said no, as a value: a code a program can branch on and a reason a person can
// read (after the Kubernetes scheduling framework's Status). kUnschedulable: not now — the
// job may run once capacity frees or a wait ends; kUnresolvable: not on this cluster as it
// is, whatever frees up (it waits for a node to be repaired or added, or a spec change).

#include <cstdint>
#include <string>

namespace frugal {

struct PluginStatus {
  enum class Code : uint8_t { kSuccess, kUnschedulable, kUnresolvable };
  Code code = Code::kSuccess;
  std::string point;   // the extension point that said no: "admit", "filter", "place", ...
  std::string reason;  // names the plugin and the resource at fault

  bool ok() const { return code == Code::kSuccess; }
  static PluginStatus no(Code code, std::string point, std::string reason) {
    return {code, std::move(point), std::move(reason)};
  }
};

inline const char* to_string(PluginStatus::Code c) {
  switch (c) {
    case PluginStatus::Code::kSuccess:
      return "success";
    case PluginStatus::Code::kUnschedulable:
      return "unschedulable";
    case PluginStatus::Code::kUnresolvable:
      return "unresolvable";
  }
  return "?";
}

}  // namespace frugal
