#include "common/refusal.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

#include "proto/task.pb.h"

namespace rfms {
namespace {

// Programs match on the names and people read the meanings: each says something of its own.
TEST(Refusal, EachCodeHasANameAndAMeaningOfItsOwn) {
  std::set<std::string> names, meanings;
  for (int i = 0; i < kRefusalCodes; ++i) {
    const auto code = static_cast<RefusalCode>(i);
    const std::string name = refusalName(code);
    EXPECT_FALSE(name.empty()) << i;
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_TRUE(meanings.insert(describe(code)).second) << describe(code);
  }
  EXPECT_STREQ(refusalName(RefusalCode::kUnreachable), "unreachable");
  // A wire code is its proto name without the prefix, in lower case.
  for (int i = 1; i <= proto::RefusalCode_MAX; ++i) {
    std::string wire = proto::RefusalCode_Name(static_cast<proto::RefusalCode>(i)).substr(3);
    for (char& c : wire) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(wire, refusalName(static_cast<RefusalCode>(i)));
  }
}

// What a client reads off the wire: an accepted reply has no code whatever the field holds, and a
// refusal whose code this build does not know (a newer supervisor's, or none) is unspecified.
TEST(Refusal, AWireCodeIsReadAsItsCodeOrUnspecified) {
  EXPECT_EQ(refusalCodeOf(proto::RC_UNREACHABLE, false), RefusalCode::kUnreachable);
  EXPECT_EQ(refusalCodeOf(proto::RC_UNREACHABLE, true), RefusalCode::kNone);
  EXPECT_EQ(refusalCodeOf(0, false), RefusalCode::kUnspecified);
  EXPECT_EQ(refusalCodeOf(proto::RefusalCode_MAX + 1, false), RefusalCode::kUnspecified);
  EXPECT_EQ(refusalCodeOf(-7, false), RefusalCode::kUnspecified);
  EXPECT_STREQ(refusalName(static_cast<RefusalCode>(200)), "unspecified");
  proto::TaskReply reply;
  reply.set_reason("unknown motion 'm'");
  reply.set_code(proto::RC_UNKNOWN_NAME);
  EXPECT_EQ(refusalText(reply), "unknown motion 'm' [unknown_name]");
}

TEST(Refusal, IsFalseWhenNoneAndKeepsItsCodeWhenSaidOfSomething) {
  EXPECT_FALSE(Refusal{});
  const Refusal r = Refusal{RefusalCode::kSceneLacks, "needs a wrist"}.prefixed("motion 'm': ");
  EXPECT_TRUE(r);
  EXPECT_EQ(r.code, RefusalCode::kSceneLacks);
  EXPECT_EQ(r.text, "motion 'm': needs a wrist");
}

}  // namespace
}  // namespace rfms
