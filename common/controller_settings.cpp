#include "common/controller_settings.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "common/error.hpp"
#include "common/text_proto.hpp"

namespace rfms {

namespace gp = google::protobuf;

namespace {

std::string numberText(double x) {
  std::ostringstream o;
  o.precision(17);
  o << x;
  return o.str();
}

// The whole text as one number, or a ConfigError naming the path.
double parseNumber(const std::string& path, const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x))
    throw ConfigError(path + "=" + text + ": not a number");
  return x;
}

std::uint64_t parseUnsigned(const std::string& path, const std::string& text, std::uint64_t max) {
  const double x = parseNumber(path, text);
  if (x < 0 || x != std::floor(x) || x > static_cast<double>(max))
    throw ConfigError(path + "=" + text + ": not a whole number in 0 .. " + std::to_string(max));
  return static_cast<std::uint64_t>(x);
}

std::string lower(std::string s) {
  for (char& c : s) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// An enumeration's value as people type it: "paper-extrapolated" for PAPER_EXTRAPOLATED.
std::string spoken(std::string name) {
  name = lower(std::move(name));
  for (char& c : name)
    if (c == '_') c = '-';
  return name;
}

void setScalar(gp::Message& m, const gp::FieldDescriptor* f, const std::string& path, const std::string& text) {
  const gp::Reflection* r = m.GetReflection();
  const bool repeated = f->is_repeated();
  std::vector<std::string> parts{text};
  if (repeated) {
    parts.clear();
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
    r->ClearField(&m, f);
  }
  for (const std::string& t : parts) {
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_DOUBLE:
        repeated ? r->AddDouble(&m, f, parseNumber(path, t)) : r->SetDouble(&m, f, parseNumber(path, t));
        break;
      case gp::FieldDescriptor::CPPTYPE_UINT32: {
        const auto v = static_cast<std::uint32_t>(parseUnsigned(path, t, 0xffffffffu));
        repeated ? r->AddUInt32(&m, f, v) : r->SetUInt32(&m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_UINT64: {
        const auto v = parseUnsigned(path, t, (1ull << 53));
        repeated ? r->AddUInt64(&m, f, v) : r->SetUInt64(&m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_BOOL: {
        if (t != "true" && t != "false" && t != "1" && t != "0")
          throw ConfigError(path + "=" + t + ": not true or false");
        repeated ? r->AddBool(&m, f, t == "true" || t == "1") : r->SetBool(&m, f, t == "true" || t == "1");
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_STRING: repeated ? r->AddString(&m, f, t) : r->SetString(&m, f, t); break;
      case gp::FieldDescriptor::CPPTYPE_ENUM: {
        const gp::EnumDescriptor* e = f->enum_type();
        const gp::EnumValueDescriptor* v = nullptr;
        std::string names;
        for (int i = 0; i < e->value_count(); ++i) {
          if (lower(e->value(i)->name()) == lower(t)) v = e->value(i);
          names += (i > 0 ? ", " : "") + spoken(e->value(i)->name());
        }
        if (v == nullptr) throw ConfigError(path + "=" + t + ": not one of " + names);
        repeated ? r->AddEnum(&m, f, v) : r->SetEnum(&m, f, v);
        break;
      }
      default: throw ConfigError(path + ": cannot be set from text");
    }
  }
}

// Every singular field made present with its current (possibly default) value.
void writeDefaults(gp::Message& m) {
  const gp::Descriptor* d = m.GetDescriptor();
  const gp::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const gp::FieldDescriptor* f = d->field(i);
    if (f->is_repeated()) continue;
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_MESSAGE: writeDefaults(*r->MutableMessage(&m, f)); break;
      case gp::FieldDescriptor::CPPTYPE_DOUBLE: r->SetDouble(&m, f, r->GetDouble(m, f)); break;
      case gp::FieldDescriptor::CPPTYPE_UINT32: r->SetUInt32(&m, f, r->GetUInt32(m, f)); break;
      case gp::FieldDescriptor::CPPTYPE_UINT64: r->SetUInt64(&m, f, r->GetUInt64(m, f)); break;
      case gp::FieldDescriptor::CPPTYPE_BOOL: r->SetBool(&m, f, r->GetBool(m, f)); break;
      case gp::FieldDescriptor::CPPTYPE_STRING: r->SetString(&m, f, r->GetString(m, f)); break;
      case gp::FieldDescriptor::CPPTYPE_ENUM: r->SetEnum(&m, f, r->GetEnum(m, f)); break;
      default: break;
    }
  }
}

// A field's value as text format writes it; a repeated field's values joined by commas.
std::string fieldText(const gp::Message& m, const gp::FieldDescriptor* f) {
  std::string out;
  if (!f->is_repeated()) {
    gp::TextFormat::PrintFieldValueToString(m, f, -1, &out);
    return out;
  }
  for (int i = 0; i < m.GetReflection()->FieldSize(m, f); ++i) {
    std::string value;
    gp::TextFormat::PrintFieldValueToString(m, f, i, &value);
    out += (i > 0 ? "," : "") + value;
  }
  return out;
}

std::string difference(const gp::Message& a, const gp::Message& b, const std::string& prefix,
                       const std::string& whose) {
  const gp::Descriptor* d = a.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const gp::FieldDescriptor* f = d->field(i);
    const std::string path = prefix + f->name();
    if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE && !f->is_repeated()) {
      const std::string why =
          difference(a.GetReflection()->GetMessage(a, f), b.GetReflection()->GetMessage(b, f), path + ".", whose);
      if (!why.empty()) return why;
      continue;
    }
    const std::string x = fieldText(a, f), y = fieldText(b, f);
    if (x != y)
      return path + " " + (y.empty() ? "(none)" : y) + " differs from " + whose + " " + (x.empty() ? "(none)" : x);
  }
  return "";
}

}  // namespace

void checkControllerSettings(const proto::ControllerSettings& s, const std::string& where) {
  auto fail = [&](const std::string& field, const std::string& why) {
    throw ConfigError(where + "." + field + ": " + why);
  };
  if (!(s.dt_ms() >= 0.25 && s.dt_ms() <= 10.0))
    fail("dt_ms", "must be within 0.25 .. 10 ms, got " + numberText(s.dt_ms()));
  if (s.update_periods() < 1 || s.update_periods() > 100)
    fail("update_periods", "must be 1 .. 100, got " + std::to_string(s.update_periods()));
  if (s.max_names() < 1 || s.max_names() > 100'000)
    fail("max_names", "must be 1 .. 100000, got " + std::to_string(s.max_names()));
  if (s.max_names_per_key() < 1 || s.max_names_per_key() > 100'000)
    fail("max_names_per_key", "must be 1 .. 100000, got " + std::to_string(s.max_names_per_key()));
  if (s.watchdog_periods() < 2 || s.watchdog_periods() > 1000)
    fail("watchdog_periods", "must be 2 .. 1000, got " + std::to_string(s.watchdog_periods()));
  if (!(s.servo().bandwidth_hz() > 0.0 && s.servo().bandwidth_hz() <= 50.0))
    fail("servo.bandwidth_hz", "must be within 0 .. 50 Hz (0 excluded), got " + numberText(s.servo().bandwidth_hz()));
  if (s.park_rad_size() != 0 && s.park_rad_size() != kJoints)
    fail("park_rad", "must hold six angles (or none), got " + std::to_string(s.park_rad_size()));
  for (double q : s.park_rad())
    if (!(std::abs(q) <= 2.0 * M_PI)) fail("park_rad", "angles must be within -2 pi .. 2 pi rad, got " + numberText(q));
  if (!(s.power_up_error_rad() >= 0.0 && s.power_up_error_rad() <= 0.2))
    fail("power_up_error_rad", "must be within 0 .. 0.2 rad, got " + numberText(s.power_up_error_rad()));
  const proto::TrackingSettings& t = s.tracking();
  const auto range = [&](const std::string& field, double value, double lo, double hi, const char* unit) {
    if (!(value >= lo && value <= hi))
      fail("tracking." + field,
           "must be within " + numberText(lo) + " .. " + numberText(hi) + " " + unit + ", got " + numberText(value));
  };
  range("joint_accel_deg_s2", t.joint_accel_deg_s2(), 1.0, 1e5, "deg/s^2");
  range("wrist_speed_mm_s", t.wrist_speed_mm_s(), 1.0, 1e4, "mm/s");
  range("wrist_accel_mm_s2", t.wrist_accel_mm_s2(), 1.0, 1e6, "mm/s^2");
  range("turn_speed_deg_s", t.turn_speed_deg_s(), 1.0, 1e4, "deg/s");
  range("turn_accel_deg_s2", t.turn_accel_deg_s2(), 1.0, 1e6, "deg/s^2");
  range("history_ms", t.history_ms(), 10.0, 1e4, "ms");
  range("max_lead_ms", t.max_lead_ms(), 0.0, 1e3, "ms");
  if (!(s.force().max_force_n() >= 1.0 && s.force().max_force_n() <= 1e4))
    fail("force.max_force_n", "must be within 1 .. 10000 N, got " + numberText(s.force().max_force_n()));
  if (!(s.force().max_moment_nm() >= 0.1 && s.force().max_moment_nm() <= 1e3))
    fail("force.max_moment_nm", "must be within 0.1 .. 1000 N m, got " + numberText(s.force().max_moment_nm()));
  if (!(s.force().gain_margin() >= 1.0 && s.force().gain_margin() <= 10.0))
    fail("force.gain_margin", "must be within 1 .. 10, got " + numberText(s.force().gain_margin()));
  const proto::LogSettings& log = s.log();
  if (!(log.ring_s() >= 0.5 && log.ring_s() <= 60.0))
    fail("log.ring_s", "must be within 0.5 .. 60 s, got " + numberText(log.ring_s()));
  if (log.split_mib() > 65536)
    fail("log.split_mib", "must be 1 .. 65536 MiB (0: never), got " + std::to_string(log.split_mib()));
  if (log.split_s() != 0 && (log.split_s() < 60 || log.split_s() > 86400))
    fail("log.split_s", "must be 60 .. 86400 s (0: never), got " + std::to_string(log.split_s()));
  if (log.display_hz() > 60)
    fail("log.display_hz", "must be 1 .. 60 pictures a second (0: none), got " + std::to_string(log.display_hz()));
  if (log.keep_files() != 0 && log.split_mib() == 0 && log.split_s() == 0)
    fail("log.keep_files", "keeps the newest files of a split run, but neither split_mib nor split_s splits it");
}

void setControllerField(proto::ControllerSettings& s, const std::string& path, const std::string& value) {
  gp::Message* m = &s;
  std::stringstream in(path);
  std::vector<std::string> names;
  for (std::string name; std::getline(in, name, '.');) names.push_back(name);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const gp::FieldDescriptor* f = m->GetDescriptor()->FindFieldByName(names[i]);
    if (f == nullptr) {
      std::string known;
      for (int n = 0; n < m->GetDescriptor()->field_count(); ++n)
        known += (n > 0 ? ", " : "") + m->GetDescriptor()->field(n)->name();
      throw ConfigError(path + ": no such setting (here: " + known + ")");
    }
    const bool last = i + 1 == names.size();
    if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
      if (last) throw ConfigError(path + ": a group of settings; name one of its fields");
      m = m->GetReflection()->MutableMessage(m, f);
    } else {
      if (!last) throw ConfigError(path + ": " + names[i] + " has no fields");
      setScalar(*m, f, path, value);
    }
  }
  if (names.empty()) throw ConfigError("an empty setting name");
}

void applySettingAssignments(proto::ControllerSettings& s, const std::vector<std::string>& assignments) {
  for (const std::string& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos) throw ConfigError("--set " + a + ": write FIELD=VALUE");
    try {
      setControllerField(s, a.substr(0, eq), a.substr(eq + 1));
    } catch (const ConfigError& e) {
      throw ConfigError(std::string("--set ") + e.what());
    }
  }
}

proto::ControllerSettings withDefaultsWritten(const proto::ControllerSettings& s) {
  proto::ControllerSettings out = s;
  writeDefaults(out);
  return out;
}

std::string settingsDifference(const proto::ControllerSettings& mine, const proto::ControllerSettings& theirs,
                               const std::string& whose) {
  return difference(withDefaultsWritten(mine), withDefaultsWritten(theirs), "", whose);
}

std::string settingsText(const proto::ControllerSettings& s) {
  std::string out;
  gp::TextFormat::PrintToString(s, &out);
  return out;
}

proto::ControllerSettings parseSettingsText(const std::string& text, const std::string& where) {
  proto::ControllerSettings s;
  parseTextProto(text, s, where);
  return s;
}

JointVec parkPose(const proto::ControllerSettings& s) {
  JointVec q = JointVec::Zero();
  if (s.park_rad_size() == kJoints)
    for (int i = 0; i < kJoints; ++i) q[i] = s.park_rad(i);
  return q;
}

PikScheme pikScheme(const proto::ControllerSettings& s) {
  switch (s.pik()) {
    case proto::ControllerSettings::PAPER: return PikScheme::kPaper;
    case proto::ControllerSettings::PAPER_EXTRAPOLATED: return PikScheme::kPaperExtrapolated;
    case proto::ControllerSettings::DECOUPLED: return PikScheme::kDecoupled;
    case proto::ControllerSettings::DECOUPLED_EXTRAPOLATED: return PikScheme::kDecoupledExtrapolated;
  }
  return kDefaultPikScheme;  // a closed enum holds no other value
}

namespace {
const std::regex kPikString(R"re((^|[\s{])pik:\s*"([^"]*)")re");
}

std::optional<RetiredPik> retiredPikSpelling(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, kPikString)) return std::nullopt;
  std::string now = m[2].str();
  for (char& c : now) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return RetiredPik{m[2].str(), now};
}

std::string withPikUpgraded(const std::string& text) {
  const auto retired = retiredPikSpelling(text);
  if (!retired) return text;
  return std::regex_replace(text, kPikString, "$1pik: " + retired->now);
}

}  // namespace rfms
