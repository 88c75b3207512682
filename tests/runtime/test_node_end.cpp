// A node's last word in the run directory (runtime/node_end.hpp): whole JSON with the schema's
// field names, the enum's zero included, or the reason it could not be written.
#include <gtest/gtest.h>

#include <google/protobuf/util/json_util.h>

#include <filesystem>

#include "runtime/node_end.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

TEST(NodeEnd, IsWrittenWholeAsJsonAndReadsBackTheSame) {
  const std::string dir = test::scratchDir().string();
  proto::NodeEnd end;
  end.set_node(proto::NODE_ARM);
  end.set_cause(proto::NodeEnd::STOPPED);  // the enum's zero: written all the same
  end.set_period(35604);
  end.set_detail("task finished");
  end.set_power_on(false);
  end.set_fastest_joint_rad_s(0.0);
  ASSERT_EQ(writeNodeEnd(dir, "arm", end), "");
  const std::string text = test::readFile(nodeEndPath(dir, "arm"));
  EXPECT_NE(text.find("\"cause\":\"STOPPED\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"power_on\":false"), std::string::npos) << text;
  EXPECT_FALSE(std::filesystem::exists(nodeEndPath(dir, "arm").string() + ".part"));
  // A joint knows nothing of the arm's power: its record says nothing of it.
  proto::NodeEnd joint;
  joint.set_node(proto::NODE_JOINT3);
  joint.set_cause(proto::NodeEnd::SUPERVISOR_SILENT);
  ASSERT_EQ(writeNodeEnd(dir, "joint3", joint), "");
  EXPECT_EQ(test::readFile(nodeEndPath(dir, "joint3")), "{\"node\":\"NODE_JOINT3\",\"cause\":\"SUPERVISOR_SILENT\"}\n");
  proto::NodeEnd back;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(text, &back).ok()) << text;
  EXPECT_EQ(back.SerializeAsString(), end.SerializeAsString());
}

TEST(NodeEnd, ADirectoryThatIsNotThereIsTheReasonNotACrash) {
  const std::string why = writeNodeEnd((test::scratchDir() / "gone").string(), "joint3", proto::NodeEnd());
  EXPECT_NE(why.find("joint3.end.json"), std::string::npos) << why;
}

}  // namespace
}  // namespace rfms
