#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/architecture/layer_table.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/files.hpp"

namespace rfms::test {
namespace {

namespace fs = std::filesystem;

std::vector<LayerRow> projectTable() {
  return readLayerTable(readFile(fs::path(RFMS_SOURCE_DIR) / "docs/architecture.md"));
}

TEST(Layers, TheTableIsReadFromTheArchitecturePage) {
  const std::vector<LayerRow> rows = projectTable();
  ASSERT_GE(rows.size(), 15u);
  const LayerRow* common = rowOf(rows, "common/kinematics.hpp");
  ASSERT_NE(common, nullptr);
  EXPECT_EQ(common->path, "common/");
  EXPECT_EQ(common->may_include, std::set<std::string>{"proto/"});
  // The maths knows no transport, logger or cryptography.
  for (const char* library : {"<zmq", "<spdlog/", "<sodium.h>"})
    EXPECT_NE(std::find(common->forbidden.begin(), common->forbidden.end(), library), common->forbidden.end())
        << library;
  // A file row wins over its folder's: the joint server's main is a shell, its core is not.
  EXPECT_EQ(rowOf(rows, "joint_node/main.cpp")->path, "joint_node/main.cpp");
  EXPECT_EQ(rowOf(rows, "joint_node/joint_core.cpp")->path, "joint_node/");
  EXPECT_EQ(rowOf(rows, "supervisor/shell/cluster_loop.cpp")->path, "supervisor/shell/");
}

TEST(Layers, EveryIncludeOfTheProjectPointsDownTheTable) {
  const std::vector<std::string> v = layerViolations(RFMS_SOURCE_DIR, projectTable());
  std::string all;
  for (const std::string& line : v) all += line + "\n";
  EXPECT_TRUE(v.empty()) << all;
}

TEST(Layers, EveryLinkOfTheBuildPointsDownTheTable) {
  const char* graph = std::getenv("RFMS_LINK_GRAPH");
  ASSERT_NE(graph, nullptr) << "run by ctest, which says where CMake wrote the link graph";
  const std::string text = readFile(graph);
  ASSERT_NE(text.find("rfms_common\tcommon/"), std::string::npos) << graph;
  const std::vector<std::string> v = linkViolations(text, projectTable());
  std::string all;
  for (const std::string& line : v) all += line + "\n";
  EXPECT_TRUE(v.empty()) << all;
}

// The mathematics (rfms_maths, common/) is a library of its own that links Eigen alone: no
// generated code, no files, no logger. Its sources cannot include a protobuf header either: the
// generated headers' directory comes only with rfms_proto.
TEST(Layers, TheMathematicsLinksEigenAlone) {
  const char* graph = std::getenv("RFMS_LINK_GRAPH");
  ASSERT_NE(graph, nullptr) << "run by ctest, which says where CMake wrote the link graph";
  std::istringstream lines(readFile(graph));
  std::string links;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("rfms_maths\t", 0) == 0) links = line.substr(line.rfind('\t') + 1);
  EXPECT_EQ(links, "Eigen3::Eigen;rfms_warnings") << "rfms_maths in " << graph;
  EXPECT_NE(readFile(graph).find("rfms_common\tcommon/thread_role.cpp\trfms_maths;rfms_proto"), std::string::npos);
}

TEST(Layers, ALinkUpOrToAForbiddenLibraryIsCaught) {
  const std::vector<LayerRow> rows = readLayerTable(
      "| path | layer | what | may include | may not include |\n|---|---|---|---|---|\n"
      "| `common/` | 1 | maths | `proto/` | `<sodium.h>`, `<spdlog/` |\n"
      "| `runtime/` | 3 | shells | `proto/`, `common/` | |\n"
      "| `view/` | 4 | tools | `proto/`, `common/`, `runtime/` | |\n");
  const std::string graph =
      "rfms_proto\t\tprotobuf::libprotobuf\n"
      "rfms_common\tcommon/a.cpp\trfms_proto;Eigen3::Eigen;PkgConfig::SODIUM;spdlog::spdlog\n"
      "rfms_runtime\truntime/n.cpp\trfms_common;rfms_view;PkgConfig::ZMQ;spdlog::spdlog\n"
      "rfms_view\tview/v.cpp\trfms_runtime;rfms_common\n"
      "runtime_tests\ttests/runtime/t.cpp\trfms_view\n";
  std::vector<std::string> v = linkViolations(graph, rows);
  std::sort(v.begin(), v.end());
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], "rfms_common (common/) links PkgConfig::SODIUM: common/ may not include <sodium.h>");
  EXPECT_EQ(v[1], "rfms_common (common/) links spdlog::spdlog: common/ may not include <spdlog/");
  EXPECT_EQ(v[2], "rfms_runtime (runtime/) links rfms_view (view/): runtime/ may not include view/");
}

// The check itself, on a small tree made for it: it must catch an include that points up, one
// that points sideways, a library the row forbids, and a file outside every row.
TEST(Layers, AnIncludeUpOrSidewaysIsCaught) {
  char pattern[] = "/tmp/rfms-layers-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path root = pattern;
  auto write = [&](const std::string& file, const std::string& text) {
    fs::create_directories((root / file).parent_path());
    std::ofstream(root / file) << text;
  };
  write("common/a.hpp", "#include \"proto/x.pb.h\"\n#include <vector>\n");
  write("common/up.cpp", "#include \"harness/harness.hpp\"\n");
  write("harness/harness.cpp", "#include \"common/a.hpp\"\n#include \"joint_node/j.hpp\"\n");
  write("joint_node/j.hpp", "  #  include \"supervisor/s.hpp\"\n#include <spdlog/spdlog.h>\n#include <vector>\n");
  write("harness/log.cpp", "#include <spdlog/spdlog.h>\n");  // a shell may log
  write("stray/s.cpp", "\n");
  write("tests/t.cpp", "#include \"harness/harness.hpp\"\n");  // tests may include anything
  const std::vector<LayerRow> rows = readLayerTable(
      "| path | layer | what | may include |\n|---|---|---|---|\n"
      "| `proto/` | 0 | schemas | |\n"
      "| `common/` | 1 | maths | `proto/` |\n"
      "| `joint_node/` | 2 | core | `proto/`, `common/` | `<zmq`, `<spdlog/` |\n"
      "| `supervisor/` | 2 | core | `proto/`, `common/` |\n"
      "| `harness/` | 3 | harness | `proto/`, `common/`, `joint_node/`, `supervisor/` |\n");
  std::vector<std::string> v = layerViolations(root, rows);
  std::sort(v.begin(), v.end());
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], "common/up.cpp:1: \"harness/harness.hpp\": common/ may not include harness/");
  EXPECT_EQ(v[1], "joint_node/j.hpp:1: \"supervisor/s.hpp\": joint_node/ may not include supervisor/");
  EXPECT_EQ(v[2], "joint_node/j.hpp:2: <spdlog/spdlog.h>: joint_node/ may not include <spdlog/");
  EXPECT_EQ(v[3], "stray/s.cpp: in no row of the layer table");
  fs::remove_all(root);
}

}  // namespace
}  // namespace rfms::test
