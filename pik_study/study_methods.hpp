// The ways of turning a Cartesian segment into joint setpoints that the study compares. The PIK
// schemes and the exact serial solution run through six real joint cores (JointCore::step, fed
// S_MAILs as the supervisor composes them); resolved motion rate control and the VAL-style scheme
// are the paper's baselines, written here.
#pragma once

#include <string_view>
#include <vector>

#include "pik_study/study_segment.hpp"

namespace rfms::study {

enum class Method {
  kPaper,                  // Zhang & Paul's Eq. 6 (PikScheme::kPaper)
  kPaperExtrapolated,      // PikScheme::kPaperExtrapolated
  kDecoupled,              // PikScheme::kDecoupled
  kDecoupledExtrapolated,  // PikScheme::kDecoupledExtrapolated (the joint servers' default)
  kSerial,                 // the exact serial IK in every joint core (S_MAIL serial_ik)
  kRmrc,                   // resolved motion rate control, Jacobian refreshed every 2 T_upd
  kVal,                    // exact IK every 28 ms, joints interpolated linearly at 1 ms
};
inline constexpr Method kAllMethods[] = {Method::kPaper,     Method::kPaperExtrapolated,
                                         Method::kDecoupled, Method::kDecoupledExtrapolated,
                                         Method::kSerial,    Method::kRmrc,
                                         Method::kVal};
const char* toString(Method m);
bool parseMethod(std::string_view name, Method& out);

struct Timing {
  double segment_s = 7.0;         // T_seg
  double update_s = 7e-3;         // T_upd: setpoint (and PIK) update period
  double servo_s = 1e-3;          // servo sample period at which errors are measured
  int settle_updates = 12;        // updates recorded after the motion ends
  int rmrc_jacobian_updates = 2;  // RMRC refreshes its Jacobian every this many updates
  double val_update_s = 28e-3;    // VAL's setpoint period
};

// The method's own setpoint period (T_upd, or VAL's 28 ms).
double updatePeriod(Method m, const Timing& timing);

// Joint setpoints at every servo sample t_j = j servo_s, from t = 0 until settle_updates update
// periods after the motion ends; between updates the joints interpolate linearly from one
// computed setpoint to the next (the geometric error of interpolation, without its delay).
std::vector<JointVec> servoSetpoints(const RobotModel& open_model, const StudySegment& segment, const Timing& timing,
                                     Method method);

}  // namespace rfms::study
