#include "pik_study/study_report.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rfms::study {

namespace {

using Metric = std::function<double(const SegmentErrors&)>;

struct NamedMetric {
  const char* name;   // for files and plot titles
  const char* label;  // for plot titles
  Metric get;
};

const NamedMetric kMetrics[] = {
    {"dp_max", "maximum position error over the segment", [](const SegmentErrors& e) { return e.dp_max_mm; }},
    {"dp_mean", "mean position error over the segment", [](const SegmentErrors& e) { return e.dp_mean_mm; }},
    {"dr_max", "maximum orientation error over the segment", [](const SegmentErrors& e) { return e.dr_max_deg; }},
    {"dr_mean", "mean orientation error over the segment", [](const SegmentErrors& e) { return e.dr_mean_deg; }},
};

std::vector<double> collect(const std::vector<SegmentErrors>& errors, const std::vector<StudySegment>& segments,
                            const Metric& metric, bool skip_near_wrist) {
  std::vector<double> v;
  for (std::size_t n = 0; n < errors.size(); ++n)
    if (!skip_near_wrist || !segments[n].near_wrist) v.push_back(metric(errors[n]));
  return v;
}

std::string num(double x) {
  if (x == 0.0) return "0";
  if (std::abs(x) < 1e-4) return fmt::format("{:.1e}", x);
  return fmt::format("{:.3g}", x);
}

std::string caseName(const StudyCase& c) {
  return fmt::format("T_seg = {:g} s, T_upd = {:g} ms", c.segment_s, c.update_s * 1e3);
}

std::string caseFile(const StudyCase& c) { return fmt::format("case-{:g}s-{:g}ms", c.segment_s, c.update_s * 1e3); }

// "p50 / p90 / p99 / max" of one metric.
std::string spread(std::vector<double> v) {
  const double p50 = percentile(v, 50), p90 = percentile(v, 90), p99 = percentile(v, 99);
  return fmt::format("{} / {} / {} / {}", num(p50), num(p90), num(p99), num(percentile(v, 100)));
}

const CaseResult* findCase(const std::vector<CaseResult>& results, double seg, double upd) {
  for (const auto& r : results)
    if (std::abs(r.c.segment_s - seg) < 1e-9 && std::abs(r.c.update_s - upd) < 1e-12) return &r;
  return nullptr;
}

int methodIndex(const std::vector<Method>& methods, Method m) {
  for (std::size_t i = 0; i < methods.size(); ++i)
    if (methods[i] == m) return static_cast<int>(i);
  return -1;
}

}  // namespace

void writeTables(std::ostream& out, const StudyDescription& d, const std::vector<Method>& methods,
                 const std::vector<StudySegment>& segments, const std::vector<CaseResult>& results) {
  out << fmt::format(
      "Robot {}; {} segments (seed {}), {} of them passing within {:g} deg of the wrist singularity; "
      "workspace margin {:g} mm; no point of any path closer than {:g} deg to the singular wrist. "
      "Errors at every {} ms servo sample of the motion. Each cell: p50 / p90 / p99 / max over the "
      "segments. Runtime {:.1f} s on {} thread(s).\n\n",
      d.robot, d.count, d.seed, d.near_wrist, d.sampler.near_wrist_deg, d.sampler.workspace_margin_m * 1e3,
      d.sampler.wrist_clearance_deg, 1, d.runtime_s, d.threads);
  for (const CaseResult& r : results) {
    out << "#### " << caseName(r.c) << "\n\n";
    out << "| method | δp max (mm) | δp mean (mm) | δr max (deg) | δr mean (deg) | δr max, away from the wrist "
           "singularity (deg) | settle (updates, max) |\n|---|---|---|---|---|---|---|\n";
    for (std::size_t m = 0; m < methods.size(); ++m) {
      const auto& e = r.errors[m];
      int settle = 0;
      for (const auto& x : e) settle = (x.settle_updates < 0 || settle < 0) ? -1 : std::max(settle, x.settle_updates);
      out << "| " << toString(methods[m]);
      for (int k = 0; k < 4; ++k) out << " | " << spread(collect(e, segments, kMetrics[k].get, false));
      out << " | " << spread(collect(e, segments, kMetrics[2].get, true));
      out << " | " << (settle < 0 ? std::string("never") : std::to_string(settle)) << " |\n";
    }
    out << "\n";
  }
}

void writePaperComparison(std::ostream& out, const std::vector<Method>& methods,
                          const std::vector<StudySegment>& segments, const std::vector<CaseResult>& results) {
  const int paper = methodIndex(methods, Method::kPaper);
  if (paper < 0) return;
  auto stat = [&](double seg, double upd, int metric, double p, bool skip_near) -> std::string {
    const CaseResult* r = findCase(results, seg, upd);
    if (r == nullptr) return "(case not run)";
    auto v = collect(r->errors[static_cast<std::size_t>(paper)], segments, kMetrics[metric].get, skip_near);
    return num(percentile(v, p));
  };
  out << "| the paper (A.6 §IV) | measured here, `paper` scheme |\n|---|---|\n";
  out << "| 7 s / 7 ms: δp max bounded by about 1.2 mm, mostly below 0.8 mm | max " << stat(7, 7e-3, 0, 100, false)
      << " mm, p90 " << stat(7, 7e-3, 0, 90, false) << " mm |\n";
  out << "| 7 s / 7 ms: δp mean bounded by roughly 0.5 mm, mostly below 0.4 mm | max " << stat(7, 7e-3, 1, 100, false)
      << " mm, p90 " << stat(7, 7e-3, 1, 90, false) << " mm |\n";
  out << "| 7 s / 3 ms: δp max bounded by about 0.6 mm | max " << stat(7, 3e-3, 0, 100, false) << " mm |\n";
  out << "| 7 s / 7 ms: δr max almost always below 1.5° | p99 " << stat(7, 7e-3, 2, 99, false) << "°, max "
      << stat(7, 7e-3, 2, 100, false) << "° (away from the wrist singularity: p99 " << stat(7, 7e-3, 2, 99, true)
      << "°, max " << stat(7, 7e-3, 2, 100, true) << "°) |\n";
  out << "| 7 s / 7 ms: δr mean below 0.2° | p99 " << stat(7, 7e-3, 3, 99, false) << "°, max "
      << stat(7, 7e-3, 3, 100, false) << "° |\n";
  out << "| conjecture: about 0.2 mm at 1 kHz (7 s) | max δp max " << stat(7, 1e-3, 0, 100, false) << " mm, p50 "
      << stat(7, 1e-3, 0, 50, false) << " mm |\n";
  out << "| the ratio T_seg / T_upd decides the error: 3 s / 3 ms ≈ 7 s / 7 ms | δp max p50 "
      << stat(3, 3e-3, 0, 50, false) << " vs " << stat(7, 7e-3, 0, 50, false) << " mm; max "
      << stat(3, 3e-3, 0, 100, false) << " vs " << stat(7, 7e-3, 0, 100, false) << " mm |\n";
  int settle = 0;
  for (const auto& r : results)
    for (const auto& e : r.errors[static_cast<std::size_t>(paper)])
      settle = (e.settle_updates < 0 || settle < 0) ? -1 : std::max(settle, e.settle_updates);
  out << "| errors gone within six periods after the motion ends | at most " << settle
      << " update periods, every case and segment |\n\n";
}

void writeSegmentsCsv(std::ostream& out, const std::vector<Method>& methods, const std::vector<StudySegment>& segments,
                      const std::vector<CaseResult>& results) {
  out << "segment_s,update_ms,method,segment,min_wrist_deg,near_wrist,dp_max_mm,dp_mean_mm,dr_max_deg,"
         "dr_mean_deg,settle_updates\n";
  for (const auto& r : results)
    for (std::size_t m = 0; m < methods.size(); ++m)
      for (std::size_t n = 0; n < segments.size(); ++n) {
        const SegmentErrors& e = r.errors[m][n];
        out << fmt::format("{:g},{:g},{},{},{:.3f},{},{:.6e},{:.6e},{:.6e},{:.6e},{}\n", r.c.segment_s,
                           r.c.update_s * 1e3, toString(methods[m]), n, segments[n].min_wrist_deg,
                           segments[n].near_wrist ? 1 : 0, e.dp_max_mm, e.dp_mean_mm, e.dr_max_deg, e.dr_mean_deg,
                           e.settle_updates);
      }
}

std::string writeHistograms(const std::string& dir, const std::vector<Method>& methods,
                            const std::vector<StudySegment>& segments, const std::vector<CaseResult>& results) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  // Log-spaced bins, ten per decade from 1e-6 to 1e2 (mm or deg); smaller values (exact to
  // rounding) fall in the first bin. Each column is the fraction of segments per bin.
  constexpr double kLo = -6.0, kHi = 2.0;
  constexpr int kPerDecade = 10, kBins = static_cast<int>((kHi - kLo) * kPerDecade);
  const std::string data = (fs::path(dir) / "histograms.dat").string();
  std::ofstream d(data);
  if (!d) throw ConfigError("cannot write " + data);
  for (const auto& r : results)
    for (const auto& metric : kMetrics) {
      d << "# " << caseName(r.c) << ", " << metric.name << ": bin centre, then one column per method\n";
      std::vector<std::vector<double>> hist(methods.size(), std::vector<double>(kBins, 0.0));
      for (std::size_t m = 0; m < methods.size(); ++m)
        for (double v : collect(r.errors[m], segments, metric.get, false)) {
          const double x = v > 0.0 ? std::log10(v) : kLo;
          const int b = std::clamp(static_cast<int>(std::floor((x - kLo) * kPerDecade)), 0, kBins - 1);
          hist[m][static_cast<std::size_t>(b)] += 1.0 / static_cast<double>(segments.size());
        }
      for (int b = 0; b < kBins; ++b) {
        d << fmt::format("{:.4e}", std::pow(10.0, kLo + (b + 0.5) / kPerDecade));
        for (std::size_t m = 0; m < methods.size(); ++m) d << ' ' << hist[m][static_cast<std::size_t>(b)];
        d << '\n';
      }
      d << "\n\n";
    }
  const std::string script = (fs::path(dir) / "plots.gp").string();
  std::ofstream g(script);
  if (!g) throw ConfigError("cannot write " + script);
  g << "# Draws the PIK study's error distributions, one picture per case (rfms-pik-study --plots).\n"
    << "set terminal png size 1400,1000 font ',11'\nset logscale x\nset format x '1e%L'\n"
    << "set termoption noenhanced\n"
    << "set ylabel 'fraction of segments'\nset key top left\nset grid\nset style data steps\n";
  std::size_t index = 0;
  for (const auto& r : results) {
    g << "set output '" << (fs::path(dir) / (caseFile(r.c) + ".png")).string() << "'\n";
    g << "set multiplot layout 2,2 title 'PUMA 260 PIK study, " << caseName(r.c) << "'\n";
    for (const auto& metric : kMetrics) {
      g << "set title '" << metric.label << "'\nset xlabel '" << (metric.name[1] == 'p' ? "mm" : "deg") << "'\n";
      g << "plot ";
      for (std::size_t m = 0; m < methods.size(); ++m)
        g << (m ? ", " : "") << "'" << data << "' index " << index << " using 1:" << m + 2 << " title '"
          << toString(methods[m]) << "' lw 2";
      g << "\n";
      ++index;
    }
    g << "unset multiplot\n";
  }
  return script;
}

}  // namespace rfms::study
