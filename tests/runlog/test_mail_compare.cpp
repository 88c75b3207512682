#include "replay/mail_compare.hpp"

#include <gtest/gtest.h>

namespace rfms {
namespace {

proto::LogRequest logged(bool accepted, const std::string& reason, proto::RefusalCode code) {
  proto::LogRequest r;
  r.mutable_request()->set_id(7);
  r.mutable_reply()->set_id(7);
  r.mutable_reply()->set_accepted(accepted);
  r.mutable_reply()->set_reason(reason);
  r.mutable_reply()->set_code(code);
  return r;
}

// A log written before refusals had codes verifies against a re-run that gives them; a code that
// differs from a logged one is a divergence, as a different sentence is.
TEST(ReplyDivergence, ALogWithoutRefusalCodesStillVerifiesButADifferentCodeDoesNot) {
  proto::TaskReply rerun;
  rerun.set_id(7);
  rerun.set_reason("unknown motion 'm'");
  rerun.set_code(proto::RC_UNKNOWN_NAME);
  EXPECT_EQ(replyDivergence(3, logged(false, "unknown motion 'm'", proto::RC_NONE), rerun), "");
  EXPECT_EQ(replyDivergence(3, logged(false, "unknown motion 'm'", proto::RC_UNKNOWN_NAME), rerun), "");
  EXPECT_NE(replyDivergence(3, logged(false, "unknown motion 'm'", proto::RC_INVALID), rerun), "");
  EXPECT_NE(replyDivergence(3, logged(false, "unknown position 'p'", proto::RC_NONE), rerun), "");
}

}  // namespace
}  // namespace rfms
