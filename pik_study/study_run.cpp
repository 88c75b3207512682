#include "pik_study/study_run.hpp"

#include <atomic>
#include <mutex>
#include <thread>

namespace rfms::study {

std::vector<CaseResult> runStudy(const RobotModel& open_model, const std::vector<StudySegment>& segments,
                                 const StudyOptions& options) {
  std::vector<CaseResult> results;
  for (const StudyCase& c : options.cases) {
    CaseResult r;
    r.c = c;
    r.errors.assign(options.methods.size(), std::vector<SegmentErrors>(segments.size()));
    results.push_back(std::move(r));
  }
  // One unit of work: one segment through every method of one case.
  const long total = static_cast<long>(results.size() * segments.size());
  std::atomic<long> next{0}, done{0};
  std::mutex progress_mutex;
  auto worker = [&] {
    for (long u = next++; u < total; u = next++) {
      CaseResult& r = results[static_cast<std::size_t>(u) / segments.size()];
      const std::size_t n = static_cast<std::size_t>(u) % segments.size();
      Timing timing = options.timing;
      timing.segment_s = r.c.segment_s;
      timing.update_s = r.c.update_s;
      for (std::size_t m = 0; m < options.methods.size(); ++m) {
        const Method method = options.methods[m];
        const auto servo = servoSetpoints(open_model, segments[n], timing, method);
        r.errors[m][n] = measureErrors(open_model, segments[n], timing, updatePeriod(method, timing), servo);
      }
      const long d = ++done;
      if (options.progress) {
        std::lock_guard lock(progress_mutex);
        options.progress(d, total);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < options.threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return results;
}

}  // namespace rfms::study
