#pragma once
// The prompt-release cycle plugin (profile suffix +release), at the Release point: an idle
// on-demand node is handed back at the next autoscaling step rather than after its pool's
// idle timeout, unless deferred work falls due within that timeout
// (NodePool::set_prompt_release).

#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

class PromptRelease final : public CyclePlugin {
 public:
  std::string name() const override { return "release"; }
  bool prompt_release() const override { return true; }
};

inline std::unique_ptr<CyclePlugin> make_prompt_release() {
  return std::make_unique<PromptRelease>();
}

}  // namespace frugal
