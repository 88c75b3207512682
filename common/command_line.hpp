// Every program's command line is parsed the same way, so that a bad one is refused the same way
// everywhere: CLI11's message (and, for a misspelt subcommand, the name that was not one), exit
// code 2; --help prints and exits 0; a floating-point option's value is finite.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

namespace rfms {

// NaN passes every CLI::Range (it compares false both ways) and inf or 1e999 stand for no quantity
// a robot has: a number given on a command line is finite or refused, whatever else its option checks.
inline const CLI::Validator& finiteNumber() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || std::isfinite(x)) return {};  // CLI11 says what is not a number
        return "'" + text + "' is not a finite number";
      },
      "FINITE");
  return v;
}

// Every option that takes floating-point numbers, in the app and all its subcommands, gets
// finiteNumber(); CLI11 names such an option's type FLOAT, followed by its checks' names.
inline void requireFiniteNumbers(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (o->get_type_name().rfind("FLOAT", 0) == 0) o->check(finiteNumber());  // "FLOAT:..." with a check
  for (CLI::App* sub : app.get_subcommands({})) requireFiniteNumbers(*sub);
}

// The exit code when the program must end now, nothing when it goes on.
inline std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv) {
  requireFiniteNumbers(app);
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
