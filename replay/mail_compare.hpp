// What both ways of verifying a log share: naming the first field two messages differ in, and
// judging the supervisor's answer to a logged request.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <google/protobuf/message.h>

#include "proto/runlog.pb.h"

namespace rfms {

// An empty message of a log topic's type (nullptr for a topic that holds no mailbox).
std::unique_ptr<google::protobuf::Message> emptyOf(const std::string& topic);

// The first field in which two serialised messages of `topic` differ, for a person.
std::string firstDifference(const std::string& topic, const std::string& logged, const std::string& rerun);

// "" when the re-run's answer to a logged request is the logged one; else what differs. What a
// cluster's remote desk adds to an answer (session, number, periods, latency) is not compared.
std::string replyDivergence(std::uint64_t k, const proto::LogRequest& logged, proto::TaskReply rerun);

}  // namespace rfms
