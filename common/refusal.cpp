#include "common/refusal.hpp"

#include "proto/task.pb.h"

namespace rfms {

namespace {

struct Entry {
  const char* name;
  const char* meaning;
};

// In the enum's order; the static_asserts below hold it to the wire's numbers.
constexpr Entry kEntries[kRefusalCodes] = {
    {"none", "accepted"},
    {"try_again", "the supervisor cannot take it now: send it again"},
    {"invalid", "a value is malformed or out of range"},
    {"unknown_name", "it names a transform, position or motion that is not defined"},
    {"name_in_use", "the name is defined otherwise already, or in use by a move or a position"},
    {"table_full", "the world model or this client's key holds as many names as it may"},
    {"wrong_state", "the arm's present state does not allow it"},
    {"not_calibrated", "the arm is not calibrated"},
    {"unreachable", "the pose or the path is outside the workspace or the joint limits, or at a singularity"},
    {"unstable", "the stability check predicts the force law or compensator will not hold"},
    {"cannot_act", "no contact of the scene can give what the law asks"},
    {"scene_lacks", "the scene lacks a sensor, a wrist or friction it needs"},
    {"not_permitted", "this client's key may not do it"},
    {"arm_taken", "another client's task holds the arm"},
    {"no_task", "it needs a task of this client's own"},
    {"out_of_order", "the request's number is older than the last handled, or skips ahead"},
    {"wrong_client", "it is for another kind of client"},
    {"log_stopped", "the run requires a log, and the log stopped writing"},
    {"unspecified", "refused for a reason this client does not know"},
};

#define RFMS_SAME(code, wire) static_assert(static_cast<int>(RefusalCode::code) == proto::wire)
RFMS_SAME(kNone, RC_NONE);
RFMS_SAME(kTryAgain, RC_TRY_AGAIN);
RFMS_SAME(kInvalid, RC_INVALID);
RFMS_SAME(kUnknownName, RC_UNKNOWN_NAME);
RFMS_SAME(kNameInUse, RC_NAME_IN_USE);
RFMS_SAME(kTableFull, RC_TABLE_FULL);
RFMS_SAME(kWrongState, RC_WRONG_STATE);
RFMS_SAME(kNotCalibrated, RC_NOT_CALIBRATED);
RFMS_SAME(kUnreachable, RC_UNREACHABLE);
RFMS_SAME(kUnstable, RC_UNSTABLE);
RFMS_SAME(kCannotAct, RC_CANNOT_ACT);
RFMS_SAME(kSceneLacks, RC_SCENE_LACKS);
RFMS_SAME(kNotPermitted, RC_NOT_PERMITTED);
RFMS_SAME(kArmTaken, RC_ARM_TAKEN);
RFMS_SAME(kNoTask, RC_NO_TASK);
RFMS_SAME(kOutOfOrder, RC_OUT_OF_ORDER);
RFMS_SAME(kWrongClient, RC_WRONG_CLIENT);
RFMS_SAME(kLogStopped, RC_LOG_STOPPED);
#undef RFMS_SAME
static_assert(proto::RefusalCode_MAX + 1 == static_cast<int>(RefusalCode::kUnspecified),
              "every wire code has its C++ code, and kUnspecified stays off the wire");

const Entry& entry(RefusalCode code) {
  const auto i = static_cast<std::size_t>(code);
  return kEntries[i < std::size(kEntries) ? i : std::size(kEntries) - 1];
}

}  // namespace

const char* refusalName(RefusalCode code) { return entry(code).name; }

const char* describe(RefusalCode code) { return entry(code).meaning; }

RefusalCode refusalCodeOf(int wire, bool accepted) {
  if (accepted) return RefusalCode::kNone;
  if (wire <= 0 || wire > proto::RefusalCode_MAX) return RefusalCode::kUnspecified;
  return static_cast<RefusalCode>(wire);
}

RefusalCode refusalCodeOf(const proto::TaskReply& reply) { return refusalCodeOf(reply.code(), reply.accepted()); }

std::string refusalText(const proto::TaskReply& reply) {
  return reply.reason() + " [" + refusalName(refusalCodeOf(reply)) + "]";
}

}  // namespace rfms
