// The files of a split run log. The first keeps the name the run was given (run.mcap); the
// following ones insert their number before the extension (run.1.mcap, run.2.mcap, ...). Each is
// a whole MCAP file with the run's header, so any one of them opens in any MCAP reader, and
// retention may remove the oldest without spoiling the rest.
#pragma once

#include <string>
#include <vector>

namespace rfms {

// The name of file `n` (0: the first) of the run log `first`.
std::string logFilePath(const std::string& first, unsigned n);

struct LogFile {
  unsigned number = 0;
  std::string path;
};

// The files of the run log `first` that exist, in order; `first` itself may be gone (removed by
// retention) while later ones remain. Empty when there are none.
std::vector<LogFile> logFilesOf(const std::string& first);

}  // namespace rfms
