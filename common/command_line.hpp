// Every program's command line is parsed the same way, so that a bad one is refused the same way
// everywhere: CLI11's message (and, for a misspelt subcommand, the name that was not one), exit
// code 2; --help prints and exits 0.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

namespace rfms {

// The exit code when the program must end now, nothing when it goes on.
inline std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    // CLI11 says only "A subcommand is required" for `rfms-replay vrify LOG`: name the word too.
    const std::vector<std::string> rest = app.remaining();
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && app.get_subcommands().empty() &&
        !app.get_subcommands({}).empty() && !rest.empty()) {
      std::string names;
      for (const CLI::App* s : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + s->get_name();
      std::cerr << std::filesystem::path(argv[0]).filename().string() << ": '" << rest.front()
                << "' is not a subcommand: expected one of " << names << "\n";
      return 2;
    }
    return app.exit(e) == 0 ? 0 : 2;
  }
}

}  // namespace rfms
