// The configuration loaders, each given the same crafted file: a robot model, a scene, a cluster
// file, a link key file, a bridge's allowed keys and a node key list. Only the project's own errors are an answer.
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "common/scene.hpp"
#include "fuzz/fuzz_input.hpp"
#include "net_bridge/allowed_keys.hpp"
#include "net_bridge/link_keys.hpp"
#include "runtime/cluster_config.hpp"
#include "runtime/node_keys.hpp"

namespace {
template <class F>
void refusedOrLoaded(F&& load) {
  try {
    load();
  } catch (const rfms::Error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = rfms::fuzz::text(data, size);
  refusedOrLoaded([&] { rfms::parseRobotModel(text, "fuzz.textproto"); });
  const rfms::fuzz::MemoryFile file(data, size);
  refusedOrLoaded([&] { rfms::loadScene(file.path()); });
  refusedOrLoaded([&] { rfms::loadClusterConfig(file.path(), "/tmp"); });
  refusedOrLoaded([&] { rfms::loadKeyFile(file.path()); });
  refusedOrLoaded([&] { rfms::loadBridgeKeys(file.path()); });
  refusedOrLoaded([&] { rfms::parseNodeKeyList(text, "node-keys.textproto"); });
  return 0;
}
