// The layer table of docs/architecture.md, read from the page itself, and the check of a source
// tree against it: every quoted #include must point to the file's own row or to a row it may
// include, and no angle-bracket #include may start as one its row forbids ("<zmq", "<spdlog/").
// The page is the table's one home; this only reads it.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace rfms::test {

struct LayerRow {
  std::string path;  // "common/" (a folder) or "supervisor/main.cpp" (one file)
  std::set<std::string> may_include;
  std::vector<std::string> forbidden;  // libraries, as their includes start: "<zmq", "<sodium.h>"
};

// The rows of the table whose header starts "| path |".
std::vector<LayerRow> readLayerTable(const std::string& markdown);

// The row a path (relative to the tree's root) belongs to: the longest matching one, or nullptr.
const LayerRow* rowOf(const std::vector<LayerRow>& rows, const std::string& path);

// One line for each include that points outside what its file's row allows, and for each source
// file that belongs to no row. Scans C++ sources below `root`, leaving out tests/, build output,
// tools/ and hidden folders.
std::vector<std::string> layerViolations(const std::filesystem::path& root, const std::vector<LayerRow>& rows);

// The same rules on CMake's link graph (tests/architecture/CMakeLists.txt writes it: per line a
// target, its first source file and what it links, tab-separated; the target's row is its first
// source's). One line for each link to a target of a row its own may not include, and for each
// link to a library its row forbids ("PkgConfig::ZMQ", "cppzmq" by "<zmq"; "spdlog::spdlog" by
// "<spdlog/"; "PkgConfig::SODIUM" by "<sodium.h>"). Targets of tests/ may link anything.
std::vector<std::string> linkViolations(const std::string& graph, const std::vector<LayerRow>& rows);

}  // namespace rfms::test
