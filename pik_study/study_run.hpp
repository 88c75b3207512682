// The whole study: every segment through every method in every (T_seg, T_upd) case, spread over
// threads. Results do not depend on the number of threads.
#pragma once

#include <functional>
#include <vector>

#include "pik_study/study_errors.hpp"

namespace rfms::study {

struct StudyCase {
  double segment_s = 7.0;
  double update_s = 7e-3;
};

struct CaseResult {
  StudyCase c;
  // errors[m][n]: method m (index into StudyOptions::methods) on segment n.
  std::vector<std::vector<SegmentErrors>> errors;
};

struct StudyOptions {
  std::vector<StudyCase> cases;
  std::vector<Method> methods;
  Timing timing;  // segment_s and update_s are taken from each case
  int threads = 1;
  // Called now and then with (work done, work in all), from any thread, never concurrently.
  std::function<void(long, long)> progress;
};

std::vector<CaseResult> runStudy(const RobotModel& open_model, const std::vector<StudySegment>& segments,
                                 const StudyOptions& options);

}  // namespace rfms::study
