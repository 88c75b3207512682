#include "supervisor/shell/mail_collector.hpp"

#include <algorithm>
#include <utility>

namespace rfms {

namespace {
// Each torque command goes from a joint to the arm beside its J_MAIL: counted as mail here.
constexpr std::uint64_t kTorqueBytes = 24;
}  // namespace

MailCollector::MailCollector(const ClusterSettings& s, MailPort& port, ClusterStats& stats, LogTap& tap)
    : port_(port),
      stats_(stats),
      tap_(tap),
      rules_(s.config.clock()),
      timeout_(std::chrono::milliseconds(s.config.lockstep_timeout_ms())),
      patience_(
          std::max(timeout_, std::min<Clock::duration>(timeout_ * s.config.controller().watchdog_periods(),
                                                       std::chrono::milliseconds(s.config.orphan_timeout_ms()) / 2))),
      period_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(sampleSeconds(s.config.controller())))),
      watchdog_(s.config.controller().watchdog_periods()),
      in_(&slots_[0]),
      sensors_(&slots_[1]),
      parcel_(&slots_[2]) {
  for (int j = 0; j < kJoints; ++j) jmail_[static_cast<std::size_t>(j)] = &slots_[static_cast<std::size_t>(3 + j)];
}

void MailCollector::collect(std::uint64_t k, Clock::time_point tick, SupervisorInbox& in) {
  const auto asked = tick - period_;  // the tick of the period whose answers are due now
  const bool had_sensors = have_sensors_;
  have_sensors_ = have_parcel_ = false;
  have_joint_.fill(false);
  late_.fill(-1.0);
  missed_ = 0;
  if (rules_.waitsForMail()) {
    // Until every node still alive has answered. The arm's sensors come last (it integrates only
    // once every joint's torque of k-1 is in, and each joint sends its J_MAIL first), so the wait
    // usually ends once, when they come; a stop signal does not cut it short, as the stop is a
    // sequence of ordinary periods.
    //
    // A stalled joint holds the arm too (it waits for every torque), and going on without both
    // would cost the arm its power: so when a joint's J_MAIL is missing with the sensors, and the
    // joint was not itself waiting for the arm (the last sensors came), the wait goes on for as
    // long as the watchdog would give any silent node, N timeouts (bounded by half the orphan
    // timeout, so that no node takes the wait for a dead supervisor). A slow machine then slows
    // the run; a joint still silent then is named, as the arm steps without it.
    const auto start = Clock::now();
    auto deadline = start + timeout_;
    for (bool waited_out = false;;) {
      // What came in time counts, whatever is still missing when the wait ends.
      readArm(k);
      readAnswers(k, asked);
      const BoxSet still = missing(k);
      if (still == 0) break;
      if (waited_out) {
        if (deadline == start + patience_ || !(had_sensors && jointHoldsArm(still))) break;
        deadline = start + patience_;
      }
      waited_out = !port_.wait(still, 0, deadline);
    }
  } else {
    // Realtime: what came before the tick, each answer timed from when it came. Most is in well
    // before it, and is read then, so that little is left to read between the tick and the step.
    port_.passUntil(tick - period_ / 5);
    readArm(k);
    readAnswers(k, asked);
    port_.passUntil(tick);
    readArm(k);
    readAnswers(k, asked);
  }
  countLost(k);
  tally(k, in);
}

// Mail the supervisor never used — overwritten in its ring before it was read (a supervisor
// stalled for a second of realtime mail), rewritten while it was copied, damaged or impossible —
// never reaches the run log: the log counts it, so that a re-run stops there without a verdict.
void MailCollector::countLost(std::uint64_t k) {
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    if (writerOf(b) == proto::NODE_SUPERVISOR) continue;
    const MailPort::Faults f = port_.faults(b);
    const auto at = static_cast<std::size_t>(i);
    tap_.lost(b, f.unused() - lost_[at]);
    lost_[at] = f.unused();
    // Damage goes into the log as an event of its own when first seen, then at most once every
    // kDamageEvery periods while it grows.
    if (f.damaged() > damage_logged_[at] && (damage_logged_[at] == 0 || k >= damage_at_[at] + kDamageEvery)) {
      tap_.damaged(k, b, f.damaged());
      damage_logged_[at] = f.damaged();
      damage_at_[at] = k;
    }
  }
}

void MailCollector::readArm(std::uint64_t k) {
  while (port_.next(Box::kArmReport, *in_)) {
    proto::Envelope& mail = in_->mail();
    if (!mail.has_applied()) continue;
    stats_.bytes(mail.ByteSizeLong());  // the arm's report, for the run log
    tap_.applied(*mail.mutable_applied());
  }
  while (port_.next(Box::kSensors, *in_)) {
    const proto::Envelope& mail = in_->mail();
    if (!mail.has_sensors()) continue;
    stats_.bytes(static_cast<std::uint64_t>(mail.ByteSizeLong()) * (kJoints + 1));  // to six joints and here
    tap_.arrived(mail);
    // Lockstep: the sensors of this period; realtime: the latest.
    const std::uint64_t p = mail.sensors().header().period();
    if (rules_.isInput(p, k)) {
      std::swap(sensors_, in_);
      have_sensors_ = true;
    } else if (rules_.isLate(p, k)) {
      tap_.late(mail);
    }
  }
}

void MailCollector::readAnswers(std::uint64_t k, Clock::time_point asked) {
  for (int j = 1; j <= kJoints; ++j) takeAnswer(k, asked, jmailBox(j));
  takeAnswer(k, asked, Box::kParcel);
}

// Every mail of box `b` since the last look: an answer to period k-1's mail is this period's, an
// older one is late. (At k = 0 nothing was asked yet: what comes are hellos.)
void MailCollector::takeAnswer(std::uint64_t k, Clock::time_point asked, Box b) {
  while (port_.next(b, *in_)) {
    const proto::Envelope& mail = in_->mail();
    if (k == 0 || !(mail.has_jmail() || mail.has_parcel())) continue;
    stats_.bytes(mail.ByteSizeLong());
    tap_.arrived(mail);
    const std::uint64_t p = mail.has_jmail() ? mail.jmail().header().period() : mail.parcel().header().period();
    if (p < k - 1) {
      tap_.late(mail);
      continue;
    }
    if (p != k - 1) continue;
    proto::Node node = proto::NODE_MATH;
    if (mail.has_jmail()) {
      const int j = static_cast<int>(mail.jmail().joint());
      if (b != jmailBox(j)) continue;  // a J_MAIL in another joint's box is not its writer's
      std::swap(jmail_[static_cast<std::size_t>(j - 1)], in_);
      have_joint_[static_cast<std::size_t>(j - 1)] = true;
      stats_.bytes(kTorqueBytes);
      node = static_cast<proto::Node>(proto::NODE_JOINT1 + j - 1);
    } else {
      if (b != Box::kParcel) continue;
      std::swap(parcel_, in_);
      have_parcel_ = true;
    }
    // Lateness is measured against ticks, which only realtime keeps.
    if (!rules_.waitsForMail()) {
      const double ms = std::chrono::duration<double, std::milli>(port_.cameAt(b) - asked).count();
      late_[static_cast<std::size_t>(node)] = ms;
      stats_.late(node, ms);
    }
  }
}

// A node silent for the watchdog's N periods is not waited for any more: the watchdog has already
// named it, and waiting would only slow the emergency stop.
bool MailCollector::gone(proto::Node node) const { return silent_[static_cast<std::size_t>(node)] >= watchdog_; }

bool MailCollector::jointHoldsArm(BoxSet still) {
  if ((still & bit(Box::kSensors)) == 0) return false;
  for (int j = 1; j <= kJoints; ++j)
    if ((still & bit(jmailBox(j))) != 0) return true;
  return false;
}

BoxSet MailCollector::missing(std::uint64_t k) const {
  BoxSet m = 0;
  if (!have_sensors_ && !gone(proto::NODE_ARM)) m |= bit(Box::kSensors);
  if (k == 0) return m;
  for (int j = 0; j < kJoints; ++j) {
    const auto node = static_cast<proto::Node>(proto::NODE_JOINT1 + j);
    if (!have_joint_[static_cast<std::size_t>(j)] && !gone(node)) m |= bit(jmailBox(j + 1));
  }
  if (!have_parcel_ && !gone(proto::NODE_MATH)) m |= bit(Box::kParcel);
  return m;
}

void MailCollector::count(proto::Node node, bool arrived) {
  const auto i = static_cast<std::size_t>(node);
  if (arrived) {
    silent_[i] = 0;
    return;
  }
  ++silent_[i];
  stats_.missed(node);
  missed_ |= 1u << node;
}

void MailCollector::tally(std::uint64_t k, SupervisorInbox& in) {
  // Realtime: the arm's publications drift against the ticks, so a window without one is normal
  // jitter and two in a row a miss; the latest sensors are used either way.
  arm_quiet_ = have_sensors_ ? 0 : arm_quiet_ + 1;
  const bool arm_fresh = rules_.waitsForMail() ? have_sensors_ : sensors_->mail().has_sensors() && arm_quiet_ < 2;
  in.arm = arm_fresh ? &sensors_->mail().sensors() : nullptr;
  count(proto::NODE_ARM, arm_fresh);
  for (int j = 0; j < kJoints; ++j) {
    const auto i = static_cast<std::size_t>(j);
    in.joints[i] = have_joint_[i] ? &jmail_[i]->mail().jmail() : nullptr;
    if (k > 0) count(static_cast<proto::Node>(proto::NODE_JOINT1 + j), have_joint_[i]);
  }
  in.parcel = have_parcel_ ? &parcel_->mail().parcel() : nullptr;
  if (k > 0) count(proto::NODE_MATH, have_parcel_);
}

}  // namespace rfms
