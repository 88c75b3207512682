// rfms-joint --joint N: one joint server as a cluster node. For every S_MAIL it runs its core with
// the arm's sensor mail of the same period (lockstep) or the latest one (realtime), and sends its
// J_MAIL to the supervisor and its torque command to the arm.
#include <array>
#include <utility>

#include "joint_node/joint_core.hpp"
#include "node/node_main.hpp"
#include "node/start_handshake.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-joint: one joint server of the RFMS cluster (PIK setpoint, servo)"};
  int joint = 0;
  app.add_option("--joint", joint, "joint number, 1..6")->required()->check(CLI::Range(1, 6));
  return runNode(argc, argv, app, [&] { return "joint" + std::to_string(joint); }, 0, [&](NodeContext& c) {
    const ClusterSettings& s = c.settings;
    JointCore core(c.model, jointConfigFor(c.model, c.controller(), joint));
    const auto node = static_cast<proto::Node>(proto::NODE_JOINT1 + joint - 1);
    Transport transport;
    zmq::socket_t sup = transport.connectSubscriber(s.config.supervisor_pub(), {kTopicSMail, kTopicControl});
    zmq::socket_t arm = transport.connectSubscriber(s.config.arm_pub(), {kTopicArm, kTopicControl});
    zmq::socket_t to_supervisor = transport.connectPush(s.config.supervisor_pull());
    zmq::socket_t to_arm = transport.connectPush(s.config.arm_pull());
    const StartResult start = awaitStart(node, s, sup, to_supervisor, &arm, nullptr, c.log);
    if (start == StartResult::kRefused) return 2;
    if (start == StartResult::kStopped) return 0;
    c.log.info("ready");

    const bool lockstep = waitsForMail(s.config.clock());
    // Mail is parsed into preallocated slots and kept by swapping pointers (node/mail_slot.hpp).
    std::array<MailSlot, 3> slots;
    MailSlot *in = &slots[0], *smail = &slots[1], *sensors = &slots[2];
    proto::Envelope jmail, torque;
    bool have_smail = false, have_sensors = false;
    std::string buffer;
    while (!stopRequested()) {
      const int which = pollAny({&sup, &arm}, 100);
      if (which == 0 && receive(sup, *in, 0)) {
        if (in->mail().has_stop()) {
          c.log.info("stop: {}", in->mail().stop().reason());
          return 0;
        }
        if (in->mail().has_smail()) std::swap(smail, in), have_smail = true;
      } else if (which == 1 && receive(arm, *in, 0)) {
        if (in->mail().has_sensors()) std::swap(sensors, in), have_sensors = true;
      }
      if (!have_smail || !have_sensors) continue;
      const proto::SMail& s_mail = smail->mail().smail();
      const proto::ArmSensors& arm_sensors = sensors->mail().sensors();
      // Lockstep: both mails of the same period; realtime: each S_MAIL with the latest sensors.
      if (lockstep && s_mail.header().period() != arm_sensors.header().period()) continue;
      core.step(s_mail, arm_sensors, *jmail.mutable_jmail(), *torque.mutable_torque());
      send(to_supervisor, kTopicControl, jmail, buffer);
      send(to_arm, kTopicControl, torque, buffer);
      have_smail = false;
      if (lockstep) have_sensors = false;
    }
    c.log.info("stopped by signal");
    return 0;
  });
}
