// rfms-arm: the emulated arm as a cluster node. It publishes its sensor mail for period k, then
// integrates [k, k+1] with the six joints' torque commands. Lockstep: it waits (up to the
// configured timeout) for all six commands of period k; a missing one counts as no power.
// Realtime: it ticks on the wall clock with the latest commands. After each period it reports the
// commands it received and applied, for the supervisor's run log.
#include <algorithm>
#include <chrono>
#include <thread>

#include "arm_sim/arm_core.hpp"
#include "node/node_main.hpp"
#include "node/mail_wait.hpp"
#include "node/start_handshake.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-arm: the emulated arm (plant) of the RFMS cluster"};
  return runNode(argc, argv, app, [] { return std::string("arm"); }, 0, [](NodeContext& c) {
    const ClusterSettings& s = c.settings;
    const RobotModel& model = c.model;
    const proto::ControllerSettings& settings = c.controller();
    ArmCore arm(model, armConfigFor(model, settings));

    Transport transport;
    zmq::socket_t pub = transport.bindPublisher(s.config.arm_pub());
    zmq::socket_t pull = transport.bindPull(s.config.arm_pull());
    zmq::socket_t sub = transport.connectSubscriber(s.config.supervisor_pub(), {kTopicSMail, kTopicControl});
    zmq::socket_t push = transport.connectPush(s.config.supervisor_pull());
    c.log.info("waiting for the supervisor ({})", s.config.supervisor_pub());
    const StartResult start = awaitStart(proto::NODE_ARM, s, sub, push, nullptr, &pub, c.log);
    if (start == StartResult::kRefused) return 2;
    if (start == StartResult::kStopped) return 0;
    c.log.info("ready: {} at {} ms, {}", model.name, settings.dt_ms(),
              clockName(s.config.clock()));

    const bool lockstep = waitsForMail(s.config.clock());
    // Half the supervisor's wait: when a joint is missing, the arm must still publish in time
    // for the supervisor, or the supervisor would blame the arm for the joint's silence.
    const int timeout_ms = std::max(1, static_cast<int>(s.config.lockstep_timeout_ms()) / 2);
    const auto period = std::chrono::duration<double>(sampleSeconds(settings));
    const auto t0 = std::chrono::steady_clock::now();
    proto::Envelope out, in;
    std::array<proto::TorqueCommand, kJoints> latest;
    std::array<const proto::TorqueCommand*, kJoints> commands{};
    std::string buffer;
    long missing = 0;
    std::array<std::uint32_t, kJoints> silent{};  // consecutive periods without a command
    std::array<bool, kJoints> heard{};            // a command has come from this joint
    std::int64_t supervisor_period = -1;          // the latest S_MAIL's period
    // What the arm tells the supervisor's run log after each period: every command that came,
    // and which one of each joint it integrated with.
    proto::Envelope report;
    proto::AppliedTorques& applied = *report.mutable_applied();
    auto take = [&](int j) {
      proto::TorqueCommand& received = *applied.add_received();
      received.Swap(in.mutable_torque());
      latest[static_cast<std::size_t>(j)].CopyFrom(received);
    };
    while (!stopRequested()) {
      const std::uint64_t k = arm.period();
      arm.sense(*out.mutable_sensors());
      send(pub, kTopicArm, out, buffer);
      if (lockstep) {
        // Period k of the arm follows period k of the supervisor: first its S_MAIL(k) (so that the
        // arm never runs ahead, even with every joint gone), then the six commands of period k.
        // A joint silent for the watchdog's N periods after it was heard is not waited for any
        // more (its torque is missing, so the power is off): waiting would only slow the stop.
        while (supervisor_period < static_cast<std::int64_t>(k) && !stopRequested()) {
          if (!receive(sub, in, 100)) continue;
          if (in.has_stop()) {
            c.log.info("stop: {}; after {} periods the power is {}, fastest joint {:.3g} rad/s", in.stop().reason(),
                      arm.period(), arm.powered() ? "on" : "off", arm.qd().cwiseAbs().maxCoeff());
            return 0;
          }
          if (in.has_smail())
            supervisor_period = std::max(supervisor_period, static_cast<std::int64_t>(in.smail().header().period()));
        }
        commands.fill(nullptr);
        int have = 0, expected = 0;
        for (int j = 0; j < kJoints; ++j)
          expected += !heard[static_cast<std::size_t>(j)] || silent[static_cast<std::size_t>(j)] < settings.watchdog_periods();
        const auto deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
        while (have < expected && !stopRequested()) {
          if (!receive(pull, in, 0)) {
            if (!waitForMail({&pull}, deadline)) break;
            continue;
          }
          if (!in.has_torque() || in.torque().header().period() != k) continue;
          const int j = static_cast<int>(in.torque().joint()) - 1;
          if (j < 0 || j >= kJoints || commands[static_cast<std::size_t>(j)] != nullptr) continue;
          take(j);
          commands[static_cast<std::size_t>(j)] = &latest[static_cast<std::size_t>(j)];
          heard[static_cast<std::size_t>(j)] = true;
          ++have;
        }
        missing += kJoints - have;
        for (int j = 0; j < kJoints; ++j) {
          auto& n = silent[static_cast<std::size_t>(j)];
          n = commands[static_cast<std::size_t>(j)] != nullptr ? 0 : n + 1;
        }
      } else {
        // Realtime: the latest command of each joint, then sleep until the next tick.
        while (receive(pull, in, 0)) {
          const int j = static_cast<int>(in.torque().joint()) - 1;
          if (!in.has_torque() || j < 0 || j >= kJoints) continue;
          take(j);
          commands[static_cast<std::size_t>(j)] = &latest[static_cast<std::size_t>(j)];
        }
        std::this_thread::sleep_until(t0 + (k + 1) * std::chrono::duration_cast<std::chrono::steady_clock::duration>(period));
      }
      while (receive(sub, in, 0)) {
        if (in.has_smail())
          supervisor_period = std::max(supervisor_period, static_cast<std::int64_t>(in.smail().header().period()));
        if (in.has_stop()) {
          c.log.info("stop: {}; after {} periods the power is {}, fastest joint {:.3g} rad/s", in.stop().reason(),
                    arm.period(), arm.powered() ? "on" : "off", arm.qd().cwiseAbs().maxCoeff());
          return 0;
        }
      }
      applied.mutable_header()->set_period(k);
      applied.mutable_header()->set_sequence(k);
      applied.clear_applied_period();
      for (const proto::TorqueCommand* command : commands)
        applied.add_applied_period(command != nullptr ? static_cast<std::int64_t>(command->header().period()) : -1);
      arm.step(commands);
      send(pub, kTopicTorques, report, buffer);
      applied.clear_received();
    }
    c.log.info("stopped by signal after {} periods ({} torque commands missed); the power is {}, fastest joint {:.3g} rad/s",
              arm.period(), missing, arm.powered() ? "on" : "off", arm.qd().cwiseAbs().maxCoeff());
    return 0;
  });
}
