#include "supervisor/shell/event_file.hpp"

#include <google/protobuf/util/json_util.h>

#include <nlohmann/json.hpp>

#include "supervisor/event_log.hpp"

namespace rfms {

EventFile::EventFile(const std::string& path) : out_(path, std::ios::trunc) {}

void EventFile::note(const SupervisorEvent& e) {
  toLogEvent(e.period, e, event_);
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;  // MOVE_STARTED, the enum's zero, too
  options.preserve_proto_field_names = true;
  std::string json;
  if (google::protobuf::util::MessageToJsonString(event_, &json, options).ok()) line(json);
}

void EventFile::stopped(std::uint64_t periods, const std::string& why) {
  line(nlohmann::json{{"stopped", {{"periods", periods}, {"why", why}}}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void EventFile::line(const std::string& json) {
  if (!out_) return;
  out_ << json << '\n';
  out_.flush();  // a reader follows the file as the run goes
}

}  // namespace rfms
