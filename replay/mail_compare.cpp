#include "replay/mail_compare.hpp"

#include <google/protobuf/util/message_differencer.h>

#include "runlog/run_logger.hpp"

namespace rfms {

std::unique_ptr<google::protobuf::Message> emptyOf(const std::string& t) {
  if (t == topic::kSMail) return std::make_unique<proto::SMail>();
  if (t == topic::kJMail) return std::make_unique<proto::JMail>();
  if (t == topic::kMMail) return std::make_unique<proto::MMail>();
  if (t == topic::kParcel) return std::make_unique<proto::Parcel>();
  if (t == topic::kSensors) return std::make_unique<proto::ArmSensors>();
  if (t == topic::kTorque) return std::make_unique<proto::TorqueCommand>();
  if (t == topic::kEvent) return std::make_unique<proto::LogEvent>();
  return nullptr;
}

std::string firstDifference(const std::string& topic, const std::string& logged, const std::string& rerun) {
  auto a = emptyOf(topic), b = emptyOf(topic);
  if (!a || !a->ParseFromString(logged) || !b->ParseFromString(rerun)) return "the messages differ";
  std::string report;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&report);
  if (d.Compare(*a, *b)) return "the same fields, serialised differently";
  const auto end = report.find('\n');
  return "logged vs re-run: " + report.substr(0, end);
}

std::string replyDivergence(std::uint64_t k, const proto::LogRequest& logged, proto::TaskReply reply) {
  proto::TaskReply expected = logged.reply();
  for (auto* a : {&reply, &expected}) {
    a->clear_session();
    a->clear_number();
    a->clear_handled();
    a->clear_applied_period();
    a->clear_arrival_to_setpoint_ms();
  }
  // A log written before refusals carried codes holds none; its sentences still say the same.
  if (!expected.accepted() && expected.code() == proto::RC_NONE) reply.clear_code();
  if (reply.SerializeAsString() == expected.SerializeAsString()) return "";
  return "period " + std::to_string(k) + ", the answer to request " + std::to_string(logged.request().id()) + ": " +
         (reply.accepted() == expected.accepted()
              ? "differs (" + reply.reason() + " vs " + expected.reason() + ")"
              : std::string(expected.accepted() ? "accepted then, refused now: " + reply.reason()
                                                : "refused then, accepted now"));
}

}  // namespace rfms
