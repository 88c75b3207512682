#include <gtest/gtest.h>

#include <cmath>

#include "common/kinematics.hpp"
#include "common/robot_model_loader.hpp"
#include "pik_study/study_run.hpp"
#include "tests/support/build_paths.hpp"

namespace rfms::study {
namespace {

const RobotModel& puma260() {
  static const RobotModel m = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma260.textproto");
  return m;
}

std::vector<double> metric(const CaseResult& r, std::size_t method, double SegmentErrors::*field) {
  std::vector<double> v;
  for (const auto& e : r.errors[method]) v.push_back(e.*field);
  return v;
}

double median(std::vector<double> v) { return percentile(v, 50); }
double maximum(std::vector<double> v) { return percentile(v, 100); }

TEST(PikStudySegments, StayInTheWorkspaceClearOfTheWristAndAreReproducible) {
  SamplerOptions o;
  const auto a = drawSegments(puma260(), o, 40, 7);
  const auto b = drawSegments(puma260(), o, 40, 7);
  ASSERT_EQ(a.size(), 40u);
  const auto& j = puma260().joints;
  const double offset = j[1].dh.d + j[2].dh.d, reach = std::hypot(j[1].dh.a + j[3].dh.d, offset);
  const OpwIk ik(withoutJointLimits(puma260()));
  for (std::size_t n = 0; n < a.size(); ++n) {
    EXPECT_EQ(a[n].start.matrix(), b[n].start.matrix());
    EXPECT_GE(a[n].min_wrist_deg, o.wrist_clearance_deg);
    EXPECT_GE(a[n].angle, 0.1 * M_PI);
    EXPECT_LE(a[n].angle, 0.9 * M_PI);
    // The start solution reaches the start pose, and the end pose is the start rotated by the
    // segment's angle about its axis.
    EXPECT_LT((forwardKinematics(withoutJointLimits(puma260()), a[n].q_start).matrix() - a[n].start.matrix())
                  .cwiseAbs()
                  .maxCoeff(),
              1e-9);
    const Mat3 turn = a[n].end.linear() * a[n].start.linear().transpose();
    EXPECT_NEAR(Eigen::AngleAxisd(turn).angle(), a[n].angle, 1e-9);
    for (int k = 0; k <= 50; ++k) {
      const Vec3 p = a[n].at(k / 50.0).translation();
      EXPECT_GT(std::hypot(p.x(), p.y()), std::abs(offset) + o.workspace_margin_m - 1e-12);
      EXPECT_LT(p.norm(), reach - o.workspace_margin_m + 1e-12);
    }
  }
}

TEST(PikStudyErrors, TheExactSolutionAtEveryServoSampleHasNoError) {
  // The measurement itself: the serial IK updated every millisecond leaves only rounding, and a
  // known offset of joint 1 shows up as the arc it sweeps at the wrist centre.
  const auto segments = drawSegments(puma260(), SamplerOptions{}, 3, 11);
  const RobotModel open = withoutJointLimits(puma260());
  Timing t;
  t.segment_s = 0.5;
  t.update_s = 1e-3;
  for (const auto& s : segments) {
    auto servo = servoSetpoints(open, s, t, Method::kSerial);
    const SegmentErrors exact = measureErrors(open, s, t, t.update_s, servo);
    EXPECT_LT(exact.dp_max_mm, 1e-6);
    EXPECT_LT(exact.dr_max_deg, 1e-6);
    EXPECT_EQ(exact.settle_updates, 0);
    for (auto& q : servo) q[0] += 1e-4;
    const SegmentErrors shifted = measureErrors(open, s, t, t.update_s, servo);
    double widest = 0.0;  // the largest distance from the axis of joint 1 along the path
    for (int k = 0; k <= 500; ++k) {
      const Vec3 p = s.at(k / 500.0).translation();
      widest = std::max(widest, std::hypot(p.x(), p.y()));
    }
    EXPECT_NEAR(shifted.dp_max_mm, 1e-4 * widest * 1e3, 1e-6);
    EXPECT_NEAR(shifted.dr_mean_deg, 1e-4 * 180.0 / M_PI, 1e-6);
  }
}

TEST(PikStudy, ErrorsFallWithTheUpdatePeriodAndTheLagCompensatedSchemeIsNotWorse) {
  const auto segments = drawSegments(puma260(), SamplerOptions{}, 50, 1988);
  StudyOptions o;
  o.cases = {{3.0, 7e-3}, {3.0, 3e-3}, {3.0, 1e-3}};
  o.methods = {Method::kPaper, Method::kDecoupledExtrapolated};
  o.threads = 2;
  const auto r = runStudy(withoutJointLimits(puma260()), segments, o);
  for (auto field : {&SegmentErrors::dp_max_mm, &SegmentErrors::dp_mean_mm, &SegmentErrors::dr_max_deg,
                     &SegmentErrors::dr_mean_deg}) {
    // Plain PIK: smaller T_upd, smaller errors, roughly in proportion (the error is one update's
    // worth of motion of the inner joints).
    const double m7 = median(metric(r[0], 0, field)), m3 = median(metric(r[1], 0, field)),
                 m1 = median(metric(r[2], 0, field));
    EXPECT_LT(m3, m7);
    EXPECT_LT(m1, m3);
    EXPECT_NEAR(m7 / m1, 7.0, 2.5);
    // The default scheme is not worse than the paper's, by median or by maximum, in any case.
    for (std::size_t c = 0; c < r.size(); ++c) {
      EXPECT_LE(median(metric(r[c], 1, field)), median(metric(r[c], 0, field)));
      EXPECT_LE(maximum(metric(r[c], 1, field)), maximum(metric(r[c], 0, field)));
    }
  }
  // Position needs only joints 1-3, which the decoupled scheme solves from T6 alone: no lag left.
  EXPECT_LT(maximum(metric(r[2], 1, &SegmentErrors::dp_max_mm)), 1e-6);
  // The paper: errors gone within six periods after the motion ends.
  for (const auto& c : r)
    for (const auto& e : c.errors[0]) {
      EXPECT_GE(e.settle_updates, 0);
      EXPECT_LE(e.settle_updates, 6);
    }
}

TEST(PikStudy, ResultsDoNotDependOnTheNumberOfThreads) {
  const auto segments = drawSegments(puma260(), SamplerOptions{}, 6, 3);
  StudyOptions o;
  o.cases = {{1.0, 3e-3}};
  o.methods = {Method::kPaper, Method::kRmrc, Method::kVal};
  o.threads = 1;
  const auto one = runStudy(withoutJointLimits(puma260()), segments, o);
  o.threads = 3;
  const auto three = runStudy(withoutJointLimits(puma260()), segments, o);
  for (std::size_t m = 0; m < o.methods.size(); ++m)
    for (std::size_t n = 0; n < segments.size(); ++n) {
      EXPECT_EQ(one[0].errors[m][n].dp_max_mm, three[0].errors[m][n].dp_max_mm);
      EXPECT_EQ(one[0].errors[m][n].dr_mean_deg, three[0].errors[m][n].dr_mean_deg);
    }
}

}  // namespace
}  // namespace rfms::study
