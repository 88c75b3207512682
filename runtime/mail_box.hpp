// The cluster's mailboxes, as RFMS's boards had them on their Multibus: each has exactly one
// writer, and a fixed set of readers. This table is the one place that says who writes and who
// reads what; both transports (runtime/mail_port.hpp) are built from it.
//
// The order matters to the ZeroMQ transport: a node waiting for several boxes at once watches
// only the first one still missing, in this order, which is the order one period's mail comes
// in. The supervisor's J_MAILs and PARCEL come before the arm's sensors (the arm integrates only
// once every torque is in), so it waits for the sensors and finds the rest already there; a
// joint's sensors come before its S_MAIL, so it waits for the S_MAIL.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "common/mail_names.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

enum class Box : std::uint8_t {
  kSMail,      // supervisor -> the joints and the arm: S_MAIL
  kMMail,      // supervisor -> the math server: M_MAIL
  kControl,    // supervisor -> every node: hello, start, stop, refuse
  kSensors,    // arm -> the joints and the supervisor: sensors, and the arm's hello
  kArmReport,  // arm -> supervisor: the torques it received and applied (for the run log)
  kJMail1,     // joint j -> supervisor: J_MAIL, and the joint's hello (kJMail1 + j - 1)
  kJMail2,
  kJMail3,
  kJMail4,
  kJMail5,
  kJMail6,
  kTorque1,  // joint j -> arm: its torque command (kTorque1 + j - 1)
  kTorque2,
  kTorque3,
  kTorque4,
  kTorque5,
  kTorque6,
  kParcel,  // math server -> supervisor: PARCEL, and the math server's hello
};
inline constexpr int kBoxCount = 18;

// A set of boxes: bit i is Box(i).
using BoxSet = std::uint32_t;
constexpr BoxSet bit(Box b) { return BoxSet{1} << static_cast<unsigned>(b); }
constexpr Box jmailBox(int joint) { return static_cast<Box>(static_cast<int>(Box::kJMail1) + joint - 1); }
constexpr Box torqueBox(int joint) { return static_cast<Box>(static_cast<int>(Box::kTorque1) + joint - 1); }
inline constexpr BoxSet kAllJMail = 0x3Fu << static_cast<unsigned>(Box::kJMail1);
inline constexpr BoxSet kAllTorques = 0x3Fu << static_cast<unsigned>(Box::kTorque1);

// The one node that writes `b`.
proto::Node writerOf(Box b);
// The nodes that read `b` (a bit per proto::Node value).
std::uint32_t readersOf(Box b);
// The boxes `node` reads.
BoxSet boxesReadBy(proto::Node node);
// "S_MAIL", "J_MAIL of joint 3", ...: for logs.
const char* boxName(Box b);
// The one byte that names a box on a ZeroMQ socket (its topic frame).
char topicOf(Box b);
std::optional<Box> boxOfTopic(char topic);

// How many mails of a box stay readable after they are written, and how large each may be. A
// reader that falls further behind loses the oldest (counted). Lockstep never lets it (nothing
// is written again before its readers have answered); in realtime the boxes a node reads in
// order hold a second of mail at 1 kHz, as ZeroMQ's queues did, so that a node paused for less
// answers every mail it missed and its run log still verifies core by core. The capacities
// hold the largest mail of each box with room to spare (tests/runtime/test_mail_box.cpp).
int depthOf(Box b);
std::uint32_t capacityOf(Box b);
inline constexpr std::uint32_t kMaxMailBytes = 4096;  // the largest capacity

}  // namespace rfms
