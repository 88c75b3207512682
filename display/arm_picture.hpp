// The arm as one period's mail shows it, for rfms-view and a run log's display channels: the six joints'
// angles (their J_MAILs), the setpoint the supervisor sent (S_MAIL's T6 and state) and what the
// sensors read (the arm's mail). The mail of a period arrives box by box; a picture is whole when
// all six J_MAILs of its period are in, and only the newest whole one is drawn.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "common/scene.hpp"
#include "common/types.hpp"
#include "proto/cluster.pb.h"

namespace rfms::display {

struct ArmPicture {
  std::uint64_t period = 0;
  JointVec angles = JointVec::Zero();  // rad, from each joint's encoder, as its J_MAIL says
  bool has_setpoint = false;           // S_MAIL of this period was seen
  Transform setpoint = Transform::Identity();
  proto::RtState rtstate = proto::RT_IDLE;
  bool has_wrench = false;     // the sensors of this period carried a reading
  Vec6 wrench = Vec6::Zero();  // what the tool puts on the flange: T6's axes, about its origin
};

class PictureBuilder {
 public:
  // The scene says which sensor the arm has and how to read it; it must outlive the builder.
  explicit PictureBuilder(const Scene& scene) : scene_(scene) {}
  // One mail of any box; the kinds the picture does not use are ignored.
  void take(const proto::Envelope& mail);
  void take(const proto::JMail& j);
  void take(const proto::SMail& s);
  void take(const proto::ArmSensors& a);
  // The newest whole picture newer than the last one returned; nullopt when there is none.
  std::optional<ArmPicture> newest();

 private:
  // The last few periods of each kind, indexed by period modulo the depth: enough for the mail
  // of the periods a 60 Hz reader finds between two looks to be put together in any order.
  static constexpr std::size_t kDepth = 64;
  template <class T>
  struct Slot {
    std::uint64_t period = UINT64_MAX;
    T value{};
  };
  struct SetpointMail {
    Transform t6 = Transform::Identity();
    bool valid = false;
    proto::RtState rtstate = proto::RT_IDLE;
  };
  std::array<std::array<Slot<double>, kDepth>, kJoints> angles_{};
  std::array<Slot<SetpointMail>, kDepth> setpoints_{};
  std::array<Slot<std::optional<Vec6>>, kDepth> wrenches_{};
  const Scene& scene_;
  std::uint64_t newest_jmail_ = 0;
  std::optional<std::uint64_t> newest_smail_;  // none until the first S_MAIL
  std::optional<std::uint64_t> shown_;
};

}  // namespace rfms::display
