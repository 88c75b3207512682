#include "net_bridge/link_keys.hpp"

#include <sodium.h>

#include "common/error.hpp"

namespace rfms {

namespace {

std::string_view bytesOf(const Nonce& n) { return {reinterpret_cast<const char*>(n.data()), n.size()}; }
std::string_view bytesOf(const Key& k) { return {reinterpret_cast<const char*>(k.data()), k.size()}; }

// The direction's key from a crypto_kx key and the handshake's nonces: each session its own.
Key directionKey(const unsigned char* kx, std::string_view label, const Nonce& nonce, const Key& challenge) {
  Key k;
  std::copy(kx, kx + k.size(), k.begin());
  std::string message(label);
  message += bytesOf(nonce);
  message += bytesOf(challenge);
  return keyedHash(k, message);
}

void derive(const unsigned char* c2b, const unsigned char* b2c, const Nonce& nonce, const Key& challenge,
            SessionKeys& keys) {
  keys.client_to_bridge = directionKey(c2b, "rfms-link c2b", nonce, challenge);
  keys.bridge_to_client = directionKey(b2c, "rfms-link b2c", nonce, challenge);
}

// crypto_kx's two keys, as the client or the bridge sees them, then each direction's own.
bool sessionKeys(const KeyPair& mine, const Key& peer, const Nonce& client_nonce, const Key& challenge, bool as_client,
                 SessionKeys& keys) {
  initSodium();
  unsigned char rx[crypto_kx_SESSIONKEYBYTES], tx[crypto_kx_SESSIONKEYBYTES];
  const int failed =
      as_client ? crypto_kx_client_session_keys(rx, tx, mine.public_key.data(), mine.secret_key.data(), peer.data())
                : crypto_kx_server_session_keys(rx, tx, mine.public_key.data(), mine.secret_key.data(), peer.data());
  if (failed == 0) {
    // The client sends with tx and the bridge receives with rx: the same key.
    if (as_client)
      derive(tx, rx, client_nonce, challenge, keys);
    else
      derive(rx, tx, client_nonce, challenge, keys);
  }
  sodium_memzero(rx, sizeof rx);
  sodium_memzero(tx, sizeof tx);
  return failed == 0;
}

}  // namespace

bool clientSessionKeys(const KeyPair& client, const Key& bridge_public, const Nonce& client_nonce, const Key& challenge,
                       SessionKeys& keys) {
  return sessionKeys(client, bridge_public, client_nonce, challenge, true, keys);
}

bool bridgeSessionKeys(const KeyPair& bridge, const Key& client_public, const Nonce& client_nonce, const Key& challenge,
                       SessionKeys& keys) {
  return sessionKeys(bridge, client_public, client_nonce, challenge, false, keys);
}

Key keyedHash(const Key& key, std::string_view message) {
  initSodium();
  Key out;
  crypto_auth_hmacsha512256(out.data(), reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                            key.data());
  return out;
}

Mac macOf(const Key& key, std::string_view bytes) { return keyedHash(key, bytes); }

bool macMatches(const Key& key, std::string_view bytes, const unsigned char* mac) {
  initSodium();
  return crypto_auth_hmacsha512256_verify(mac, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                                          key.data()) == 0;
}

}  // namespace rfms
