// What the worst mail a box may hold costs the thread that parses it. A mail in a shared segment
// may be anyone's: the port refuses a body its box never carries before parsing
// (carriesItsOwnBody), and a slot's arena is large enough for the largest tree the rest can build
// in a box's capacity — so that a hostile writer cannot make a period's thread allocate. Each case
// fills a box's capacity with the body that builds the most objects per byte: empty repeated
// messages, one-byte repeated values, long strings. And every way a reader drops damaged mail,
// with the run log's event that says so, costs its thread no allocation either.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runlog/run_logger.hpp"
#include "runtime/mail_box.hpp"
#include "runtime/mail_limits.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/mail_ring.hpp"
#include "runtime/mail_segment.hpp"
#include "runtime/mail_slot.hpp"
#include "supervisor/shell/log_tap.hpp"
#include "tests/support/allocation_counter.hpp"
#include "tests/support/port_cluster.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

// Protobuf's wire form, by hand: what a hostile writer would write.
void varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
std::string field(int number, const std::string& bytes) {
  std::string out;
  varint(out, static_cast<std::uint64_t>(number) << 3 | 2);
  varint(out, bytes.size());
  return out + bytes;
}
// `unit` repeated until the body (inside its envelope field) fills `capacity`.
std::string filled(int body, const std::string& unit, std::uint32_t capacity) {
  std::string inner;
  while (field(body, inner + unit).size() <= capacity) inner += unit;
  return field(body, inner);
}

struct Worst {
  const char* what;
  Box box;
  std::string mail;
};

std::vector<Worst> worstMails() {
  using E = proto::Envelope;
  std::vector<Worst> w;
  // AppliedTorques: empty TorqueCommands, two bytes each.
  w.push_back({"empty torque reports", Box::kArmReport,
               filled(E::kAppliedFieldNumber, field(2, ""), capacityOf(Box::kArmReport))});
  // ArmSensors: one-byte encoder counts, unpacked (two bytes each).
  w.push_back({"unpacked encoder counts", Box::kSensors,
               filled(E::kSensorsFieldNumber, std::string("\x10\x01", 2), capacityOf(Box::kSensors))});
  w.push_back({"unpacked bools", Box::kSensors,
               filled(E::kSensorsFieldNumber, std::string("\x18\x01", 2), capacityOf(Box::kSensors))});
  // SMail: unpacked doubles, a PARCEL inside, a T6 of thousands of values.
  w.push_back({"unpacked sines", Box::kSMail,
               filled(E::kSmailFieldNumber, std::string("\x49") + std::string(8, '\0'), capacityOf(Box::kSMail))});
  w.push_back({"empty T6s", Box::kSMail, filled(E::kSmailFieldNumber, field(5, ""), capacityOf(Box::kSMail))});
  // The control box: a stop with the longest reason it holds; hellos with long digests.
  w.push_back({"a stop's long reason", Box::kControl,
               field(E::kStopFieldNumber, field(1, std::string(capacityOf(Box::kControl) - 16, 'x')))});
  w.push_back({"a stop's reason, over and over", Box::kControl,
               filled(E::kStopFieldNumber, field(1, std::string(20, 'x')), capacityOf(Box::kControl))});
  w.push_back({"a torque command's joint, over and over", Box::kTorque1,
               filled(E::kTorqueFieldNumber, std::string("\x10\x01", 2), capacityOf(Box::kTorque1))});
  w.push_back({"PARCEL rows", Box::kParcel,
               filled(E::kParcelFieldNumber, std::string("\x21") + std::string(8, '\0'), capacityOf(Box::kParcel))});
  return w;
}

TEST(HostileMail, TheWorstMailOfEachBoxParsesWithoutAllocating) {
  MailSlot slot;
  for (const Worst& w : worstMails()) {
    ASSERT_LE(w.mail.size(), capacityOf(w.box)) << w.what;
    ASSERT_TRUE(carriesItsOwnBody(w.box, w.mail.data(), w.mail.size())) << w.what;
    ASSERT_TRUE(slot.parse(w.mail.data(), w.mail.size())) << w.what;
    const long before = test::allocationsOnThisThread();
    for (int i = 0; i < 10; ++i) slot.parse(w.mail.data(), w.mail.size());
    const long per_parse = (test::allocationsOnThisThread() - before) / 10;
    std::printf("%-36s %-28s %5zu bytes: %ld allocations a parse\n", w.what, boxName(w.box), w.mail.size(), per_parse);
    // A string longer than 15 bytes is the one thing protobuf puts on the heap whatever the
    // arena: the control box's reasons and digests cost one allocation each.
    EXPECT_EQ(per_parse, w.box == Box::kControl ? 1 : 0) << w.what;
  }
}

// Bodies no box carries — a task request, a status — are refused before the parser sees them.
TEST(HostileMail, ABodyItsBoxNeverCarriesIsRefusedBeforeParsing) {
  using E = proto::Envelope;
  const std::string request = field(E::kTaskRequestFieldNumber, "");
  const std::string status = field(E::kStatusFieldNumber, "");
  const std::string jmail = field(E::kJmailFieldNumber, "");
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    EXPECT_FALSE(carriesItsOwnBody(b, request.data(), request.size())) << boxName(b);
    EXPECT_FALSE(carriesItsOwnBody(b, status.data(), status.size())) << boxName(b);
    EXPECT_FALSE(carriesItsOwnBody(b, "", 0)) << boxName(b);
  }
  // A field its type does not declare, or one in another wire form than its own.
  const std::string unknown = field(E::kJmailFieldNumber, std::string("\xf8\x07\x01", 3));  // field 127
  const std::string wrong_form = field(E::kJmailFieldNumber, field(3, "12345678"));         // setpoint as bytes
  EXPECT_FALSE(carriesItsOwnBody(Box::kJMail3, unknown.data(), unknown.size()));
  EXPECT_FALSE(carriesItsOwnBody(Box::kJMail3, wrong_form.data(), wrong_form.size()));
  EXPECT_TRUE(carriesItsOwnBody(Box::kJMail3, jmail.data(), jmail.size()));
  EXPECT_FALSE(carriesItsOwnBody(Box::kSMail, jmail.data(), jmail.size()));
}

// Every path a damaged mail takes on a reader's period thread — a failed check, a head no slot
// vouches for, a body of another box, a period that goes back, a value the robot cannot have, and
// the run log's MAIL_DAMAGED event that follows — allocates nothing.
TEST(HostileMail, EveryWayOfDroppingDamagedMailAllocatesNothing) {
  test::PortCluster ports(test::inProcessCluster(proto::MT_SHARED_MEMORY, "damage-paths"));
  MailPort& supervisor = ports.port(proto::NODE_SUPERVISOR);
  const MailLimits limits(test::puma260());
  supervisor.setLimits(&limits);
  const MailSegment intruder = MailSegment::open(MailSegment::pathFor(ports.runDir().string()));
  const Box b = jmailBox(4);
  RingWriter raw(intruder.ring(b), depthOf(b), capacityOf(b));
  auto* ring = static_cast<RingHeader*>(intruder.ring(b));
  // Serialised beforehand: the writer's allocations are not the reader's.
  proto::Envelope e;
  e.mutable_jmail()->set_joint(4);
  const std::string good = e.SerializeAsString();
  e.mutable_jmail()->set_torque(std::numeric_limits<double>::quiet_NaN());
  const std::string wild = e.SerializeAsString();
  e.mutable_smail();
  const std::string other = e.SerializeAsString();
  auto write = [&](const std::string& bytes, std::uint64_t period) {
    raw.write(bytes.data(), static_cast<std::uint32_t>(bytes.size()), period, 0);
  };
  RunLogHeader header;
  header.source = "test";
  RunLogger run_log((ports.runDir() / "run.mcap").string(), header, RunLogger::WhenFull::kWait);
  LogTap tap(&run_log, proto::CM_LOCKSTEP);
  MailSlot in;
  // Once through every path before counting: the slot's arena and the logger's ring reach their
  // sizes.
  for (int round = 0; round < 2; ++round) {
    const std::uint64_t k = 10 * static_cast<std::uint64_t>(round) + 10;
    const long before = test::allocationsOnThisThread();
    write(good, k);
    auto* slot = reinterpret_cast<SlotHeader*>(reinterpret_cast<std::byte*>(ring + 1) +
                                               ((ring->head.load() - 1) % static_cast<std::uint64_t>(depthOf(b))) *
                                                   (sizeof(SlotHeader) + capacityOf(b)));
    slot->check.store(slot->check.load() ^ 1u);  // corrupt
    supervisor.next(b, in);
    const std::uint64_t head = ring->head.load();
    ring->head.store(head + 1000);  // a head no slot vouches for
    supervisor.next(b, in);
    ring->head.store(head);
    write(other, k + 1);  // another box's body
    write(good, k + 2);   // taken
    write(good, k - 5);   // a period that goes back
    write(wild, k + 3);   // a NaN torque
    write(good, k + 4);   // taken
    int taken = 0;
    while (supervisor.next(b, in)) ++taken;
    EXPECT_EQ(taken, 2);
    tap.damaged(k, b, supervisor.faults(b).damaged());
    const long allocations = test::allocationsOnThisThread() - before;
    if (round == 1) {
      EXPECT_EQ(allocations, 0);
    }
  }
  const MailPort::Faults f = supervisor.faults(b);
  EXPECT_EQ(f.corrupt, 4u);  // two checks, two heads
  EXPECT_EQ(f.malformed, 2u);
  EXPECT_EQ(f.disordered, 2u);
  EXPECT_EQ(f.impossible, 2u);
  run_log.finish();
}

}  // namespace
}  // namespace rfms
