#include "supervisor/shell/cluster_stats.hpp"

#include <cstdio>
#include <sstream>

#include "common/mail_names.hpp"
#include "runlog/run_logger.hpp"

namespace rfms {

double ClusterStats::bytesPerPeriod() const {
  const std::uint64_t k = periods();
  return k > 0 ? static_cast<double>(bytes_.load(kRelaxed)) / static_cast<double>(k) : 0.0;
}

std::string ClusterStats::statusText(const RunLogger* log) const {
  std::ostringstream o;
  char buf[200];
  std::snprintf(buf, sizeof buf, "period %llu, state %s, %.0f bytes/period\n",
                static_cast<unsigned long long>(periods()), stateName(state_.load(kRelaxed)), bytesPerPeriod());
  o << buf;
  for (proto::Node n : kClusterNodes) {
    const LatenessHistogram::Summary l = lateness(n);
    std::snprintf(buf, sizeof buf, "  %-10s misses %8llu  lateness ms p50 %.3f p99 %.3f max %.3f\n", nodeName(n),
                  static_cast<unsigned long long>(misses(n)), l.p50, l.p99, l.max);
    o << buf;
  }
  if (log != nullptr) {
    // Never silent: what the run log had to drop shows here as it happens.
    o << "  run log    " << log->describe(0) << "\n";
  }
  return o.str();
}

std::string ClusterStats::json() const {
  std::ostringstream o;
  o << "{\"periods\":" << periods() << ",\"bytes_per_period\":" << bytesPerPeriod() << ",\"nodes\":{";
  bool first = true;
  for (proto::Node n : kClusterNodes) {
    const LatenessHistogram::Summary l = lateness(n);
    o << (first ? "" : ",") << '"' << nodeName(n) << "\":{\"misses\":" << misses(n) << ",\"p50_ms\":" << l.p50
      << ",\"p99_ms\":" << l.p99 << ",\"p999_ms\":" << l.p999 << ",\"max_ms\":" << l.max << "}";
    first = false;
  }
  o << "}}";
  return o.str();
}

}  // namespace rfms
