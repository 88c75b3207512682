#include "common/text_proto.hpp"

#include <google/protobuf/io/tokenizer.h>

#include "common/error.hpp"

namespace rfms {

namespace {

// The parser's errors, kept with their position (it logs them itself without one).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (first_.empty()) first_ = std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

void parseTextProto(const std::string& text, google::protobuf::Message& message, const std::string& source,
                    google::protobuf::TextFormat::ParseInfoTree* tree) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (tree != nullptr) parser.WriteLocationsTo(tree);
  if (!parser.ParseFromString(text, &message))
    throw ConfigError(source + ":" +
                      (errors.first().empty() ? " not valid " + message.GetDescriptor()->full_name() : errors.first()));
}

}  // namespace rfms
