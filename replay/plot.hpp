// `rfms-replay plot`: a picture of a run, drawn by gnuplot: joint setpoints against measured
// angles, the Cartesian path deviation, the servo torques, and the period lateness histogram
// (realtime runs; a lockstep run has none).
#pragma once

#include <string>

#include "replay/run_log_reader.hpp"

namespace rfms {

// `output` ends in .png or .svg. Throws ConfigError when gnuplot is missing or fails.
void plotLog(const RunLog& log, const std::string& output);

}  // namespace rfms
