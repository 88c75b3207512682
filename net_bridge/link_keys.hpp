// Keys of the link: every client and the bridge hold an X25519 key pair (libsodium's crypto_kx).
// A session's two keys (one per direction) come from the pair's shared secret and the nonces of
// its handshake, so that no two sessions share a key; every frame after the HELLO carries
// HMAC-SHA-512-256 over its bytes. docs/link-protocol.md gives each step with its inputs.
//
// Key pairs and key files: common/key_file.hpp.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "keys/key_file.hpp"

namespace rfms {

using Nonce = std::array<unsigned char, 24>;
using Mac = std::array<unsigned char, 32>;

// The two keys of one session.
struct SessionKeys {
  Key client_to_bridge{}, bridge_to_client{};
};
// False when the peer's public key is unusable (a weak point of the curve).
bool clientSessionKeys(const KeyPair& client, const Key& bridge_public, const Nonce& client_nonce, const Key& challenge,
                       SessionKeys& keys);
bool bridgeSessionKeys(const KeyPair& bridge, const Key& client_public, const Nonce& client_nonce, const Key& challenge,
                       SessionKeys& keys);

Mac macOf(const Key& key, std::string_view bytes);
// Constant time.
bool macMatches(const Key& key, std::string_view bytes, const unsigned char* mac);
// HMAC-SHA-512-256 of `message` under `key`, as the handshake's challenge and the derivations use it.
Key keyedHash(const Key& key, std::string_view message);

}  // namespace rfms
