// The nodes' keys for ZeroMQ's CURVE on tcp endpoints: this node's own pair and every node's public
// key (proto::NodeKeyList). A node that binds a tcp endpoint admits the keys of the list and no
// other; a node that connects checks that it reached the binder's key and none other.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keys/key_file.hpp"

namespace rfms {

// Everyone who holds a node key: the nine nodes and rfms-bridge (to reach the task endpoint).
inline constexpr std::array<const char*, 10> kKeyedNodes = {"arm",    "math",   "joint1", "joint2",     "joint3",
                                                            "joint4", "joint5", "joint6", "supervisor", "bridge"};

struct NodeKeys {
  std::string me;  // this node's name; "" when the transport runs without CURVE
  KeyPair mine;
  std::vector<std::pair<std::string, Key>> nodes;  // every node's name and public key
  // The public key of node `name`, or nullptr.
  const Key* publicKeyOf(std::string_view name) const;
  // The node whose key `k` is, or "".
  std::string nameOf(const Key& k) const;
};

// The list file in a node key directory.
inline constexpr const char* kNodeKeyList = "node-keys.textproto";

// Every node's public key from the text of a node key list (`path` names it in messages); throws
// ConfigError as loadNodeKeys does.
std::vector<std::pair<std::string, Key>> parseNodeKeyList(const std::string& text, const std::string& path);

// Loads DIR/NAME.key and DIR/node-keys.textproto. Throws ConfigError naming the file and what is
// wrong: a missing file, an unknown or repeated node, a key that is not 64 hex digits, two nodes
// sharing a key, or a pair that is not the one the list gives for `node`.
NodeKeys loadNodeKeys(const std::string& dir, const std::string& node);

// A new key pair for every node in DIR (made private to this user) and the list. Refuses a
// directory that holds a list already: replacing keys is a decision, not a side effect.
void makeNodeKeys(const std::string& dir);

}  // namespace rfms
