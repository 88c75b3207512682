// rfms-math: the math server as a cluster node. For every M_MAIL it answers with the PARCEL of
// the joint the mail names, from its background results.
#include "math_node/math_core.hpp"
#include "node/node_main.hpp"
#include "node/start_handshake.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-math: the math server of the RFMS cluster (dynamics and Jacobians, PARCELs)"};
  return runNode(argc, argv, app, [] { return std::string("math"); }, 0, [](NodeContext& c) {
    const ClusterSettings& s = c.settings;
    MathCore math(c.model, mathConfigFor(c.model, c.controller()));
    Transport transport;
    zmq::socket_t sub = transport.connectSubscriber(s.config.supervisor_pub(), {kTopicMMail, kTopicControl});
    zmq::socket_t push = transport.connectPush(s.config.supervisor_pull());
    const StartResult start = awaitStart(proto::NODE_MATH, s, sub, push, nullptr, nullptr, c.log);
    if (start == StartResult::kRefused) return 2;
    if (start == StartResult::kStopped) return 0;
    c.log.info("ready");

    MailSlot in;  // parsed without allocating (node/mail_slot.hpp)
    proto::Envelope out;
    std::string buffer;
    std::uint64_t answered = 0;
    while (!stopRequested()) {
      if (!receive(sub, in, 100)) continue;
      if (in.mail().has_stop()) {
        c.log.info("stop: {} ({} parcels sent)", in.mail().stop().reason(), answered);
        return 0;
      }
      if (!in.mail().has_mmail()) continue;
      math.step(in.mail().mmail(), *out.mutable_parcel());
      send(push, kTopicControl, out, buffer);
      ++answered;
    }
    c.log.info("stopped by signal ({} parcels sent)", answered);
    return 0;
  });
}
