// The keys a bridge admits (proto::AllowedKeys, named by the cluster file's link_keys): its own
// key pair and each client's public key with its role.
#pragma once

#include <string>
#include <vector>

#include "net_bridge/link_keys.hpp"
#include "proto/task.pb.h"

namespace rfms {

struct AllowedKey {
  std::string name;
  Key key{};
  proto::ClientRole role = proto::CR_NONE;
};

struct BridgeKeys {
  KeyPair bridge;
  std::vector<AllowedKey> clients;
  // Any key is admitted, as an operator: a bridge started with --insecure (loopback only).
  bool insecure = false;
  // The allowed key `k`, or nullptr.
  const AllowedKey* find(const Key& k) const;
};

// Throws ConfigError naming the file and the entry at fault.
BridgeKeys loadBridgeKeys(const std::string& path);
// --insecure: a fresh bridge key pair, every key admitted.
BridgeKeys insecureBridgeKeys();

const char* roleName(proto::ClientRole role);

}  // namespace rfms
