// X25519 key pairs and the files that hold them, for the two places the cluster authenticates
// with keys: the link's clients and bridge (net_bridge/link_keys.hpp) and the nodes themselves on
// tcp endpoints (runtime/node_keys.hpp). libsodium makes and checks them.
//
// A key file is text, one "name: hex" per line: `public`, `secret`, and in a link client's file
// also `bridge` (the bridge's public key: the client talks to no other). rfms-keys makes them,
// readable by their owner only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace rfms {

using Key = std::array<unsigned char, 32>;

struct KeyPair {
  Key public_key{}, secret_key{};
  static KeyPair generate();
};

// A key file: the pair, and for a link client the bridge's public key (`has_bridge`).
struct KeyFile {
  std::string name;  // the file's own comment line, for messages
  KeyPair pair;
  Key bridge{};
  bool has_bridge = false;
};
// Throws ConfigError naming the file and line.
KeyFile loadKeyFile(const std::string& path);
// Writes it readable by its owner only.
void saveKeyFile(const std::string& path, const KeyFile& file, const std::string& comment);

std::string toHex(const unsigned char* bytes, std::size_t n);
template <std::size_t N>
std::string toHex(const std::array<unsigned char, N>& a) {
  return toHex(a.data(), N);
}
// False unless `hex` is exactly 2N hex digits.
bool fromHex(std::string_view hex, unsigned char* out, std::size_t n);

// Fills `out` with n random bytes (the system's generator).
void randomBytes(unsigned char* out, std::size_t n);
std::uint64_t randomNonZero64();

// libsodium's one-time set-up; throws Error when it cannot run.
void initSodium();

}  // namespace rfms
