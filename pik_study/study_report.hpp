// What the study prints and writes: markdown tables per case, the paper's figures beside ours,
// one CSV row per segment, and histograms (with a gnuplot script that draws them like the
// paper's figures 5-13).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "pik_study/study_run.hpp"

namespace rfms::study {

struct StudyDescription {
  std::string robot;
  SamplerOptions sampler;
  std::uint64_t seed = 0;
  int count = 0;
  int near_wrist = 0;  // segments passing near the wrist singularity
  double runtime_s = 0.0;
  int threads = 1;
};

void writeTables(std::ostream& out, const StudyDescription& d, const std::vector<Method>& methods,
                 const std::vector<StudySegment>& segments, const std::vector<CaseResult>& results);

// The paper's claims (A.6 §IV) next to the same quantity measured here, for the methods given.
void writePaperComparison(std::ostream& out, const std::vector<Method>& methods,
                          const std::vector<StudySegment>& segments, const std::vector<CaseResult>& results);

void writeSegmentsCsv(std::ostream& out, const std::vector<Method>& methods, const std::vector<StudySegment>& segments,
                      const std::vector<CaseResult>& results);

// Writes DIR/histograms.dat and DIR/plots.gp; `gnuplot DIR/plots.gp` then draws DIR/case-*.png.
// Returns the script's path.
std::string writeHistograms(const std::string& dir, const std::vector<Method>& methods,
                            const std::vector<StudySegment>& segments, const std::vector<CaseResult>& results);

}  // namespace rfms::study
