// Why the supervisor refused a request: a code a program can branch on, and the sentence that says
// what exactly was wrong. A refused request changed nothing, whatever its code.
//
// The codes are the wire's (proto RefusalCode) under the same numbers; this header stays free of
// generated code so that a client's headers can name them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace rfms {

namespace proto {
class TaskReply;
}

enum class RefusalCode : std::uint8_t {
  kNone = 0,  // accepted
  kTryAgain,
  kInvalid,
  kUnknownName,
  kNameInUse,
  kTableFull,
  kWrongState,
  kNotCalibrated,
  kUnreachable,
  kUnstable,
  kCannotAct,
  kSceneLacks,
  kNotPermitted,
  kArmTaken,
  kNoTask,
  kOutOfOrder,
  kWrongClient,
  kLogStopped,
  // Not on the wire: a refusal whose code this program does not know (a newer supervisor's).
  kUnspecified,
};
inline constexpr int kRefusalCodes = static_cast<int>(RefusalCode::kUnspecified) + 1;

// The code's name as programs and scripts spell it ("unreachable", "try_again").
const char* refusalName(RefusalCode code);
// What the code means, as a clause a person reads ("the pose or the path cannot be reached").
const char* describe(RefusalCode code);
// A wire number as a code: kNone for 0 when accepted; kUnspecified for a refusal without a known one.
RefusalCode refusalCodeOf(int wire, bool accepted);
// A reply's code.
RefusalCode refusalCodeOf(const proto::TaskReply& reply);
// A refusal as every program shows it: the supervisor's reason, then its code's name in brackets
// ("unknown motion 'm' [unknown_name]"), for a person to read and a script to match.
std::string refusalText(const proto::TaskReply& reply);

// A refusal, or none (the default): `if (Refusal why = check(); why) return why;`.
struct Refusal {
  RefusalCode code = RefusalCode::kNone;
  std::string text;

  Refusal() = default;
  Refusal(RefusalCode c, std::string t) : code(c), text(std::move(t)) {}
  explicit operator bool() const { return code != RefusalCode::kNone; }
  // The same refusal, said of something: prefixed("motion 'm': ").
  Refusal prefixed(std::string_view what) && {
    text.insert(0, what);
    return std::move(*this);
  }
};

}  // namespace rfms
