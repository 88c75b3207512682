// Key files and the bridge's allowed keys: what rfms-keys writes loads back, and every way a hand-
// edited file can be wrong is refused with the file, line or entry named.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "common/error.hpp"
#include "net_bridge/allowed_keys.hpp"
#include "net_bridge/link_keys.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(KeyFile, SavedLoadsBackOwnerOnlyAndAMismatchedPairIsRefused) {
  const fs::path dir = test::makeUniqueDir("rfms-keyfile");
  KeyFile k;
  k.pair = KeyPair::generate();
  k.bridge = KeyPair::generate().public_key;
  k.has_bridge = true;
  const std::string path = (dir / "c.key").string();
  saveKeyFile(path, k, "a test key");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const KeyFile back = loadKeyFile(path);
  EXPECT_EQ(back.pair.public_key, k.pair.public_key);
  EXPECT_EQ(back.pair.secret_key, k.pair.secret_key);
  EXPECT_EQ(back.bridge, k.bridge);
  EXPECT_TRUE(back.has_bridge);
  // Another pair's public key with this secret key.
  std::ofstream(path) << "public: " << toHex(KeyPair::generate().public_key) << "\nsecret: " << toHex(k.pair.secret_key)
                      << "\n";
  EXPECT_NE(refusal([&] { loadKeyFile(path); }).find("is not the secret key's"), std::string::npos);
  std::ofstream(path) << "public: 12ab\n";
  EXPECT_NE(refusal([&] { loadKeyFile(path); }).find("c.key:1: public: must be 64 hex digits"), std::string::npos);
  std::ofstream(path) << "# x\nprivate: 00\n";
  EXPECT_NE(refusal([&] { loadKeyFile(path); }).find("c.key:2: unknown entry 'private'"), std::string::npos);
  fs::remove_all(dir);
}

TEST(AllowedKeys, RolesLoadAndEveryBadEntryIsNamed) {
  const fs::path dir = test::makeUniqueDir("rfms-allowed");
  KeyFile bridge;
  bridge.pair = KeyPair::generate();
  saveKeyFile((dir / "bridge.key").string(), bridge, "bridge");
  const KeyPair op = KeyPair::generate(), eye = KeyPair::generate();
  const std::string path = (dir / "allowed.textproto").string();
  auto write = [&](const std::string& clients) { std::ofstream(path) << "bridge_key: \"bridge.key\"\n" << clients; };
  const std::string op_line =
      "client { name: \"op\" public_key: \"" + toHex(op.public_key) + "\" role: CR_OPERATOR }\n";
  write(op_line + "client { name: \"eye\" public_key: \"" + toHex(eye.public_key) + "\" role: CR_OBSERVER }\n");
  const BridgeKeys keys = loadBridgeKeys(path);
  EXPECT_EQ(keys.bridge.public_key, bridge.pair.public_key);
  ASSERT_NE(keys.find(op.public_key), nullptr);
  EXPECT_EQ(keys.find(op.public_key)->role, proto::CR_OPERATOR);
  ASSERT_NE(keys.find(eye.public_key), nullptr);
  EXPECT_EQ(keys.find(eye.public_key)->role, proto::CR_OBSERVER);
  EXPECT_EQ(keys.find(KeyPair::generate().public_key), nullptr);
  EXPECT_FALSE(keys.insecure);

  write("");
  EXPECT_NE(refusal([&] { loadBridgeKeys(path); }).find("no client keys"), std::string::npos);
  write(op_line + op_line);
  EXPECT_NE(refusal([&] { loadBridgeKeys(path); }).find("client 2 ('op'): public_key: listed twice"),
            std::string::npos);
  write("client { name: \"x\" public_key: \"" + toHex(op.public_key) + "\" }\n");
  EXPECT_NE(refusal([&] { loadBridgeKeys(path); }).find("client 1 ('x'): role"), std::string::npos);
  write("client { name: \"x\" public_key: \"zz\" role: CR_OPERATOR }\n");
  EXPECT_NE(refusal([&] { loadBridgeKeys(path); }).find("public_key: must be 64 hex digits"), std::string::npos);
  std::ofstream(path) << "client { name: \"op\" public_key: \"" << toHex(op.public_key) << "\" role: CR_OPERATOR }\n";
  EXPECT_NE(refusal([&] { loadBridgeKeys(path); }).find("bridge_key: missing"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rfms
