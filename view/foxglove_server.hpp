// The server side of the Foxglove WebSocket protocol, version 1 (subprotocol
// `foxglove.websocket.v1`), which Foxglove, Lichtblick and rfms-view's own page speak: on connect
// the server says who it is and advertises its channels; a viewer subscribes to the channels it
// wants; each message then goes to its subscribers as one binary frame (opcode 1, the
// subscription's id, a timestamp, the message's bytes), and the cluster's time as another
// (opcode 2). A plain HTTP GET on the same port is answered with a file of the page's folder.
//
// Everything runs on the thread that calls run(): the protocol's events, and `tick`, which is where
// the caller publishes. Hostile until proved otherwise, every viewer is bounded: its messages in
// (size, subscriptions), what waits to be sent to it (a message that would queue more is dropped
// and counted, so a slow viewer loses frames and slows nobody), and how often its mistakes are
// logged. Built on websocketpp (Debian's libwebsocketpp-dev), which this header keeps out of sight.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spdlog {
class logger;
}

namespace rfms::view {

struct Channel {
  std::string topic;        // "/frames", "/rfms/smail", ...
  std::string schema_name;  // the protobuf message's full name: "foxglove.FrameTransforms"
  std::string schema;       // protobuf: its FileDescriptorSet, serialised (sent base64-encoded)
  // A display channel shows the newest state: a viewer has at most one of its messages waiting to
  // be sent, and newer ones are dropped until that one has gone, so that what it draws stays close
  // to now whatever else it is sent. Other channels drop only past max_queued_bytes.
  bool display = false;
  std::string encoding = "protobuf";         // or "json"
  std::string schema_encoding = "protobuf";  // or "jsonschema" (the schema then sent as it is)
};

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 8765;  // 0: any free port (port() says which)
  std::string name = "rfms-view";
  std::string web_root;                       // the page's folder; empty: GET answers 404
  std::size_t max_viewers = 16;               // more are refused (HTTP 503)
  std::size_t max_queued_bytes = 4u << 20;    // per viewer, before its messages are dropped
  std::size_t max_request_bytes = 64u << 10;  // a viewer's message
  std::size_t max_subscriptions = 256;        // per viewer
  // Who may connect from a browser. A request's Host must name this server: a literal address,
  // `localhost`, or one of `hosts` (a page from a DNS name rebound to this machine is refused), and
  // its Origin, when it has one (browsers always send it), must be the page's own (the Host's) or
  // one of `origins`. Refused with 403 and logged (within the budget).
  std::vector<std::string> hosts;
  std::vector<std::string> origins = {"https://app.foxglove.dev", "https://studio.foxglove.dev"};
  // When set, the last viewer slot is kept for a connection whose URL carries ?token=<it> (the
  // desk page of whoever holds the token): viewers without it fill max_viewers - 1 at most.
  std::string slot_token;
};

// Whether a request with these Host and Origin headers may connect to a server of `options`: "" if
// so, else why not (for the log and the 403's body).
std::string refusedFrom(const ServerOptions& options, const std::string& host, const std::string& origin);
// Whether `given` is `token` (never an empty one), in time that does not depend on where they differ.
bool sameToken(const std::string& given, const std::string& token);
// The value of `name` in a request's resource ("/?token=abc&x=1" -> "abc"; "" when absent).
std::string queryValue(const std::string& resource, const std::string& name);

// A plain HTTP request to the server's API (anything under /api/), and the answer to it.
struct HttpRequest {
  std::string method, path;  // path without its query
  std::string token;         // the X-RFMS-Token header ("" when absent)
  std::string body;          // at most max_request_bytes
};
struct HttpReply {
  int status = 200;
  std::string body;  // JSON
};
// Answers a request now or later, from any thread, once.
using HttpAnswer = std::function<void(HttpReply)>;

struct ServerCounts {
  std::uint64_t viewers = 0;            // connected now
  std::uint64_t sent = 0, dropped = 0;  // messages, over every viewer
  std::uint64_t refused = 0;            // connections and requests refused
  std::uint64_t unlogged = 0;           // lines about viewers held back by the log's budget
};

// The protocol's error status for a viewer, as JSON text. It may quote the viewer's own bytes, cut
// anywhere: invalid UTF-8 is replaced, never thrown over.
std::string statusText(const std::string& what);

class FoxgloveServer {
 public:
  // Binds at once: ConfigError when the address cannot be had.
  FoxgloveServer(ServerOptions options, std::vector<Channel> channels, std::shared_ptr<spdlog::logger> log);
  ~FoxgloveServer();
  FoxgloveServer(const FoxgloveServer&) = delete;
  FoxgloveServer& operator=(const FoxgloveServer&) = delete;

  std::uint16_t port() const;

  // Serves until SIGINT or SIGTERM, or stop(); calls `tick` on this thread, at once and then
  // again after each delay it returns.
  void run(const std::function<std::chrono::microseconds()>& tick);
  void stop();

  // Channel `id` keeps its last `count` messages, and a new subscription to it gets them first,
  // as ROS latches a topic: a viewer that comes late still sees the scene and the recent log.
  void latch(std::size_t id, std::size_t count);
  // Whether any viewer is subscribed to channel `id` (its index in the list given).
  bool subscribed(std::size_t id) const;
  // A viewer's first subscription to channel `id` starts from the mail that comes after it.
  void onSubscribed(std::function<void(std::size_t id)> first);
  // To the channel's subscribers (and into its latch).
  void publish(std::size_t id, std::uint64_t stamp_ns, const std::string& bytes);
  void publishTime(std::uint64_t stamp_ns);

  // Requests under /api/ go to `api` (on this thread; it may answer later from another); without
  // one they are 404.
  void onApi(std::function<void(const HttpRequest&, HttpAnswer)> api);

  ServerCounts counts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rfms::view
