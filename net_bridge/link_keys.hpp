// Keys of the link: every client and the bridge hold an X25519 key pair (libsodium's crypto_kx).
// A session's two keys (one per direction) come from the pair's shared secret and the nonces of
// its handshake, so that no two sessions share a key; every frame after the HELLO carries
// HMAC-SHA-512-256 over its bytes. docs/link-protocol.md gives each step with its inputs.
//
// Key files are text, one "name: hex" per line: `public`, `secret`, and in a client's file also
// `bridge` (the bridge's public key: the client talks to no other). Made by rfms-keys.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace rfms {

using Key = std::array<unsigned char, 32>;
using Nonce = std::array<unsigned char, 24>;
using Mac = std::array<unsigned char, 32>;

struct KeyPair {
  Key public_key{}, secret_key{};
  static KeyPair generate();
};

// A key file: the pair, and for a client the bridge's public key (`has_bridge`).
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
std::string toHex(const std::array<unsigned char, N>& a) { return toHex(a.data(), N); }
// False unless `hex` is exactly 2N hex digits.
bool fromHex(std::string_view hex, unsigned char* out, std::size_t n);

// Fills `out` with n random bytes (the system's generator).
void randomBytes(unsigned char* out, std::size_t n);
std::uint64_t randomNonZero64();

// The two keys of one session.
struct SessionKeys {
  Key client_to_bridge{}, bridge_to_client{};
};
// False when the peer's public key is unusable (a weak point of the curve).
bool clientSessionKeys(const KeyPair& client, const Key& bridge_public, const Nonce& client_nonce,
                       const Key& challenge, SessionKeys& keys);
bool bridgeSessionKeys(const KeyPair& bridge, const Key& client_public, const Nonce& client_nonce,
                       const Key& challenge, SessionKeys& keys);

Mac macOf(const Key& key, std::string_view bytes);
// Constant time.
bool macMatches(const Key& key, std::string_view bytes, const unsigned char* mac);
// HMAC-SHA-512-256 of `message` under `key`, as the handshake's challenge and the derivations use it.
Key keyedHash(const Key& key, std::string_view message);

}  // namespace rfms
