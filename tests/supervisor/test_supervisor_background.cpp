// The supervisor's background alone: what it refuses when the period has not taken its commands.
#include <gtest/gtest.h>

#include <string>

#include "supervisor/supervisor_background.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

// A background whose period never steps: once the link is full, a request is refused with the
// reason and leaves the world model as it was; a wait that frees room lets it through.
TEST(SupervisorBackground, ALinkThePeriodHasNotEmptiedRefusesAndChangesNothing) {
  SupervisorLink link;
  SupervisorBackground background(test::puma260(), SupervisorConfig{}, link);
  const std::size_t room = link.commands.capacity();
  for (std::size_t n = 0; n < room; ++n)
    ASSERT_TRUE(background.handle(test::request(test::transformDef("t" + std::to_string(n), Transform::Identity())))
                    .accepted());
  const proto::TaskReply refused =
      background.handle(test::request(test::transformDef("one_too_many", Transform::Identity())));
  EXPECT_FALSE(refused.accepted());
  EXPECT_EQ(refused.code(), proto::RC_TRY_AGAIN) << refused.reason();
  EXPECT_LT(background.world().findTransform("one_too_many"), 0);

  int waits = 0;
  background.whenFull([&] {
    ++waits;
    link.commands.pop();  // as a period taking one command
  });
  EXPECT_TRUE(background.handle(test::request(test::transformDef("one_too_many", Transform::Identity()))).accepted());
  EXPECT_EQ(waits, 1);
  EXPECT_GE(background.world().findTransform("one_too_many"), 0);
}

}  // namespace
}  // namespace rfms
