// rfms-bench-mailbox over Eclipse iceoryx 2.0: the same peers and round trips, each mailbox an
// iceoryx topic (an untyped publisher, a subscriber per reader), the same protobuf mail serialised
// into the loaned chunk and parsed out of it, and a WaitSet where our port sleeps on its doorbell.
// iceoryx needs its RouDi daemon: one already running is used, or one is started for the run.
#include "bench/mailbox_peers.hpp"

#ifdef RFMS_HAVE_ICEORYX

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <iceoryx_posh/mepoo/chunk_header.hpp>
#include <iceoryx_posh/popo/untyped_publisher.hpp>
#include <iceoryx_posh/popo/untyped_subscriber.hpp>
#include <iceoryx_posh/popo/wait_set.hpp>
#include <iceoryx_posh/runtime/posh_runtime.hpp>
#include "runtime/mail_slot.hpp"

namespace rfms::bench {

namespace {

using Clock = std::chrono::steady_clock;

iox::capro::ServiceDescription topic(const std::string& name) {
  return {"rfms-bench", "mail", iox::capro::IdString_t(iox::cxx::TruncateToCapacity, name)};
}
std::string answerOf(proto::Node n) { return "answer-" + std::to_string(static_cast<int>(n)); }

void initRuntime(const std::string& name) {
  iox::runtime::PoshRuntime::initRuntime(
      iox::RuntimeName_t(iox::cxx::TruncateToCapacity, name + "-" + std::to_string(getpid())));
}

// False when no chunk could be loaned (the mail is then not sent).
bool send(iox::popo::UntypedPublisher& p, const proto::Envelope& mail) {
  const auto size = static_cast<std::uint32_t>(mail.ByteSizeLong());
  bool sent = false;
  p.loan(size).and_then([&](void* chunk) {
    mail.SerializeWithCachedSizesToArray(static_cast<std::uint8_t*>(chunk));
    p.publish(chunk);
    sent = true;
  });
  return sent;
}

// Takes one mail off `s` into `slot`; false when none waits.
bool take(iox::popo::UntypedSubscriber& s, MailSlot& slot) {
  bool got = false;
  s.take().and_then([&](const void* chunk) {
    slot.parse(chunk, iox::mepoo::ChunkHeader::fromUserPayload(chunk)->userPayloadSize());
    s.release(chunk);
    got = true;
  });
  return got;
}

int peer(proto::Node node, const Payloads& mail) {
  initRuntime("rfms-bench-peer" + std::to_string(static_cast<int>(node)));
  const bool math = node == proto::NODE_MATH;
  iox::popo::UntypedSubscriber in(topic(math ? "M_MAIL" : "S_MAIL"));
  iox::popo::UntypedPublisher out(topic(answerOf(node)));
  const proto::Envelope& answer = math ? mail.parcel
                                  : node == proto::NODE_ARM
                                      ? mail.sensors
                                      : mail.jmail[static_cast<std::size_t>(node - proto::NODE_JOINT1)];
  iox::popo::WaitSet<> waitset;
  waitset.attachState(in, iox::popo::SubscriberState::HAS_DATA).or_else([](auto) { std::exit(2); });
  const auto give_up = Clock::now() + std::chrono::seconds(20);
  while (in.getSubscriptionState() != iox::SubscribeState::SUBSCRIBED || !out.hasSubscribers()) {
    if (Clock::now() > give_up) return 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!send(out, answer)) return 3;  // ready
  MailSlot slot;
  for (;;) {
    const auto notes = waitset.timedWait(iox::units::Duration::fromSeconds(30));
    if (notes.empty()) return 1;
    while (take(in, slot)) {
      if (slot.mail().has_stop()) return 0;
      if (!send(out, answer)) return 3;
    }
  }
}

// Whether a RouDi daemon runs on this machine (its shared memory may outlive one that died).
bool roudiRuns() {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream comm(e.path() / "comm");
    std::string name;
    if (comm >> name && name == "iox-roudi") return true;
  }
  return false;
}

pid_t g_roudi = -1;
// At exit, after the runtime (a static made later, so destroyed earlier) has left it.
void stopRoudi() {
  if (g_roudi <= 0) return;
  kill(g_roudi, SIGTERM);
  waitpid(g_roudi, nullptr, 0);
}

// RouDi for the run: the running one, or one started here (stopped at exit). "" or why not.
std::string startRoudi() {
  if (roudiRuns()) return "";
  const char* roudi = "/usr/bin/iox-roudi";
  if (access(roudi, X_OK) != 0) return "iceoryx is not installed (apt-get install iceoryx libiceoryx-posh-dev)";
  g_roudi = fork();
  if (g_roudi == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    execl(roudi, roudi, static_cast<char*>(nullptr));
    _exit(127);
  }
  std::atexit(stopRoudi);
  // Ready once it has its shared memory; a little longer before it takes registrations.
  const auto end = Clock::now() + std::chrono::seconds(10);
  while (!std::filesystem::exists("/dev/shm/iceoryx_mgmt") && Clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return std::filesystem::exists("/dev/shm/iceoryx_mgmt") ? "" : "RouDi did not start";
}

}  // namespace

Figures runIceoryx(int rounds, const Payloads& mail, std::string& why) {
  why = startRoudi();
  Figures f;
  if (!why.empty()) return f;
  std::vector<pid_t> peers;
  for (proto::Node n : kAnsweringNodes) {
    const pid_t pid = fork();
    if (pid == 0) _exit(peer(n, mail));
    peers.push_back(pid);
  }
  initRuntime("rfms-bench-supervisor");
  iox::popo::UntypedPublisher smail_out(topic("S_MAIL")), mmail_out(topic("M_MAIL"));
  std::vector<std::unique_ptr<iox::popo::UntypedSubscriber>> answers;
  iox::popo::WaitSet<> waitset;
  for (proto::Node n : kAnsweringNodes) {
    answers.push_back(std::make_unique<iox::popo::UntypedSubscriber>(topic(answerOf(n))));
    waitset.attachState(*answers.back(), iox::popo::SubscriberState::HAS_DATA).or_else([](auto) { std::exit(2); });
  }
  MailSlot slot;
  // Every peer's "ready", the sign that it hears the supervisor's topic too.
  std::vector<bool> ready(answers.size(), false);
  const auto give_up = Clock::now() + std::chrono::seconds(20);
  while (std::find(ready.begin(), ready.end(), false) != ready.end() && Clock::now() < give_up) {
    waitset.timedWait(iox::units::Duration::fromMilliseconds(100));
    for (std::size_t i = 0; i < answers.size(); ++i)
      while (take(*answers[i], slot)) ready[i] = true;
  }
  if (std::find(ready.begin(), ready.end(), false) != ready.end()) {
    why = "the peers did not connect";
  } else {
    const std::size_t math = 1;  // kAnsweringNodes: arm, math, joint 1..6
    proto::Envelope smail = mail.smail, mmail = mail.mmail;
    for (int k = 1; k <= 2 * rounds; ++k) {
      const bool ping = k <= rounds;
      const auto start = Clock::now();
      std::vector<bool> in(answers.size(), false);
      std::size_t waiting = ping ? 1 : answers.size() - 1;
      if (ping) {
        mmail.mutable_mmail()->mutable_header()->set_period(static_cast<std::uint64_t>(k));
        if (!send(mmail_out, mmail)) why = "RouDi had no chunk to loan";
      } else {
        smail.mutable_smail()->mutable_header()->set_period(static_cast<std::uint64_t>(k));
        if (!send(smail_out, smail)) why = "RouDi had no chunk to loan";
      }
      // A WaitSet wakes on any one answer: the supervisor reads what came and sleeps again.
      while (waiting > 0) {
        if (waitset.timedWait(iox::units::Duration::fromSeconds(5)).empty()) break;
        for (std::size_t i = 0; i < answers.size(); ++i) {
          if ((i == math) != ping) continue;
          while (take(*answers[i], slot))
            if (!in[i]) in[i] = true, --waiting;
        }
      }
      if (waiting > 0) {
        if (why.empty()) why = "an answer did not come within 5 s (round " + std::to_string(k) + ")";
        break;
      }
      (ping ? f.ping_us : f.fan_us).push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
  }
  proto::Envelope stop;
  stop.mutable_stop()->set_reason("benchmark over");
  send(smail_out, stop);
  send(mmail_out, stop);
  reap(peers);
  return f;
}

}  // namespace rfms::bench

#else

namespace rfms::bench {

Figures runIceoryx(int, const Payloads&, std::string& why) {
  why = "this build has no iceoryx (apt-get install iceoryx libiceoryx-posh-dev, then rebuild)";
  return {};
}

}  // namespace rfms::bench

#endif
