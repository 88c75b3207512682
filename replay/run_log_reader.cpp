#include "replay/run_log_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string_view>

#include "common/error.hpp"
#include "display/scene_messages.hpp"
#include "runlog/header_prediction.hpp"
#include "runlog/log_files.hpp"
#include "runlog/protobuf_wire.hpp"
#include "runlog/run_logger.hpp"

namespace rfms {

LoggedArm loggedArm(const RunLog& log) { return armOfHeader(log.header); }

const proto::ControllerSettings& RunLog::requireSettings() const {
  if (!settings) throw ConfigError(settings_error);
  return *settings;
}

double RunLog::dtMs() const {
  if (settings) return settings->dt_ms();
  // A log from before the settings were stored whole said its period in the header.
  if (const auto it = header.find("dt_ms"); it != header.end()) {
    char* end = nullptr;
    const double dt = std::strtod(it->second.c_str(), &end);
    if (end != it->second.c_str() && *end == '\0' && dt >= 0.25 && dt <= 10.0) return dt;
    throw ConfigError("the log's header gives its sample period as '" + it->second + "', which is not 0.25 .. 10 ms");
  }
  throw ConfigError("the log does not say its sample period: " +
                    (settings_error.empty() ? std::string("its header has no controller settings") : settings_error));
}

namespace {
constexpr std::uint64_t kMaxPeriods = std::uint64_t{1} << 32;  // 50 days at 1 kHz
}  // namespace

std::uint64_t RunLog::firstPeriod() const {
  const auto it = header.find("first_period");
  if (it == header.end() || it->second.empty()) return 0;
  char* end = nullptr;
  const unsigned long long first = std::strtoull(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0' || it->second[0] == '-' || first >= kMaxPeriods)
    throw ConfigError("the log's header gives its first period as '" + it->second.substr(0, 40) +
                      "', which is not a period of any run");
  return first;
}

std::string RunLog::fault() const {
  const auto it = header.find("fault");
  return it == header.end() ? std::string() : it->second;
}

std::uint64_t RunLog::periods() const {
  // What a log may claim, checked before anything sized by it is allocated or run: no run spans
  // more than kMaxPeriods, and a log that lost more than kMaxLostPerMail S_MAILs for each one it
  // holds says too little to re-run (a forged drop count must not buy a long loop). A fault
  // record holds its periods from its first on.
  constexpr std::uint64_t kMaxLostPerMail = 1000;
  const std::uint64_t first = firstPeriod();
  std::uint64_t last = 0;
  for (const proto::SMail& s : smail) {
    if (s.header().period() >= kMaxPeriods)
      throw ConfigError("the log holds an S_MAIL of period " + std::to_string(s.header().period()) +
                        ", beyond any run's: the log is damaged");
    last = std::max(last, s.header().period());
  }
  if (smail.empty()) return 0;
  std::uint64_t lost = 0;
  for (const proto::LogDrops::TopicDrops& t : drops.per_topic())
    if (t.topic() == topic::kSMail) lost = t.dropped();
  lost = std::min(lost, kMaxLostPerMail * smail.size());
  if (last + 1 > first + smail.size() + lost)
    throw ConfigError("the log's S_MAILs run to period " + std::to_string(last) + " but it holds " +
                      std::to_string(smail.size()) + " of them" +
                      (lost > 0 ? " and lost " + std::to_string(lost) : std::string()) + ": the log is damaged");
  return last + 1;
}

RunLog readRunLog(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  RunLog log;
  const std::map<const google::protobuf::Descriptor*, std::string> topic_of_type = {
      {proto::ArmSensors::descriptor(), topic::kSensors},  {proto::SMail::descriptor(), topic::kSMail},
      {proto::MMail::descriptor(), topic::kMMail},         {proto::Parcel::descriptor(), topic::kParcel},
      {proto::JMail::descriptor(), topic::kJMail},         {proto::TorqueCommand::descriptor(), topic::kTorque},
      {proto::LogRequest::descriptor(), topic::kRequest},  {proto::LogEvent::descriptor(), topic::kEvent},
      {proto::PeriodTiming::descriptor(), topic::kTiming}, {proto::AppliedTorques::descriptor(), topic::kApplied}};
  // Headers left out of a PeriodRecord because they were predicted are restored from the same
  // prediction, which starts afresh with every file and every kResyncRecords-th record of it.
  HeaderPrediction prediction;
  std::uint64_t records_in_file = 0;
  auto restoreHeader = [&](int field, auto& m, bool predicted) {
    if constexpr (requires { m.has_header(); }) {
      std::uint32_t joint = 0;
      if constexpr (requires { m.joint(); }) joint = m.joint();
      const bool had = m.has_header();
      proto::Header restored;
      if (!prediction.restore(field, joint, had, had ? *m.mutable_header() : restored, predicted)) return false;
      if (predicted) *m.mutable_header() = restored;
      return true;
    } else {
      return !predicted;
    }
  };
  // Decoded as read, so that no message's bytes are held beside its decoded form. `field` is the
  // mailbox's field of a PeriodRecord (0 outside one) and `predicted` its header's bit.
  auto take = [&](const std::string& t, std::string_view data, int field = 0, bool predicted = false) {
    ++log.messages;
    auto add = [&](auto& into) {
      typename std::decay_t<decltype(into)>::value_type v;
      if (!v.ParseFromArray(data.data(), static_cast<int>(data.size()))) {
        ++log.undecodable;
        prediction.forget(field);
      } else if (!restoreHeader(field, v, predicted)) {
        ++log.undecodable;
      } else {
        into.push_back(std::move(v));
      }
    };
    if (t == topic::kSMail)
      add(log.smail);
    else if (t == topic::kJMail)
      add(log.jmail);
    else if (t == topic::kMMail)
      add(log.mmail);
    else if (t == topic::kParcel)
      add(log.parcel);
    else if (t == topic::kSensors)
      add(log.sensors);
    else if (t == topic::kTorque)
      add(log.torque);
    else if (t == topic::kRequest)
      add(log.requests);
    else if (t == topic::kEvent)
      add(log.events);
    else if (t == topic::kTiming)
      add(log.timing);
    else if (t == topic::kApplied)
      add(log.applied);
    else if (t == topic::kDrops)
      log.have_drops = log.drops.ParseFromArray(data.data(), static_cast<int>(data.size()));
    else
      ++log.undecodable;  // on a channel the log does not declare, or of no topic a run writes
  };
  // A period's mailboxes in one message: each field of the PeriodRecord is one mailbox, named by
  // the field's topic. Read field by field, bounds checked, so that a damaged record costs only
  // itself.
  const google::protobuf::Descriptor* record = proto::PeriodRecord::descriptor();
  constexpr int kPredictedField = proto::PeriodRecord::kPredictedHeadersFieldNumber;
  // One field of a record: false when the record is damaged from there on.
  auto nextField = [](std::string_view data, std::size_t& at, int& field, std::string_view& bytes) {
    std::uint64_t tag = 0, length = 0;
    if (!wire::readVarint(data, at, tag) || (tag & 7u) != wire::kLengthDelimited ||
        !wire::readVarint(data, at, length) || length > data.size() - at)
      return false;
    field = static_cast<int>(std::min<std::uint64_t>(tag >> 3, INT32_MAX));
    bytes = data.substr(at, length);
    at += length;
    return true;
  };
  auto takePeriod = [&](std::string_view data) {
    if (records_in_file++ % HeaderPrediction::kResyncRecords == 0) prediction.reset();
    int field = 0;
    std::string_view bytes, predicted_bits;
    for (std::size_t at = 0; at < data.size() && nextField(data, at, field, bytes);)
      if (field == kPredictedField) predicted_bits = bytes;
    std::size_t i = 0;
    for (std::size_t at = 0; at < data.size();) {
      if (!nextField(data, at, field, bytes)) {
        ++log.undecodable;
        prediction.reset();  // which senders the rest held is unknown
        return;
      }
      if (field == kPredictedField) continue;
      const bool predicted =
          i / 8 < predicted_bits.size() && (static_cast<unsigned char>(predicted_bits[i / 8]) >> (i % 8) & 1u) != 0;
      ++i;
      const google::protobuf::FieldDescriptor* f = record->FindFieldByNumber(field);
      if (f == nullptr || f->message_type() == nullptr) {
        ++log.undecodable;
        prediction.reset();
      } else {
        const auto it = topic_of_type.find(f->message_type());
        if (it != topic_of_type.end()) take(it->second, bytes, field, predicted);
      }
    }
  };
  const std::string none;
  auto sink = [&](const mcap::Channel* ch, std::uint64_t, std::string_view data) {
    const std::string& t = ch != nullptr ? ch->topic : none;
    if (t == topic::kPeriod)
      takePeriod(data);
    else if (t == display::kFramesTopic || t == display::kSceneTopic)
      ++log.display_messages;
    else
      take(t, data);  // a log written before the mailboxes were grouped by period, or the drops
  };
  std::vector<LogFile> files = logFilesOf(path);
  if (files.empty()) files.push_back({0, path});  // for readFile to say why it cannot be opened
  log.first_file = files.front().number;
  for (const LogFile& f : files) {
    if (f.number != files.front().number + log.files.size()) {
      log.error = logFilePath(path, files.front().number + static_cast<unsigned>(log.files.size())) +
                  " is missing: the run's later files are not read";
      break;
    }
    records_in_file = 0;
    const mcap::Contents c = mcap::readFile(f.path, progress, sink);
    log.files.push_back(f.path);
    log.file_size += c.file_size;
    if (log.header.empty())
      for (const auto& [name, values] : c.metadata)
        if (name == "rfms") log.header = values;
    if (!c.error.empty()) {  // the files after a damaged one would leave a hole: not read
      log.error = files.size() > 1 ? f.path + ": " + c.error : c.error;
      log.error_offset = c.error_offset;
      log.cut_short = c.cut_short && &f == &files.back();
      break;
    }
  }
  log.header.erase("file");  // which file the header came from, not a property of the run
  try {
    log.settings = settingsOfHeader(log.header);
  } catch (const ConfigError& e) {
    log.settings_error = e.what();
  }
  return log;
}

}  // namespace rfms
