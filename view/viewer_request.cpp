// Compiled as C++17 with the WebSocket server (view/CMakeLists.txt).
#include "view/viewer_request.hpp"

#include <nlohmann/json.hpp>

namespace rfms::view {

namespace {

using Json = nlohmann::json;

ViewerRequest mistake(std::string what) {
  ViewerRequest r;
  r.mistake = std::move(what);
  return r;
}

bool unsignedField(const Json& j, const char* name, std::uint64_t& out) {
  if (!j.is_object() || !j.contains(name) || !j[name].is_number_unsigned()) return false;
  out = j[name].get<std::uint64_t>();
  return true;
}

ViewerRequest subscribe(const Json& j, std::size_t most) {
  if (!j.contains("subscriptions") || !j["subscriptions"].is_array())
    return mistake("subscribe: no \"subscriptions\" array");
  if (j["subscriptions"].size() > most) return mistake("subscribe: more than " + std::to_string(most) + " at once");
  ViewerRequest r;
  r.kind = ViewerRequest::Kind::kSubscribe;
  for (const Json& s : j["subscriptions"]) {
    std::uint64_t id = 0, channel = 0;
    if (!unsignedField(s, "id", id) || !unsignedField(s, "channelId", channel) || id > UINT32_MAX)
      return mistake("subscribe: each subscription needs an \"id\" and a \"channelId\"");
    r.subscribe.emplace_back(static_cast<std::uint32_t>(id), channel);
  }
  return r;
}

ViewerRequest unsubscribe(const Json& j, std::size_t most) {
  if (!j.contains("subscriptionIds") || !j["subscriptionIds"].is_array())
    return mistake("unsubscribe: no \"subscriptionIds\" array");
  if (j["subscriptionIds"].size() > most) return mistake("unsubscribe: more than " + std::to_string(most) + " at once");
  ViewerRequest r;
  r.kind = ViewerRequest::Kind::kUnsubscribe;
  for (const Json& s : j["subscriptionIds"]) {
    if (!s.is_number_unsigned()) return mistake("unsubscribe: ids are unsigned integers");
    r.unsubscribe.push_back(s.get<std::uint64_t>());
  }
  return r;
}

}  // namespace

ViewerRequest parseViewerRequest(std::string_view text, std::size_t most) {
  // No exceptions: a parse error gives a discarded value, and a depth beyond the limit below is
  // refused before nlohmann's recursive parser could run out of stack on "[[[[...".
  std::size_t depth = 0, deepest = 0;
  for (const char c : text) {
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  if (deepest > 16) return mistake("nested too deeply for a Foxglove request");
  const Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("op") || !j["op"].is_string())
    return mistake("not a JSON object with an \"op\"");
  const std::string op = j["op"].get<std::string>();
  if (op == "subscribe") return subscribe(j, most);
  if (op == "unsubscribe") return unsubscribe(j, most);
  return mistake("op \"" + op.substr(0, 40) + "\" is not supported by this server");
}

}  // namespace rfms::view
