#pragma once
// What a plugin keeps between calls — a table built once, a plan rebuilt when the cycle's
// time moves on — held by the view it is called with (the engine: one per engine) instead of
// in `mutable` members of the plugin. A plugin asks for its own slot with
// `v.plugin_state().of<MyState>(this)`: created empty (value-initialised) on first use,
// then the same object on every later call through that view, for the view's lifetime. The
// plugin decides when its contents are stale (e.g. keyed by CycleView::now()); plugins' hooks
// stay const, their state is visible in one place and owned by the engine that runs them, and
// one plugin object used by two engines would keep two states.
//
// Not thread-safe: one view, one thread.

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace frugal {

// Base of a plugin's state.
class PluginState {
 public:
  virtual ~PluginState() = default;
};

class PluginStates {
 public:
  // The slot of `owner` (a plugin), of type T; created on first use. A second type asked for
  // the same owner is a programming error (the slot keeps its first type).
  template <class T>
  T& of(const void* owner) {
    static_assert(std::is_base_of_v<PluginState, T>);
    for (auto& [o, s] : slots_)  // a handful of stateful plugins per profile: linear
      if (o == owner) return static_cast<T&>(*s);
    slots_.emplace_back(owner, std::make_unique<T>());
    return static_cast<T&>(*slots_.back().second);
  }

 private:
  std::vector<std::pair<const void*, std::unique_ptr<PluginState>>> slots_;
};

}  // namespace frugal
