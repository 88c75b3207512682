#include "runtime/node_keys.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "common/text_file.hpp"
#include "common/text_proto.hpp"
#include "proto/cluster.pb.h"

namespace rfms {

namespace fs = std::filesystem;

const Key* NodeKeys::publicKeyOf(std::string_view name) const {
  for (const auto& [n, k] : nodes)
    if (n == name) return &k;
  return nullptr;
}

std::string NodeKeys::nameOf(const Key& k) const {
  for (const auto& [n, key] : nodes)
    if (key == k) return n;
  return "";
}

std::vector<std::pair<std::string, Key>> parseNodeKeyList(const std::string& text, const std::string& path) {
  proto::NodeKeyList list;
  parseTextProto(text, list, path);
  NodeKeys keys;
  for (int i = 0; i < list.node_size(); ++i) {
    const proto::NodeKey& entry = list.node(i);
    const std::string where = path + ": node " + std::to_string(i + 1) + " ('" + entry.name().substr(0, 64) + "'): ";
    if (std::find(kKeyedNodes.begin(), kKeyedNodes.end(), entry.name()) == kKeyedNodes.end())
      throw ConfigError(where + "not a node (arm, math, joint1 .. joint6, supervisor, bridge)");
    if (keys.publicKeyOf(entry.name()) != nullptr) throw ConfigError(where + "listed twice");
    Key k;
    if (!fromHex(entry.public_key(), k.data(), k.size()))
      throw ConfigError(where + "public_key must be 64 hex digits (a 32-byte key)");
    if (const std::string other = keys.nameOf(k); !other.empty())
      throw ConfigError(where + "has the same key as " + other + ": each node needs its own");
    keys.nodes.emplace_back(entry.name(), k);
  }
  return std::move(keys.nodes);
}

NodeKeys loadNodeKeys(const std::string& dir, const std::string& node) {
  const std::string list_path = (fs::path(dir) / kNodeKeyList).string();
  const std::string mine_path = (fs::path(dir) / (node + ".key")).string();
  const std::string hint = " (rfms-keys nodes DIR makes a node key directory; deploy/rfms up makes one for its run)";
  if (!fs::is_directory(dir)) throw ConfigError("'" + dir + "' is not a directory" + hint);
  NodeKeys keys;
  keys.me = node;
  keys.nodes = parseNodeKeyList(loadTextFile(list_path, "node key list"), list_path);
  const Key* listed = keys.publicKeyOf(node);
  if (listed == nullptr) throw ConfigError(list_path + ": lists no key for " + node);
  keys.mine = loadKeyFile(mine_path).pair;
  if (keys.mine.public_key != *listed)
    throw ConfigError(mine_path + ": not the key " + list_path + " lists for " + node + " (keys of another cluster?)");
  return keys;
}

void makeNodeKeys(const std::string& dir) {
  const fs::path list_path = fs::path(dir) / kNodeKeyList;
  if (fs::exists(list_path))
    throw ConfigError(list_path.string() + " exists already: a node key directory is made once");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError("cannot make node key directory " + dir + ": " + ec.message());
  chmod(dir.c_str(), 0700);
  std::string list = "# The keys of the cluster's nodes: a node binding a tcp endpoint admits these and no other.\n";
  for (const char* name : kKeyedNodes) {
    KeyFile f;
    f.pair = KeyPair::generate();
    saveKeyFile((fs::path(dir) / (std::string(name) + ".key")).string(), f,
                std::string("rfms node key of ") + name + ": keep it on that node's host only");
    list += "node { name: \"" + std::string(name) + "\" public_key: \"" + toHex(f.pair.public_key) + "\" }\n";
  }
  std::ofstream out(list_path);
  out << list;
  out.close();
  if (!out) throw ConfigError("cannot write " + list_path.string());
}

}  // namespace rfms
