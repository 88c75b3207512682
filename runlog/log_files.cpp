#include "runlog/log_files.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace rfms {

namespace fs = std::filesystem;

namespace {

// run.mcap -> ("run", ".mcap"); a name without an extension keeps the whole name as its stem.
std::pair<std::string, std::string> stemAndExtension(const std::string& first) {
  const fs::path p(first);
  if (!p.has_extension()) return {first, ""};
  return {(p.parent_path() / p.stem()).string(), p.extension().string()};
}

}  // namespace

std::string logFilePath(const std::string& first, unsigned n) {
  if (n == 0) return first;
  const auto [stem, extension] = stemAndExtension(first);
  return stem + "." + std::to_string(n) + extension;
}

std::vector<LogFile> logFilesOf(const std::string& first) {
  std::vector<LogFile> files;
  std::error_code ec;
  if (fs::is_regular_file(first, ec)) files.push_back({0, first});
  const auto [stem, extension] = stemAndExtension(first);
  const fs::path dir = fs::path(first).parent_path().empty() ? fs::path(".") : fs::path(first).parent_path();
  const std::string prefix = fs::path(stem).filename().string() + ".";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + extension.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - extension.size(), extension.size(), extension) != 0)
      continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - extension.size());
    if (digits.empty() || digits.size() > 9 || digits[0] == '0' ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    files.push_back({static_cast<unsigned>(std::stoul(digits)), (dir / name).string()});
  }
  std::sort(files.begin(), files.end(), [](const LogFile& a, const LogFile& b) { return a.number < b.number; });
  return files;
}

}  // namespace rfms
