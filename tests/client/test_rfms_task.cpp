// The manual's C interface refuses a malformed call with its reason, returns its failure value and
// counts it, before anything is sent; without a link, every call is refused the same way.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "client/rfms_task.h"

namespace {

// The reason of the refusal the call just caused (the count grew by one).
template <typename F>
std::string refusalOf(F&& call) {
  const int before = rfms_refusals();
  call();
  EXPECT_EQ(rfms_refusals(), before + 1);
  return rfms_last_refusal();
}

bool says(const std::string& reason, const char* part) { return reason.find(part) != std::string::npos; }

TEST(RfmsTask, WithoutALinkEveryCallIsRefusedAndReturnsItsFailureValue) {
  TRSF* t = nullptr;
  EXPECT_TRUE(says(refusalOf([&] { t = gentr_trsl("t2", 203.2, -126.23, 203.2); }), "not connected"));
  EXPECT_EQ(t, nullptr);
  MOT* m = nullptr;
  EXPECT_TRUE(says(refusalOf([&] { m = makemot(2.0, 0.2, JNT, 0); }), "not connected"));
  EXPECT_EQ(m, nullptr);
  EXPECT_TRUE(says(refusalOf([] { rfms_close(); }), "not open"));
}

TEST(RfmsTask, APositionListIsCheckedBeforeItIsSent) {
  // Handles of the manual's own: t6 and the markers. A bad list is refused before the link is
  // asked, so these reasons are the list's, not "not connected".
  EXPECT_TRUE(says(refusalOf([] { makepst("p", DOWN, RIGHT, FLIP, t6, EQ, t6, TL, t6); }), "RIGHT or LEFT"));
  EXPECT_TRUE(says(refusalOf([] { makepst("p", RIGHT, DOWN, FLIP, t6, TL, t6); }), "no EQ"));
  EXPECT_TRUE(says(refusalOf([] { makepst("p", RIGHT, DOWN, FLIP, t6, EQ, t6, EQ, t6, TL, t6); }), "EQ stands twice"));
  EXPECT_TRUE(says(refusalOf([] { makepst("p", RIGHT, DOWN, FLIP, t6, EQ, t6, TL, EQ); }), "followed by the tool"));
  // A transform that was refused is NULL: the list says which term.
  EXPECT_TRUE(says(refusalOf([] { makepst("p", RIGHT, DOWN, FLIP, t6, EQ, static_cast<TRSF*>(nullptr), TL, t6); }),
                   "term 3 is NULL"));
  EXPECT_TRUE(says(refusalOf([] { makemot(2.0, 0.2, 7, 0); }), "JNT or CAR"));
  const VECT zero{0, 0, 0};
  EXPECT_TRUE(says(refusalOf([&] { gentr_rot("r", 0, 0, 0, &zero, 30); }), "axis"));
  EXPECT_EQ(move(nullptr, nullptr), 0);
  EXPECT_EQ(waitmove(0), -1);
}

}  // namespace
