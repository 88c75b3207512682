#include "display/arm_picture.hpp"

#include <algorithm>

#include "common/mail_codec.hpp"
#include "common/sensed_wrench.hpp"

namespace rfms::display {

void PictureBuilder::take(const proto::Envelope& mail) {
  switch (mail.body_case()) {
    case proto::Envelope::kJmail: return take(mail.jmail());
    case proto::Envelope::kSmail: return take(mail.smail());
    case proto::Envelope::kSensors: return take(mail.sensors());
    default: return;
  }
}

void PictureBuilder::take(const proto::JMail& j) {
  if (j.joint() < 1 || j.joint() > static_cast<unsigned>(kJoints)) return;
  const std::uint64_t k = j.header().period();
  angles_[j.joint() - 1][k % kDepth] = {k, j.angle()};
  newest_jmail_ = std::max(newest_jmail_, k);
}

void PictureBuilder::take(const proto::SMail& s) {
  SetpointMail m;
  m.valid = s.has_t6() && decode(s.t6(), m.t6);
  m.rtstate = s.rtstate();
  setpoints_[s.header().period() % kDepth] = {s.header().period(), m};
  newest_smail_ = std::max(newest_smail_.value_or(0), s.header().period());
}

void PictureBuilder::take(const proto::ArmSensors& a) {
  std::optional<Vec6> w;
  const WristModel* wrist = scene_.sensor == SensorKind::kCompliantWrist ? &scene_.wrist : nullptr;
  if (Vec6 read; sensedFlangeWrench(a, wrist, scene_.tool, read)) w = read;
  wrenches_[a.header().period() % kDepth] = {a.header().period(), w};
}

std::optional<ArmPicture> PictureBuilder::newest() {
  // From the newest J_MAIL's period back over the depth kept, the first period all six answered.
  for (std::uint64_t back = 0; back < kDepth && back <= newest_jmail_; ++back) {
    const std::uint64_t k = newest_jmail_ - back;
    if (shown_ && k <= *shown_) return std::nullopt;
    // The joints answer an S_MAIL after it was sent, but a reader may find their answers before
    // it reads the S_MAIL itself: a period newer than every S_MAIL seen waits for its own (once any
    // has come; one lost is passed over when a newer one comes).
    if (newest_smail_ && k > *newest_smail_) continue;
    ArmPicture p;
    p.period = k;
    bool whole = true;
    for (int j = 0; j < kJoints && whole; ++j) {
      const auto& slot = angles_[static_cast<std::size_t>(j)][k % kDepth];
      whole = slot.period == k;
      p.angles[j] = slot.value;
    }
    if (!whole) continue;
    if (const auto& s = setpoints_[k % kDepth]; s.period == k) {
      p.has_setpoint = s.value.valid;
      p.setpoint = s.value.t6;
      p.rtstate = s.value.rtstate;
    }
    if (const auto& w = wrenches_[k % kDepth]; w.period == k && w.value) {
      p.has_wrench = true;
      p.wrench = *w.value;
    }
    shown_ = k;
    return p;
  }
  return std::nullopt;
}

}  // namespace rfms::display
