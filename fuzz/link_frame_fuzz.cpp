// The link from the network: any datagram, to the bridge's core and to a client's link, with a
// session open so that signed-frame paths are reached too. Nothing may crash, and the bridge may
// keep no state for a sender without a key.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "net_bridge/bridge_core.hpp"
#include "net_bridge/client_link_core.hpp"
#include "net_bridge/link_frame.hpp"

namespace {

struct World {
  rfms::KeyPair bridge = rfms::KeyPair::generate(), client = rfms::KeyPair::generate();
  rfms::BridgeKeys keys() const {
    rfms::BridgeKeys k;
    k.bridge = bridge;
    k.clients.push_back({"op", client.public_key, rfms::proto::CR_OPERATOR});
    return k;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const World world;
  const std::string_view datagram(reinterpret_cast<const char*>(data), size);
  rfms::proto::LinkFrame frame;
  rfms::decodeDatagram(datagram, frame);

  rfms::BridgeCore bridge(world.keys(), rfms::BridgeLimits{});
  std::vector<rfms::Outgoing> out;
  constexpr std::int64_t kNow = 1'790'000'000'000'000'000;
  // A real session first (HELLO, CHALLENGE, AUTH), then the crafted datagram from it and from a
  // stranger, then the supervisor's side.
  rfms::ClientLinkCore link({world.client, world.bridge.public_key, true}, 42, rfms::LinkOptions{});
  link.begin(rfms::proto::FT_SENDREQ, "");
  std::string d;
  for (int step = 0; step < 3 && link.due(0.0, d); ++step) {
    out.clear();
    bridge.receive("client", d, out, kNow);
    for (const auto& o : out) link.receive(o.datagram);
  }
  out.clear();
  bridge.receive("client", datagram, out, kNow);
  bridge.receive("stranger", datagram, out, kNow);
  // The bytes as a frame, properly checksummed, and signed by the open session: past the trailer
  // checks, into the frame logic.
  if (frame.ParseFromArray(data, static_cast<int>(size))) {
    bridge.receive("stranger", rfms::encodeDatagram(frame), out, kNow);
    if (frame.session() == 0) frame.set_session(link.linkSession());
    bridge.receive("client", rfms::encodeDatagram(frame, link.sessionKeys().client_to_bridge), out, kNow);
  }
  rfms::proto::Envelope m;
  while (bridge.nextForSupervisor(m)) {
    rfms::proto::TaskReply r;
    r.set_session(m.has_task_request() ? m.task_request().session() : 0);
    r.set_number(m.has_task_request() ? m.task_request().number() : 0);
    bridge.answer(r, out);
  }
  if (bridge.knowsPeer("stranger") && bridge.sessions() > 1) std::abort();  // a session without a key
  // The client's side takes the same bytes as an answer.
  link.receive(datagram);
  return 0;
}
