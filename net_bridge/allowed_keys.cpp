#include "net_bridge/allowed_keys.hpp"

#include <filesystem>

#include "common/error.hpp"
#include "common/text_file.hpp"
#include "common/text_proto.hpp"
#include "proto/cluster.pb.h"

namespace rfms {

const AllowedKey* BridgeKeys::find(const Key& k) const {
  for (const AllowedKey& a : clients)
    if (a.key == k) return &a;
  return nullptr;
}

BridgeKeys loadBridgeKeys(const std::string& path) {
  proto::AllowedKeys file;
  parseTextProto(loadTextFile(path, "allowed keys"), file, path);
  if (file.bridge_key().empty()) throw ConfigError(path + ": bridge_key: missing (the bridge's own key file)");
  std::filesystem::path own(file.bridge_key());
  if (own.is_relative()) own = std::filesystem::path(path).parent_path() / own;
  BridgeKeys keys;
  keys.bridge = loadKeyFile(own.string()).pair;
  for (int i = 0; i < file.client_size(); ++i) {
    const proto::AllowedClient& c = file.client(i);
    const std::string where = path + ": client " + std::to_string(i + 1) + " ('" + c.name() + "'): ";
    if (c.name().empty() || c.name().size() > 64) throw ConfigError(where + "name: 1 .. 64 characters");
    AllowedKey a;
    a.name = c.name();
    if (!fromHex(c.public_key(), a.key.data(), a.key.size()))
      throw ConfigError(where + "public_key: must be 64 hex digits (a 32-byte key)");
    if (c.role() != proto::CR_OBSERVER && c.role() != proto::CR_OPERATOR)
      throw ConfigError(where + "role: must be CR_OBSERVER or CR_OPERATOR");
    a.role = c.role();
    if (keys.find(a.key) != nullptr) throw ConfigError(where + "public_key: listed twice");
    if (a.key == keys.bridge.public_key) throw ConfigError(where + "public_key: is the bridge's own key");
    keys.clients.push_back(a);
  }
  if (keys.clients.empty()) throw ConfigError(path + ": no client keys: nobody could use this bridge");
  return keys;
}

BridgeKeys insecureBridgeKeys() {
  BridgeKeys keys;
  keys.bridge = KeyPair::generate();
  keys.insecure = true;
  return keys;
}

const char* roleName(proto::ClientRole role) {
  switch (role) {
    case proto::CR_OBSERVER: return "observer";
    case proto::CR_OPERATOR: return "operator";
    default: return "none";
  }
}

}  // namespace rfms
