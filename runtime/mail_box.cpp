#include "runtime/mail_box.hpp"

namespace rfms {

namespace {
constexpr std::uint32_t nodeBit(proto::Node n) { return std::uint32_t{1} << static_cast<unsigned>(n); }
constexpr std::uint32_t kJoints6 = nodeBit(proto::NODE_JOINT1) | nodeBit(proto::NODE_JOINT2) |
                                   nodeBit(proto::NODE_JOINT3) | nodeBit(proto::NODE_JOINT4) |
                                   nodeBit(proto::NODE_JOINT5) | nodeBit(proto::NODE_JOINT6);
constexpr int index(Box b) { return static_cast<int>(b); }
bool isJMail(Box b) { return index(b) >= index(Box::kJMail1) && index(b) <= index(Box::kJMail6); }
bool isTorque(Box b) { return index(b) >= index(Box::kTorque1) && index(b) <= index(Box::kTorque6); }
}  // namespace

proto::Node writerOf(Box b) {
  if (isJMail(b)) return static_cast<proto::Node>(proto::NODE_JOINT1 + index(b) - index(Box::kJMail1));
  if (isTorque(b)) return static_cast<proto::Node>(proto::NODE_JOINT1 + index(b) - index(Box::kTorque1));
  switch (b) {
    case Box::kSensors:
    case Box::kArmReport: return proto::NODE_ARM;
    case Box::kParcel: return proto::NODE_MATH;
    default: return proto::NODE_SUPERVISOR;
  }
}

std::uint32_t readersOf(Box b) {
  if (isJMail(b)) return nodeBit(proto::NODE_SUPERVISOR);
  if (isTorque(b)) return nodeBit(proto::NODE_ARM);
  switch (b) {
    case Box::kSMail: return kJoints6 | nodeBit(proto::NODE_ARM);
    case Box::kMMail: return nodeBit(proto::NODE_MATH);
    case Box::kControl: return kJoints6 | nodeBit(proto::NODE_ARM) | nodeBit(proto::NODE_MATH);
    case Box::kSensors: return kJoints6 | nodeBit(proto::NODE_SUPERVISOR);
    default: return nodeBit(proto::NODE_SUPERVISOR);  // the arm's reports, the PARCELs
  }
}

BoxSet boxesReadBy(proto::Node node) {
  BoxSet s = 0;
  for (int i = 0; i < kBoxCount; ++i)
    if ((readersOf(static_cast<Box>(i)) & nodeBit(node)) != 0) s |= bit(static_cast<Box>(i));
  return s;
}

const char* boxName(Box b) {
  static constexpr std::array<const char*, kBoxCount> kNames{"S_MAIL",
                                                             "M_MAIL",
                                                             "the supervisor's control mail",
                                                             "the arm's sensors",
                                                             "the arm's reports",
                                                             "J_MAIL of joint 1",
                                                             "J_MAIL of joint 2",
                                                             "J_MAIL of joint 3",
                                                             "J_MAIL of joint 4",
                                                             "J_MAIL of joint 5",
                                                             "J_MAIL of joint 6",
                                                             "the torque of joint 1",
                                                             "the torque of joint 2",
                                                             "the torque of joint 3",
                                                             "the torque of joint 4",
                                                             "the torque of joint 5",
                                                             "the torque of joint 6",
                                                             "PARCEL"};
  return kNames[static_cast<std::size_t>(index(b))];
}

// Printable and distinct: S M C A T, 1..6, a..f, P.
char topicOf(Box b) {
  static constexpr char kTopics[kBoxCount + 1] = "SMCAT123456abcdefP";
  return kTopics[index(b)];
}

std::optional<Box> boxOfTopic(char topic) {
  for (int i = 0; i < kBoxCount; ++i)
    if (topicOf(static_cast<Box>(i)) == topic) return static_cast<Box>(i);
  return std::nullopt;
}

int depthOf(Box b) {
  if (isTorque(b)) return 8;  // the arm uses the newest, and reports what it read
  return b == Box::kControl ? 16 : 1024;
}

std::uint32_t capacityOf(Box b) {
  if (isJMail(b)) return 1024;
  if (isTorque(b)) return 512;
  switch (b) {
    case Box::kSMail:
    case Box::kSensors: return 2048;
    case Box::kMMail:
    case Box::kParcel: return 1024;
    default: return kMaxMailBytes;  // the control mail's reasons; the arm's reports of up to 48 torques
  }
}

}  // namespace rfms
