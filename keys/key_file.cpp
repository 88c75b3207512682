#include "keys/key_file.hpp"

#include <sodium.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/text_file.hpp"

namespace rfms {

void initSodium() {
  static const bool ready = sodium_init() >= 0;
  if (!ready) throw Error("libsodium could not be initialised");
}

KeyPair KeyPair::generate() {
  initSodium();
  KeyPair p;
  crypto_kx_keypair(p.public_key.data(), p.secret_key.data());
  return p;
}

std::string toHex(const unsigned char* bytes, std::size_t n) {
  std::string s(2 * n + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), bytes, n);
  s.pop_back();
  return s;
}

bool fromHex(std::string_view hex, unsigned char* out, std::size_t n) {
  if (hex.size() != 2 * n) return false;
  initSodium();
  std::size_t got = 0;
  return sodium_hex2bin(out, n, hex.data(), hex.size(), nullptr, &got, nullptr) == 0 && got == n;
}

KeyFile loadKeyFile(const std::string& path) {
  const std::string text = loadTextFile(path, "key file");
  KeyFile f;
  bool has_public = false, has_secret = false;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') {
      if (f.name.empty() && line.size() > 2) f.name = line.substr(2);
      continue;
    }
    const auto colon = line.find(':');
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (colon == std::string::npos) throw ConfigError(where + "expected 'public: HEX', 'secret: HEX' or 'bridge: HEX'");
    const std::string name = line.substr(0, colon);
    std::string_view value(line);
    value.remove_prefix(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
    Key* target = name == "public"   ? &f.pair.public_key
                  : name == "secret" ? &f.pair.secret_key
                  : name == "bridge" ? &f.bridge
                                     : nullptr;
    if (target == nullptr) throw ConfigError(where + "unknown entry '" + name + "' (public, secret or bridge)");
    if (!fromHex(value, target->data(), target->size()))
      throw ConfigError(where + name + ": must be 64 hex digits (a 32-byte key)");
    (name == "public" ? has_public : name == "secret" ? has_secret : f.has_bridge) = true;
  }
  if (!has_public || !has_secret) throw ConfigError(path + ": a key file needs both 'public' and 'secret'");
  // The public key must be the secret key's: a file pasted together from two pairs fails here,
  // not as a handshake that never succeeds.
  initSodium();
  Key derived;
  crypto_scalarmult_base(derived.data(), f.pair.secret_key.data());
  if (derived != f.pair.public_key) throw ConfigError(path + ": its public key is not the secret key's");
  return f;
}

void saveKeyFile(const std::string& path, const KeyFile& file, const std::string& comment) {
  const mode_t old = umask(077);
  {
    std::ofstream out(path, std::ios::trunc);
    out << "# " << comment << "\n"
        << "public: " << toHex(file.pair.public_key) << "\n"
        << "secret: " << toHex(file.pair.secret_key) << "\n";
    if (file.has_bridge) out << "bridge: " << toHex(file.bridge) << "\n";
    out.close();
    umask(old);
    if (!out) throw ConfigError("cannot write key file " + path);
  }
  chmod(path.c_str(), 0600);
}

void randomBytes(unsigned char* out, std::size_t n) {
  initSodium();
  randombytes_buf(out, n);
}

std::uint64_t randomNonZero64() {
  std::uint64_t v = 0;
  while (v == 0) randomBytes(reinterpret_cast<unsigned char*>(&v), sizeof v);
  return v;
}

}  // namespace rfms
