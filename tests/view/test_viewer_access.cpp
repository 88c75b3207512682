// Who may connect to rfms-view (view/foxglove_server.hpp): a Host that names this server and an
// Origin that is its own page's, Foxglove's web app or one given; the token in a request's query.
#include <gtest/gtest.h>

#include "view/foxglove_server.hpp"

namespace rfms::view {
namespace {

TEST(ViewerAccess, AHostMustNameThisServerAndAnOriginItsOwnPageOrAGivenOne) {
  ServerOptions o;
  EXPECT_EQ(refusedFrom(o, "127.0.0.1:8765", ""), "");  // not a browser: no Origin
  EXPECT_EQ(refusedFrom(o, "127.0.0.1:8765", "http://127.0.0.1:8765"), "");
  EXPECT_EQ(refusedFrom(o, "[::1]:8765", "http://[::1]:8765"), "");
  EXPECT_EQ(refusedFrom(o, "localhost:8765", "http://localhost:8765"), "");
  EXPECT_EQ(refusedFrom(o, "192.168.1.20:8765", "https://app.foxglove.dev"), "");
  // A page elsewhere, and a DNS name rebound to this machine (its page's origin matches its Host).
  EXPECT_NE(refusedFrom(o, "127.0.0.1:8765", "http://evil.example"), "");
  EXPECT_NE(refusedFrom(o, "127.0.0.1:8765", "null"), "");
  EXPECT_NE(refusedFrom(o, "rebound.example:8765", "http://rebound.example:8765"), "");
  EXPECT_NE(refusedFrom(o, "rebound.example:8765", ""), "");
  EXPECT_NE(refusedFrom(o, "", ""), "");
  // What the operator names is let in.
  o.hosts = {"robot-cell"};
  o.origins.push_back("http://dashboard:8080");
  EXPECT_EQ(refusedFrom(o, "robot-cell:8765", "http://robot-cell:8765"), "");
  EXPECT_EQ(refusedFrom(o, "robot-cell:8765", "http://dashboard:8080"), "");
  EXPECT_NE(refusedFrom(o, "robot-cell.evil.example:8765", ""), "");
}

TEST(ViewerAccess, TheTokenIsReadFromTheQueryAndComparedWhole) {
  EXPECT_EQ(queryValue("/?token=abc", "token"), "abc");
  EXPECT_EQ(queryValue("/?x=1&token=abc&y=2", "token"), "abc");
  EXPECT_EQ(queryValue("/?xtoken=abc", "token"), "");
  EXPECT_EQ(queryValue("/", "token"), "");
  EXPECT_TRUE(sameToken("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(sameToken("0123456789abcdeF", "0123456789abcdef"));
  EXPECT_FALSE(sameToken("0123", "0123456789abcdef"));
  EXPECT_FALSE(sameToken("", ""));  // no token means nobody holds it
}

}  // namespace
}  // namespace rfms::view
