#include "tests/architecture/layer_table.hpp"

#include <fstream>
#include <regex>
#include <sstream>

namespace rfms::test {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  std::getline(in, cell, '|');  // before the first bar
  while (std::getline(in, cell, '|')) out.push_back(cell);
  return out;
}

std::vector<std::string> quoted(const std::string& cell) {
  std::vector<std::string> out;
  static const std::regex code("`([^`]+)`");
  for (auto it = std::sregex_iterator(cell.begin(), cell.end(), code); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

bool matches(const std::string& row, const std::string& path) {
  return row.back() == '/' ? path.rfind(row, 0) == 0 : path == row;
}

bool skipped(const fs::path& relative) {
  const std::string top = relative.begin()->string();
  return top == "tests" || top == "tools" || top.rfind("build", 0) == 0 || top[0] == '.' ||
         relative.string().find("node_modules") != std::string::npos;
}

}  // namespace

std::vector<LayerRow> readLayerTable(const std::string& markdown) {
  std::vector<LayerRow> rows;
  std::stringstream in(markdown);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| path |", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("|", 0) != 0) break;  // the table ends at the first line that is not a row
    const std::vector<std::string> c = cells(line);
    if (c.size() < 4) continue;
    const std::vector<std::string> path = quoted(c[0]);
    if (path.size() != 1) continue;  // the |---| line
    const std::vector<std::string> may = quoted(c[3]);
    rows.push_back({path[0], {may.begin(), may.end()}});
  }
  return rows;
}

const LayerRow* rowOf(const std::vector<LayerRow>& rows, const std::string& path) {
  const LayerRow* best = nullptr;
  for (const LayerRow& r : rows)
    if (matches(r.path, path) && (best == nullptr || r.path.size() > best->path.size())) best = &r;
  return best;
}

std::vector<std::string> layerViolations(const fs::path& root, const std::vector<LayerRow>& rows) {
  std::vector<std::string> out;
  static const std::regex include("^\\s*#\\s*include\\s+\"([^\"]+)\"");
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = fs::relative(it->path(), root);
    if (it->is_directory()) {
      if (skipped(relative)) it.disable_recursion_pending();
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cc") continue;
    const std::string file = relative.generic_string();
    const LayerRow* own = rowOf(rows, file);
    if (own == nullptr) {
      out.push_back(file + ": in no row of the layer table");
      continue;
    }
    std::ifstream in(it->path());
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string target = m[1];
      const LayerRow* to = rowOf(rows, target);
      const std::string where = file + ":" + std::to_string(number) + ": ";
      if (to == nullptr)
        out.push_back(where + "\"" + target + "\" is in no row of the layer table");
      else if (to != own && own->may_include.count(to->path) == 0)
        out.push_back(where + "\"" + target + "\": " + own->path + " may not include " + to->path);
    }
  }
  return out;
}

}  // namespace rfms::test
