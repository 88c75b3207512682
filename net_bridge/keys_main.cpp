// rfms-keys: makes keys.
//  - `client DIR NAME`: the link's (docs/link-protocol.md). A key directory holds the bridge's key
//    pair (bridge.key), the list of keys the bridge admits (allowed-keys.textproto, which the
//    cluster file's link_keys names), and one key file per client, NAME.key, to give to that client
//    alone (rfms-client --key NAME.key).
//  - `nodes DIR`: the nodes' own, for CURVE on tcp endpoints (docs/security.md): NODE.key for each
//    node and node-keys.textproto, the list every node admits; the cluster file's node_keys names DIR.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/error.hpp"
#include "net_bridge/allowed_keys.hpp"
#include "net_bridge/link_keys.hpp"
#include "runtime/node_keys.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-keys: make the keys of the link between client programs and rfms-bridge, or of the nodes"};
  app.require_subcommand(1);
  auto* client = app.add_subcommand(
      "client", "make a key for one client in DIR (the bridge's key and DIR/allowed-keys.textproto too, if new)");
  std::string dir, name, role = "operator";
  client->add_option("DIR", dir, "the key directory")->required();
  client->add_option("NAME", name, "who holds the key: letters, digits, '-' and '_', up to 64")->required();
  client->add_option("--role", role, "operator: tasks and motion; observer: status and stop only")
      ->capture_default_str()
      ->check(CLI::IsMember({"operator", "observer"}));
  auto* nodes = app.add_subcommand(
      "nodes",
      "make a key for every node (and the bridge) in DIR, and DIR/node-keys.textproto: the cluster's node_keys");
  std::string nodes_dir;
  nodes->add_option("DIR", nodes_dir, "the node key directory (must not hold node keys yet)")->required();
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  return guardedMain(
      [&] {
        if (nodes->parsed()) {
          makeNodeKeys(nodes_dir);
          for (const char* n : kKeyedNodes) loadNodeKeys(nodes_dir, n);  // as each node will load them
          std::cout << (fs::path(nodes_dir) / kNodeKeyList).string() << "\n";
          return 0;
        }
        if (name.empty() || name.size() > 64 ||
            name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
                std::string::npos)
          throw ConfigError("NAME '" + name + "': letters, digits, '-' and '_' only, 1 .. 64 of them");
        if (name == "bridge") throw ConfigError("NAME 'bridge' is the bridge's own key");
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) throw ConfigError("cannot make key directory " + dir + ": " + ec.message());
        chmod(dir.c_str(), 0700);
        const fs::path bridge_path = fs::path(dir) / "bridge.key", allowed = fs::path(dir) / "allowed-keys.textproto";
        const fs::path mine = fs::path(dir) / (name + ".key");
        if (fs::exists(mine)) throw ConfigError(mine.string() + " exists already; give another NAME");
        KeyFile bridge;
        if (fs::exists(bridge_path)) {
          bridge = loadKeyFile(bridge_path.string());
        } else {
          bridge.pair = KeyPair::generate();
          saveKeyFile(bridge_path.string(), bridge, "rfms-bridge's key pair: keep it secret");
        }
        if (!fs::exists(allowed)) {
          std::ofstream a(allowed);
          a << "# The keys rfms-bridge admits (rfms-keys adds one line per client; delete a line to revoke).\n"
               "bridge_key: \"bridge.key\"\n";
          if (!a) throw ConfigError("cannot write " + allowed.string());
        }
        KeyFile k;
        k.pair = KeyPair::generate();
        k.bridge = bridge.pair.public_key;
        k.has_bridge = true;
        saveKeyFile(mine.string(), k, "rfms link key of '" + name + "' (" + role + "): give it to that client alone");
        {
          std::ofstream a(allowed, std::ios::app);
          a << "client { name: \"" << name << "\" public_key: \"" << toHex(k.pair.public_key)
            << "\" role: " << (role == "operator" ? "CR_OPERATOR" : "CR_OBSERVER") << " }\n";
          a.close();
          if (!a) throw ConfigError("cannot append to " + allowed.string());
        }
        // The result must load as the bridge will load it.
        loadBridgeKeys(allowed.string());
        std::cout << mine.string() << "\n";
        return 0;
      },
      [&](const std::string& message) { std::cerr << "rfms-keys: " << message << "\n"; });
}
