// RfmsClient::Force builds the ForceControl the task file would: axes, frame, law.
#include <gtest/gtest.h>

#include "client/rfms_client.hpp"
#include "common/task_file.hpp"

namespace rfms {
namespace {

TEST(ClientForce, BuildsWhatTheTaskFileSays) {
  const RfmsClient::Force f = RfmsClient::Force()
                                  .press(RfmsClient::kZ, -10.0)
                                  .damp(RfmsClient::kZ, 40.0)
                                  .spring(RfmsClient::kRx, 3.0)
                                  .inToolFrame()
                                  .law(proto::FL_PI, 2.0, 30.0);
  const proto::DefineMotion m =
      parseTaskFile("units m rad\nmotion m cartesian 2 0.5 force z -10 damping z 40 stiffness rx 3 frame tool law pi 2 30\n", "t")
          .front()
          .request.motion();
  EXPECT_EQ(f.compliance(), m.compliance());
  EXPECT_EQ(f.message().SerializeAsString(), m.force().SerializeAsString());
  EXPECT_THROW(RfmsClient::Force().press(static_cast<RfmsClient::Compliance>(RfmsClient::kX | RfmsClient::kY), 1.0),
               std::invalid_argument);
}

}  // namespace
}  // namespace rfms
