#include "supervisor/shell/mail_collector.hpp"

#include "node/mail_wait.hpp"
#include "node/transport.hpp"

#include <utility>

namespace rfms {

namespace {
// Each torque command goes from a joint to the arm beside its J_MAIL: counted on the wire here.
constexpr std::uint64_t kTorqueBytes = 24;
}  // namespace

MailCollector::MailCollector(const ClusterSettings& s, zmq::socket_t& arm, zmq::socket_t& pull, ClusterStats& stats,
                             LogTap& tap)
    : arm_(arm),
      pull_(pull),
      stats_(stats),
      tap_(tap),
      wait_all_(waitsForMail(s.config.clock())),
      timeout_(std::chrono::milliseconds(s.config.lockstep_timeout_ms())),
      period_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(sampleSeconds(s.config.controller())))),
      watchdog_(s.config.controller().watchdog_periods()),
      in_(&slots_[0]),
      sensors_(&slots_[1]),
      parcel_(&slots_[2]) {
  for (int j = 0; j < kJoints; ++j) jmail_[static_cast<std::size_t>(j)] = &slots_[static_cast<std::size_t>(3 + j)];
}

void MailCollector::collect(std::uint64_t k, Clock::time_point tick, SupervisorInbox& in) {
  const auto deadline = wait_all_ ? Clock::now() + timeout_ : tick;
  const auto asked = tick - period_;  // the tick of the period whose answers are due now
  have_sensors_ = have_parcel_ = false;
  have_joint_.fill(false);
  late_.fill(-1.0);
  missed_ = 0;
  for (;;) {
    while (receive(arm_, *in_, 0)) takeFromArm(k, in_->mail());
    // Lockstep: the arm's sensors of k come last, since the arm integrates only once every joint's
    // torque of k-1 is in, and each joint sends its J_MAIL beside its torque. Until they come, the
    // joints' and the math server's mail waits unread: reading each as it arrives would wake this
    // thread up to seven more times a period, while the arm integrates on the same two cores.
    const bool arm_first = wait_all_ && !have_sensors_ && !gone(proto::NODE_ARM);
    if (!arm_first) drainPull(k, asked);
    // A stop signal does not cut the wait short: the stop is a sequence of ordinary periods.
    if (wait_all_ && complete(k)) break;
    if (!(arm_first ? waitForMail({&arm_}, deadline) : waitForMail({&arm_, &pull_}, deadline))) {
      if (arm_first) drainPull(k, asked);  // what came in time counts, whatever the arm did
      break;
    }
  }
  tally(k, in);
}

void MailCollector::takeFromArm(std::uint64_t k, proto::Envelope& mail) {
  if (mail.has_applied()) {
    stats_.bytes(mail.ByteSizeLong());  // the arm's report, sent only when the run is logged
    tap_.applied(*mail.mutable_applied());
    return;
  }
  if (!mail.has_sensors()) return;
  stats_.bytes(static_cast<std::uint64_t>(mail.ByteSizeLong()) * (kJoints + 1));  // to six joints and here
  tap_.arrived(mail);
  // Lockstep: the sensors of this period; realtime: the latest.
  if (!wait_all_ || mail.sensors().header().period() == k) {
    std::swap(sensors_, in_);
    have_sensors_ = true;
  } else if (mail.sensors().header().period() < k) {
    tap_.late(mail);
  }
}

void MailCollector::takeFromPull(std::uint64_t k, Clock::time_point asked, const proto::Envelope& mail) {
  if (k == 0) return;  // nothing was asked yet: these are hellos
  stats_.bytes(mail.ByteSizeLong());
  tap_.arrived(mail);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - asked).count();
  auto arrived = [&](proto::Node node) {
    if (wait_all_) return;  // lateness is measured against ticks, which only realtime keeps
    late_[static_cast<std::size_t>(node)] = ms;
    stats_.late(node, ms);
  };
  if (mail.has_jmail() && mail.jmail().header().period() == k - 1) {
    const int j = static_cast<int>(mail.jmail().joint()) - 1;
    if (j < 0 || j >= kJoints) return;
    std::swap(jmail_[static_cast<std::size_t>(j)], in_);
    have_joint_[static_cast<std::size_t>(j)] = true;
    stats_.bytes(kTorqueBytes);
    arrived(static_cast<proto::Node>(proto::NODE_JOINT1 + j));
  } else if (mail.has_parcel() && mail.parcel().header().period() == k - 1) {
    std::swap(parcel_, in_);
    have_parcel_ = true;
    arrived(proto::NODE_MATH);
  } else if ((mail.has_jmail() && mail.jmail().header().period() < k - 1) ||
             (mail.has_parcel() && mail.parcel().header().period() < k - 1)) {
    tap_.late(mail);
  }
}

void MailCollector::drainPull(std::uint64_t k, Clock::time_point asked) {
  while (receive(pull_, *in_, 0)) takeFromPull(k, asked, in_->mail());
}

// A node silent for the watchdog's N periods is not waited for any more: the watchdog has already
// named it, and waiting would only slow the emergency stop.
bool MailCollector::gone(proto::Node node) const { return silent_[static_cast<std::size_t>(node)] >= watchdog_; }

bool MailCollector::complete(std::uint64_t k) const {
  if (!have_sensors_ && !gone(proto::NODE_ARM)) return false;
  if (k == 0) return true;
  for (int j = 0; j < kJoints; ++j)
    if (!have_joint_[static_cast<std::size_t>(j)] && !gone(static_cast<proto::Node>(proto::NODE_JOINT1 + j)))
      return false;
  return have_parcel_ || gone(proto::NODE_MATH);
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
  const bool arm_fresh = wait_all_ ? have_sensors_ : sensors_->mail().has_sensors() && arm_quiet_ < 2;
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
