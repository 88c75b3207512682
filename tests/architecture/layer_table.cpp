#include "tests/architecture/layer_table.hpp"

#include <cctype>
#include <fstream>
#include <map>
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
    rows.push_back({path[0], {may.begin(), may.end()}, c.size() > 4 ? quoted(c[4]) : std::vector<std::string>{}});
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
  static const std::regex library("^\\s*#\\s*include\\s+(<[^>]+>)");
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
      const std::string where = file + ":" + std::to_string(number) + ": ";
      if (std::regex_search(line, m, library)) {
        const std::string header = m[1];
        for (const std::string& f : own->forbidden)
          if (header.rfind(f, 0) == 0) out.push_back(where + header + ": " + own->path + " may not include " + f);
        continue;
      }
      if (!std::regex_search(line, m, include)) continue;
      const std::string target = m[1];
      const LayerRow* to = rowOf(rows, target);
      if (to == nullptr)
        out.push_back(where + "\"" + target + "\" is in no row of the layer table");
      else if (to != own && own->may_include.count(to->path) == 0)
        out.push_back(where + "\"" + target + "\": " + own->path + " may not include " + to->path);
    }
  }
  return out;
}

namespace {

// What a forbidden include's library is called where it is linked: "<sodium.h>" -> "sodium".
std::string libraryWord(std::string include) {
  std::string word;
  for (const char ch : include) {
    if (ch == '<' || ch == '>') continue;
    if (ch == '/' || ch == '.') break;
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return word;
}

std::string lowered(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

std::vector<std::string> linkViolations(const std::string& graph, const std::vector<LayerRow>& rows) {
  struct Target {
    std::string first_source;
    std::vector<std::string> links;
  };
  std::map<std::string, Target> targets;
  std::stringstream in(graph);
  for (std::string line; std::getline(in, line);) {
    std::stringstream fields(line);
    std::string name, first, links;
    std::getline(fields, name, '\t');
    std::getline(fields, first, '\t');
    std::getline(fields, links, '\t');
    Target& t = targets[name];
    t.first_source = first;
    std::stringstream each(links);
    for (std::string l; std::getline(each, l, ';');)
      if (!l.empty()) t.links.push_back(l);
  }
  std::vector<std::string> out;
  for (const auto& [name, t] : targets) {
    if (t.first_source.empty() || t.first_source.rfind("tests/", 0) == 0) continue;
    const LayerRow* own = rowOf(rows, t.first_source);
    if (own == nullptr) {
      out.push_back(name + " (" + t.first_source + "): in no row of the layer table");
      continue;
    }
    for (const std::string& l : t.links) {
      const auto linked = targets.find(l);
      if (linked != targets.end()) {
        const LayerRow* to = linked->second.first_source.empty() ? nullptr : rowOf(rows, linked->second.first_source);
        if (to != nullptr && to != own && own->may_include.count(to->path) == 0)
          out.push_back(name + " (" + own->path + ") links " + l + " (" + to->path + "): " + own->path +
                        " may not include " + to->path);
        continue;
      }
      for (const std::string& f : own->forbidden)
        if (lowered(l).find(libraryWord(f)) != std::string::npos)
          out.push_back(name + " (" + own->path + ") links " + l + ": " + own->path + " may not include " + f);
    }
  }
  return out;
}

}  // namespace rfms::test
