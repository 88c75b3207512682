// Compiled as C++17 with ASIO_STANDALONE (view/CMakeLists.txt): websocketpp 0.8 declares its constructors in a
// form C++20 refuses, and Debian's asio is the standalone one.
#include "view/foxglove_server.hpp"

#include <spdlog/spdlog.h>

#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <csignal>
#include <deque>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <websocketpp/base64/base64.hpp>
#include <websocketpp/config/asio_no_tls.hpp>
#include <websocketpp/server.hpp>

#include "common/error.hpp"
#include "runtime/log_budget.hpp"
#include "view/viewer_request.hpp"

namespace rfms::view {

namespace {

using Socket = websocketpp::server<websocketpp::config::asio>;
using Handle = websocketpp::connection_hdl;
using Json = nlohmann::json;

constexpr char kSubprotocol[] = "foxglove.websocket.v1";
constexpr std::uint8_t kMessageData = 1, kTime = 2;
constexpr int kLogLinesPerSecond = 5;
constexpr std::chrono::seconds kCloseGrace{2};
constexpr int kSocketBuffer = 64 << 10;  // what viewers cause: connections, mistakes (runtime/log_budget.hpp)

void putLe(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// Only plain paths under the page's folder: letters, digits and ._-/ , no "..", no hidden files.
bool plainPath(const std::string& p) {
  if (p.empty() || p[0] != '/' || p.find("..") != std::string::npos || p.find("/.") != std::string::npos) return false;
  for (const char c : p)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '/' && c != '.' && c != '_' && c != '-') return false;
  return true;
}

std::string contentType(const std::string& path) {
  const auto ends = [&](const char* s) {
    const std::string e(s);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".json")) return "application/json";
  if (ends(".png")) return "image/png";
  if (ends(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

struct Latched {
  std::uint64_t stamp_ns;
  std::string bytes;
};

std::string dataFrame(std::uint32_t subscription, std::uint64_t stamp_ns, const std::string& bytes) {
  std::string frame;
  frame.reserve(13 + bytes.size());
  frame.push_back(static_cast<char>(kMessageData));
  putLe(frame, subscription, 4);
  putLe(frame, stamp_ns, 8);
  frame += bytes;
  return frame;
}

struct Viewer {
  std::map<std::uint32_t, std::size_t> subscriptions;  // the viewer's id -> channel
  std::uint64_t dropped = 0;
  std::uint64_t queued = 0;  // bytes handed to its connection so far
  // Per display channel: where its last message ended in `queued`. Until the connection has sent
  // that far, a newer one is dropped: one display message in flight, the newest after it.
  std::map<std::size_t, std::uint64_t> display_ends;
};

}  // namespace

bool sameToken(const std::string& given, const std::string& token) {
  if (token.empty() || given.size() != token.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ token[i]);
  return diff == 0;
}

namespace {
// "127.0.0.1:8765" -> "127.0.0.1", "[::1]:8765" -> "::1", "localhost" -> "localhost".
std::string hostName(const std::string& host) {
  if (!host.empty() && host[0] == '[') return host.substr(1, host.find(']') - 1);
  return host.substr(0, host.find(':'));
}
}  // namespace

std::string refusedFrom(const ServerOptions& options, const std::string& host, const std::string& origin) {
  const std::string name = hostName(host);
  asio::error_code ec;
  asio::ip::make_address(name, ec);
  const bool named_ours = std::find(options.hosts.begin(), options.hosts.end(), name) != options.hosts.end();
  if (host.empty() || (ec && name != "localhost" && !named_ours))
    return "Host '" + host.substr(0, 100) +
           "' is not this server's (a name rebound to this machine?); give it with --view-host to allow it";
  if (origin.empty() || origin == "http://" + host) return "";
  if (std::find(options.origins.begin(), options.origins.end(), origin) != options.origins.end()) return "";
  return "Origin '" + origin.substr(0, 100) + "' is not this server's page; give it with --view-origin to allow it";
}

std::string queryValue(const std::string& resource, const std::string& name) {
  const auto q = resource.find('?');
  if (q == std::string::npos) return "";
  std::size_t at = q + 1;
  while (at <= resource.size()) {
    const std::size_t end = std::min(resource.find('&', at), resource.size());
    const std::string pair = resource.substr(at, end - at);
    if (pair.rfind(name + "=", 0) == 0) return pair.substr(name.size() + 1);
    at = end + 1;
  }
  return "";
}

std::string statusText(const std::string& what) {
  return Json{{"op", "status"}, {"level", 2}, {"message", what}}.dump(-1, ' ', false, Json::error_handler_t::replace);
}

struct FoxgloveServer::Impl {
  ServerOptions options;
  std::vector<Channel> channels;
  std::shared_ptr<spdlog::logger> log;
  Socket socket;
  std::map<Handle, Viewer, std::owner_less<Handle>> viewers;
  std::vector<std::size_t> subscribers;   // per channel, over every viewer
  std::vector<std::size_t> latch_counts;  // per channel: 0, not latched
  std::vector<std::deque<Latched>> latched;
  std::function<void(std::size_t)> first_subscribed;
  std::function<void(const HttpRequest&, HttpAnswer)> api;
  ServerCounts counts;
  std::uint16_t port = 0;
  std::string session_id;
  std::unique_ptr<asio::steady_timer> timer;
  std::unique_ptr<asio::signal_set> signals;
  LogBudget budget{kLogLinesPerSecond};
  bool stopping = false;

  Impl(ServerOptions o, std::vector<Channel> c, std::shared_ptr<spdlog::logger> l)
      : options(std::move(o)),
        channels(std::move(c)),
        log(std::move(l)),
        subscribers(channels.size(), 0),
        latch_counts(channels.size(), 0),
        latched(channels.size()) {
    socket.clear_access_channels(websocketpp::log::alevel::all);
    socket.clear_error_channels(websocketpp::log::elevel::all);
    socket.init_asio();
    socket.set_reuse_addr(true);
    socket.set_max_message_size(options.max_request_bytes);
    socket.set_max_http_body_size(options.max_request_bytes);
    socket.set_validate_handler([this](Handle h) { return validate(h); });
    socket.set_open_handler([this](Handle h) { open(h); });
    socket.set_close_handler([this](Handle h) { close(h); });
    socket.set_message_handler([this](Handle h, Socket::message_ptr m) { message(h, m); });
    socket.set_http_handler([this](Handle h) { http(h); });
    // A small kernel buffer: what a slow viewer has not taken stays in the server's own queue,
    // where it is counted and bounded, rather than in seconds of socket buffers out of sight.
    socket.set_socket_init_handler([](Handle, asio::ip::tcp::socket& s) {
      asio::error_code ignored;
      s.set_option(asio::socket_base::send_buffer_size(kSocketBuffer), ignored);
    });
    std::random_device random;
    session_id = std::to_string(random()) + std::to_string(random());
    websocketpp::lib::error_code ec;
    const auto address = asio::ip::make_address(options.address, ec);
    if (ec) throw ConfigError("--view: '" + options.address + "' is not an IP address");
    socket.listen(asio::ip::tcp::endpoint(address, options.port), ec);
    if (ec)
      throw ConfigError("--view: cannot listen on " + options.address + ":" + std::to_string(options.port) + ": " +
                        ec.message());
    socket.start_accept(ec);
    if (ec) throw ConfigError("--view: cannot accept connections: " + ec.message());
    port = socket.get_local_endpoint(ec).port();
  }

  // The WebSocket handshake: a Host and Origin this server answers, the protocol named, and room
  // for one more viewer (the last slot kept for the token's holder when there is a token).
  bool validate(Handle h) {
    const auto c = socket.get_con_from_hdl(h);
    if (const std::string why = refusedFrom(options, c->get_request_header("Host"), c->get_request_header("Origin"));
        !why.empty()) {
      ++counts.refused;
      note(spdlog::level::warn, "viewer " + endpointOf(h) + " refused: " + why);
      c->set_status(websocketpp::http::status_code::forbidden);
      c->set_body(why + "\n");
      return false;
    }
    const bool holder =
        !options.slot_token.empty() && sameToken(queryValue(c->get_resource(), "token"), options.slot_token);
    const std::size_t room = options.max_viewers - (options.slot_token.empty() || holder ? 0 : 1);
    if (viewers.size() >= room) {
      ++counts.refused;
      c->set_status(websocketpp::http::status_code::service_unavailable);
      return false;
    }
    for (const std::string& p : c->get_requested_subprotocols())
      if (p == kSubprotocol) {
        c->select_subprotocol(p);
        return true;
      }
    ++counts.refused;
    c->set_status(websocketpp::http::status_code::bad_request);
    c->set_body(std::string("this server speaks the subprotocol ") + kSubprotocol + " only\n");
    return false;
  }

  void open(Handle h) {
    viewers.emplace(h, Viewer{});
    Json info = {{"op", "serverInfo"},
                 {"name", options.name},
                 {"capabilities", Json::array({"time"})},
                 {"supportedEncodings", Json::array()},
                 {"metadata", Json::object()},
                 {"sessionId", session_id}};
    sendText(h, info.dump());
    Json list = Json::array();
    for (std::size_t i = 0; i < channels.size(); ++i)
      list.push_back(
          {{"id", i},
           {"topic", channels[i].topic},
           {"encoding", channels[i].encoding},
           {"schemaName", channels[i].schema_name},
           {"schema", channels[i].schema_encoding == "protobuf" ? websocketpp::base64_encode(channels[i].schema)
                                                                : channels[i].schema},
           {"schemaEncoding", channels[i].schema_encoding}});
    sendText(h, Json{{"op", "advertise"}, {"channels", list}}.dump());
    note(spdlog::level::info, "viewer " + endpointOf(h) + " connected (" + std::to_string(viewers.size()) + " now)");
  }

  void close(Handle h) {
    const auto v = viewers.find(h);
    if (v == viewers.end()) return;
    for (const auto& [id, channel] : v->second.subscriptions) --subscribers[channel];
    if (v->second.dropped > 0)
      note(spdlog::level::info,
           "viewer " + endpointOf(h) + " left; " + std::to_string(v->second.dropped) + " messages dropped for it");
    viewers.erase(v);
    if (viewers.empty() && stopping) socket.stop();  // the last viewer gone ends a stopping loop
  }

  std::string endpointOf(Handle h) {
    websocketpp::lib::error_code ec;
    const auto c = socket.get_con_from_hdl(h, ec);
    return ec ? std::string("?") : c->get_remote_endpoint();
  }

  void sendText(Handle h, const std::string& text) {
    websocketpp::lib::error_code ec;
    socket.send(h, text, websocketpp::frame::opcode::text, ec);
    if (const auto v = viewers.find(h); !ec && v != viewers.end()) v->second.queued += text.size();
  }

  // What viewers cause is logged within a budget, so that a flood of them cannot fill the log.
  void note(spdlog::level::level_enum level, const std::string& text) {
    std::uint64_t held_back = 0;
    const bool write = budget.take(LogBudget::Clock::now(), held_back);
    if (held_back > 0) log->info("{} lines about viewers were not logged", held_back);
    if (write) log->log(level, "{}", budget.cut(text));
  }

  // A viewer's mistake: said back to it as a status message, and noted.
  void mistake(Handle h, const std::string& what) {
    ++counts.refused;
    note(spdlog::level::warn, "viewer " + endpointOf(h) + ": " + what);
    sendText(h, statusText(what));
  }

  void message(Handle h, const Socket::message_ptr& m) {
    const auto it = viewers.find(h);
    if (it == viewers.end()) return;
    Viewer& v = it->second;
    if (m->get_opcode() != websocketpp::frame::opcode::text)
      return mistake(h, "binary messages from a viewer are not taken (no clientPublish)");
    const ViewerRequest r = parseViewerRequest(m->get_payload(), options.max_subscriptions);
    switch (r.kind) {
      case ViewerRequest::Kind::kSubscribe: return subscribe(h, v, r);
      case ViewerRequest::Kind::kUnsubscribe: return unsubscribe(v, r);
      case ViewerRequest::Kind::kMistake: return mistake(h, r.mistake);
    }
  }

  void subscribe(Handle h, Viewer& v, const ViewerRequest& r) {
    for (const auto& [id, channel] : r.subscribe) {
      if (channel >= channels.size()) return mistake(h, "subscribe: no channel " + std::to_string(channel));
      if (v.subscriptions.count(id) != 0)
        return mistake(h, "subscribe: subscription " + std::to_string(id) + " is in use");
      if (v.subscriptions.size() >= options.max_subscriptions)
        return mistake(h, "subscribe: at most " + std::to_string(options.max_subscriptions) + " subscriptions");
      v.subscriptions.emplace(id, channel);
      if (subscribers[channel]++ == 0 && first_subscribed) first_subscribed(channel);
      for (const Latched& m : latched[channel]) send(h, v, dataFrame(id, m.stamp_ns, m.bytes));
    }
  }

  void unsubscribe(Viewer& v, const ViewerRequest& r) {
    for (const std::uint64_t id : r.unsubscribe) {
      const auto found = id > UINT32_MAX ? v.subscriptions.end() : v.subscriptions.find(static_cast<std::uint32_t>(id));
      if (found == v.subscriptions.end()) continue;  // unsubscribing twice is harmless
      --subscribers[found->second];
      v.subscriptions.erase(found);
    }
  }

  // A plain GET: a file of the page's folder, "/" its index.html; under /api/, the API's. The same
  // Host and Origin rule as a viewer's: a rebound name reaches neither the page nor the API.
  void http(Handle h) {
    const auto c = socket.get_con_from_hdl(h);
    if (const std::string why = refusedFrom(options, c->get_request_header("Host"), c->get_request_header("Origin"));
        !why.empty()) {
      ++counts.refused;
      return reply(c, 403, why + "\n", "text/plain");
    }
    std::string path = c->get_request().get_uri();
    path = path.substr(0, path.find('?'));
    if (path.rfind("/api/", 0) == 0) return callApi(c, path);
    if (path == "/") path = "/index.html";
    if (c->get_request().get_method() != "GET") return reply(c, 405, "only GET\n", "text/plain");
    if (options.web_root.empty() || !plainPath(path)) return reply(c, 404, "not found\n", "text/plain");
    std::ifstream in(options.web_root + path, std::ios::binary);
    if (!in) return reply(c, 404, "not found\n", "text/plain");
    std::ostringstream body;
    body << in.rdbuf();
    reply(c, 200, body.str(), contentType(path));
  }

  // The answer may come from another thread, later: it is sent from this one.
  void callApi(const Socket::connection_ptr& c, const std::string& path) {
    if (!api) return reply(c, 404, "{\"error\": \"no API\"}", "application/json");
    HttpRequest r{c->get_request().get_method(), path, c->get_request_header("X-RFMS-Token"), c->get_request_body()};
    if (c->defer_http_response()) return reply(c, 500, "{}", "application/json");
    auto* io = &socket.get_io_service();
    api(r, [c, io](HttpReply answer) {
      asio::post(*io, [c, answer = std::move(answer)] {
        reply(c, answer.status, answer.body, "application/json");
        websocketpp::lib::error_code ec;
        c->send_http_response(ec);
      });
    });
  }

  static void reply(const Socket::connection_ptr& c, int status, const std::string& body, const std::string& type) {
    c->set_status(static_cast<websocketpp::http::status_code::value>(status));
    c->replace_header("Content-Type", type);
    c->replace_header("Cache-Control", "no-store");
    c->set_body(body);
  }

  void arm(std::chrono::microseconds after, const std::function<std::chrono::microseconds()>& tick) {
    timer->expires_after(after);
    timer->async_wait([this, &tick](const std::error_code& ec) {
      if (!ec) arm(tick(), tick);
    });
  }

  // `display`: the channel's id when it is a display channel (latest wins), else SIZE_MAX.
  void send(Handle h, Viewer& v, const std::string& frame, std::size_t display = SIZE_MAX) {
    websocketpp::lib::error_code ec;
    const auto c = socket.get_con_from_hdl(h, ec);
    if (ec) return;
    const std::size_t buffered = c->get_buffered_amount();
    const bool behind = display != SIZE_MAX && v.queued - buffered < v.display_ends[display];
    if (behind || buffered + frame.size() > std::max(options.max_queued_bytes, frame.size())) {
      ++v.dropped;
      ++counts.dropped;
      return;
    }
    c->send(frame, websocketpp::frame::opcode::binary);
    v.queued += frame.size();
    if (display != SIZE_MAX) v.display_ends[display] = v.queued;
    ++counts.sent;
  }
};

FoxgloveServer::FoxgloveServer(ServerOptions options, std::vector<Channel> channels,
                               std::shared_ptr<spdlog::logger> log)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(channels), std::move(log))) {}

FoxgloveServer::~FoxgloveServer() = default;

std::uint16_t FoxgloveServer::port() const { return impl_->port; }

void FoxgloveServer::run(const std::function<std::chrono::microseconds()>& tick) {
  Impl& s = *impl_;
  s.timer = std::make_unique<asio::steady_timer>(s.socket.get_io_service());
  s.signals = std::make_unique<asio::signal_set>(s.socket.get_io_service(), SIGINT, SIGTERM);
  s.signals->async_wait([this](const std::error_code& ec, int) {
    if (!ec) stop();
  });
  s.arm(std::chrono::microseconds(0), tick);
  s.socket.run();
}

void FoxgloveServer::stop() {
  Impl& s = *impl_;
  asio::post(s.socket.get_io_service(), [&s] {
    websocketpp::lib::error_code ec;
    s.stopping = true;
    s.socket.stop_listening(ec);
    if (s.timer) s.timer->cancel();
    if (s.signals) s.signals->cancel();
    // Each viewer is sent what is queued for it, then told the server goes: the loop ends once
    // every connection has closed, or after a grace period for a viewer that does not answer.
    for (auto& [h, v] : s.viewers) s.socket.close(h, websocketpp::close::status::going_away, "the server stops", ec);
    s.timer = std::make_unique<asio::steady_timer>(s.socket.get_io_service());
    s.timer->expires_after(kCloseGrace);
    s.timer->async_wait([&s](const std::error_code& e) {
      if (!e) s.socket.stop();
    });
    if (s.viewers.empty()) s.socket.stop();
  });
}

bool FoxgloveServer::subscribed(std::size_t id) const {
  return id < impl_->subscribers.size() && impl_->subscribers[id] > 0;
}

void FoxgloveServer::onApi(std::function<void(const HttpRequest&, HttpAnswer)> api) { impl_->api = std::move(api); }

void FoxgloveServer::onSubscribed(std::function<void(std::size_t)> first) {
  impl_->first_subscribed = std::move(first);
}

void FoxgloveServer::latch(std::size_t id, std::size_t count) {
  if (id < impl_->latch_counts.size()) impl_->latch_counts[id] = count;
}

void FoxgloveServer::publish(std::size_t id, std::uint64_t stamp_ns, const std::string& bytes) {
  Impl& s = *impl_;
  if (id >= s.channels.size()) return;
  if (s.latch_counts[id] > 0) {
    s.latched[id].push_back({stamp_ns, bytes});
    while (s.latched[id].size() > s.latch_counts[id]) s.latched[id].pop_front();
  }
  if (!subscribed(id)) return;
  for (auto& [h, v] : s.viewers)
    for (const auto& [sub, channel] : v.subscriptions)
      if (channel == id) s.send(h, v, dataFrame(sub, stamp_ns, bytes), s.channels[id].display ? id : SIZE_MAX);
}

void FoxgloveServer::publishTime(std::uint64_t stamp_ns) {
  Impl& s = *impl_;
  std::string frame(1, static_cast<char>(kTime));
  putLe(frame, stamp_ns, 8);
  for (auto& [h, v] : s.viewers) s.send(h, v, frame);
}

ServerCounts FoxgloveServer::counts() const {
  ServerCounts c = impl_->counts;
  c.viewers = impl_->viewers.size();
  c.unlogged = impl_->budget.totalDropped();
  return c;
}

}  // namespace rfms::view
