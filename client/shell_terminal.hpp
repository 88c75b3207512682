// rfms-client shell: an operator at a terminal drives the arm. Line editing, history and
// completion of commands and defined names come from libedit; on a terminal, the top line shows
// the controller's state, refreshed in place four times a second, also while a `wait` waits.
#pragma once

#include <string>
#include <vector>

#include "client/rfms_client.hpp"

namespace rfms {

// Opens a task of the operator's own, reads lines until quit or end of input, closes the task.
// `options` are the client's: the status line opens a session of its own with them. Returns 0,
// or 1 when the task could not be opened or closed.
int runOperatorShell(RfmsClient& client, const ClientOptions& options);

// rfms-client watch: the status line `rate` times a second, in place on a terminal, a line each
// otherwise; for `seconds` (0: until interrupted). Returns 0.
int watchStatus(RfmsClient& client, double rate, double seconds);

// rfms-client watch SIGNAL...: the signals sampled by the controller `rate` times a second, a line
// a sample (the controller's time, the period, the values), after a header naming them; for
// `seconds` (0: until interrupted). Returns 0, or 1 when the link gave up.
int watchSignals(const ClientOptions& options, const std::vector<std::string>& signals, double rate, double seconds);

}  // namespace rfms
