#include "runtime/mail_limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>

namespace rfms {

namespace {

constexpr double kTurn = 2.0 * std::numbers::pi;

bool finite(double v) { return std::isfinite(v); }
bool within(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }
bool within(double v, double bound) { return within(v, -bound, bound); }

template <class Values>
bool allFinite(const Values& values) {
  for (double v : values)
    if (!std::isfinite(v)) return false;
  return true;
}

// The first bytes of a serialised Envelope: the tag of its one body, a length-delimited field.
int bodyField(const void* mail, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(mail);
  if (size == 0) return 0;
  // Field numbers up to 15 take one byte of tag, 16 takes two.
  if ((p[0] & 0x80u) == 0) return (p[0] & 7u) == 2 ? p[0] >> 3 : 0;
  if (size < 2 || (p[1] & 0x80u) != 0) return 0;
  const unsigned tag = (p[0] & 0x7Fu) | (static_cast<unsigned>(p[1]) << 7);
  return (tag & 7u) == 2 ? static_cast<int>(tag >> 3) : 0;
}

// Reads a varint at `p` (before `end`) into `v`; false when it runs past the end or ten bytes.
bool readVarint(const unsigned char*& p, const unsigned char* end, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    const unsigned char byte = *p++;
    v |= static_cast<std::uint64_t>(byte & 0x7Fu) << shift;
    if ((byte & 0x80u) == 0) return true;
  }
  return false;
}

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// The wire type a field of this type is written with (packed repeated values aside).
int wireTypeOf(const FieldDescriptor& f) {
  switch (f.type()) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64: return 1;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32: return 5;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE: return 2;
    default: return 0;
  }
}

// Whether `size` bytes are a message of type `d` with no field it does not declare and every
// field in its declared wire form, to a depth of a few messages. Protobuf keeps fields it does not
// know in a set of their own on the heap, whatever the arena: mail with them is refused before
// the parser sees it. No allocation: the descriptors are the program's own.
bool fitsSchema(const Descriptor& d, const unsigned char* p, const unsigned char* end, int depth) {
  if (depth > 4) return false;
  while (p < end) {
    std::uint64_t tag = 0;
    if (!readVarint(p, end, tag)) return false;
    const FieldDescriptor* f = d.FindFieldByNumber(static_cast<int>(std::min<std::uint64_t>(tag >> 3, 1u << 29)));
    const int wire = static_cast<int>(tag & 7u);
    if (f == nullptr) return false;
    const bool packed = wire == 2 && f->is_repeated() && wireTypeOf(*f) != 2;
    if (wire != wireTypeOf(*f) && !packed) return false;
    std::uint64_t v = 0;
    switch (wire) {
      case 0:
        if (!readVarint(p, end, v)) return false;
        break;
      case 1:
      case 5: {
        const std::ptrdiff_t n = wire == 1 ? 8 : 4;
        if (end - p < n) return false;
        p += n;
        break;
      }
      default: {
        if (!readVarint(p, end, v) || v > static_cast<std::uint64_t>(end - p)) return false;
        const unsigned char* inner_end = p + v;
        if (f->type() == FieldDescriptor::TYPE_MESSAGE && !fitsSchema(*f->message_type(), p, inner_end, depth + 1))
          return false;
        p = inner_end;
      }
    }
  }
  return true;
}

// Protobuf builds a descriptor's lookup by field number on its first use, allocating under a lock:
// done here, for every type a mail can hold, so that the period's first look at a mail does not.
void warmLookups(const Descriptor& d, int depth) {
  d.FindFieldByNumber(1);
  if (depth > 4) return;
  for (int i = 0; i < d.field_count(); ++i)
    if (const Descriptor* m = d.field(i)->message_type()) warmLookups(*m, depth + 1);
}

}  // namespace

void prepareMailChecks() {
  static const bool done = (warmLookups(*proto::Envelope::descriptor(), 0), true);
  (void)done;
}

MailLimits::MailLimits(const RobotModel& model) {
  for (int i = 0; i < kJoints; ++i) {
    const JointModel& j = model.joints[static_cast<std::size_t>(i)];
    joints_[static_cast<std::size_t>(i)] = Joint{j.q_min - kTurn, j.q_max + kTurn, 10.0 * j.qd_max, 2.0 * j.tau_max};
  }
}

const char* MailLimits::impossible(Box b, const proto::Envelope& m) const {
  switch (m.body_case()) {
    case proto::Envelope::kJmail: return jmail(b, m.jmail());
    case proto::Envelope::kSmail: return smail(m.smail());
    case proto::Envelope::kSensors: return sensors(m.sensors());
    case proto::Envelope::kTorque: return torque(b, m.torque());
    case proto::Envelope::kParcel: return parcel(m.parcel());
    case proto::Envelope::kMmail: return mmail(m.mmail());
    default: return nullptr;  // the control mail and the arm's reports: read by the shells, not the cores
  }
}

const char* MailLimits::jmail(Box b, const proto::JMail& j) const {
  if (j.joint() < 1 || j.joint() > kJoints || jmailBox(static_cast<int>(j.joint())) != b)
    return "a J_MAIL of another joint than its box's";
  const Joint& l = joints_[j.joint() - 1];
  if (!within(j.setpoint(), l.q_lo, l.q_hi)) return "a setpoint beyond the joint's range";
  if (!within(j.angle(), l.q_lo, l.q_hi)) return "an angle beyond the joint's range";
  if (!within(j.servo_setpoint(), l.q_lo, l.q_hi)) return "a servo setpoint beyond the joint's range";
  if (!within(j.velocity(), l.qd) || !within(j.desired_velocity(), l.qd)) return "a speed no joint reaches";
  if (!within(j.torque(), l.tau)) return "a torque beyond the joint's amplifier";
  if (!finite(j.desired_acceleration()) || !finite(j.servo_error())) return "a value that is not a number";
  return nullptr;
}

const char* MailLimits::smail(const proto::SMail& s) const {
  if (s.t6().m_size() != 0 && (s.t6().m_size() != 12 || !allFinite(s.t6().m()))) return "a T6 that is not a transform";
  for (double v : s.setpoint_sin())
    if (!within(v, 1.0)) return "a setpoint's sine beyond [-1, 1]";
  if (!allFinite(s.desired_acceleration()) || !allFinite(s.servo_error()) || !allFinite(s.force_command()))
    return "a value that is not a number";
  if (s.jog_joint() < 0 || s.jog_joint() > kJoints || s.jog_direction() < -1 || s.jog_direction() > 1)
    return "a jog of no joint";
  if (s.has_parcel()) return parcel(s.parcel());
  return nullptr;
}

const char* MailLimits::sensors(const proto::ArmSensors& a) const {
  if (!allFinite(a.wrench()) || !allFinite(a.wrist_angle()) || !allFinite(a.deflection()))
    return "a wrench or wrist reading that is not a number";
  return nullptr;
}

const char* MailLimits::torque(Box b, const proto::TorqueCommand& t) const {
  if (t.joint() < 1 || t.joint() > kJoints || torqueBox(static_cast<int>(t.joint())) != b)
    return "a torque of another joint than its box's";
  if (!within(t.torque(), joints_[t.joint() - 1].tau)) return "a torque beyond the joint's amplifier";
  return nullptr;
}

const char* MailLimits::parcel(const proto::Parcel& p) const {
  if (p.joint() > kJoints) return "a PARCEL of no joint";
  if (!allFinite(p.inertia_row()) || !allFinite(p.compliance_row()) || !allFinite(p.jacobian_column()) ||
      !finite(p.velocity_torque()) || !finite(p.gravity_torque()))
    return "a PARCEL value that is not a number";
  return nullptr;
}

const char* MailLimits::mmail(const proto::MMail& m) const {
  for (int i = 0; i < m.angles_size(); ++i) {
    const Joint& l = joints_[static_cast<std::size_t>(i % kJoints)];
    if (!within(m.angles(i), l.q_lo, l.q_hi)) return "an angle beyond the joint's range";
  }
  if (!allFinite(m.velocities())) return "a speed that is not a number";
  return nullptr;
}

bool carriesItsOwnBody(Box b, const void* mail, std::size_t size) {
  using E = proto::Envelope;
  const int field = bodyField(mail, size);
  bool ours = false;
  switch (b) {
    case Box::kSMail: ours = field == E::kSmailFieldNumber; break;
    case Box::kMMail: ours = field == E::kMmailFieldNumber; break;
    case Box::kControl:
      ours = field == E::kHelloFieldNumber || field == E::kStartFieldNumber || field == E::kStopFieldNumber ||
             field == E::kRefuseFieldNumber || field == E::kFaultFieldNumber;
      break;
    case Box::kSensors: ours = field == E::kSensorsFieldNumber || field == E::kHelloFieldNumber; break;
    case Box::kArmReport: ours = field == E::kAppliedFieldNumber; break;
    case Box::kParcel: ours = field == E::kParcelFieldNumber || field == E::kHelloFieldNumber; break;
    default:
      ours = b >= Box::kJMail1 && b <= Box::kJMail6 ? field == E::kJmailFieldNumber || field == E::kHelloFieldNumber
                                                    : field == E::kTorqueFieldNumber;
  }
  const auto* p = static_cast<const unsigned char*>(mail);
  return ours && fitsSchema(*E::descriptor(), p, p + size, 0);
}

}  // namespace rfms
