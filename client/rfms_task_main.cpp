// The manual's main() for C task programs (A.5 §2.1): it opens the link, begins a task, calibrates
// the arm when it is not, calls the user's pumatask(), waits for every move it queued and ends the
// task. Exit 0 when nothing was refused and every move completed, 1 otherwise, 2 on a bad command
// line.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "client/rfms_task.h"
#include "common/command_line.hpp"

int main(int argc, char** argv) {
  CLI::App app{"A task program: runs its pumatask() on the controller through rfms-bridge"};
  std::string bridge = "127.0.0.1:47031", key, task = "pumatask";
  app.add_option("--bridge", bridge, "the bridge, host:port")->capture_default_str();
  app.add_option("--key", key, "this client's key file (deploy/rfms keys)")->envname("RFMS_KEY");
  app.add_option("--task", task, "the task's name, as the supervisor's log shows it")->capture_default_str();
  if (const auto code = rfms::parseCommandLine(app, argc, argv)) return *code;

  if (rfms_open(bridge.c_str(), key.empty() ? nullptr : key.c_str(), task.c_str()) != 0) return 1;
  pumatask();
  const int closed = rfms_close();
  const int refused = rfms_refusals();
  std::cout << task << ": " << (closed == 0 && refused == 0 ? "done" : "FAILED") << ", " << refused
            << " call(s) refused" << (refused > 0 ? std::string(" (last: ") + rfms_last_refusal() + ")" : "") << "\n";
  return closed == 0 && refused == 0 ? 0 : 1;
}
