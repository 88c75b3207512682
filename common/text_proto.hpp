// Protobuf text format, parsed as users' files must be: the first error named with its file,
// line and column ("cluster.textproto:6:8: Unknown enumeration value ..."), and nothing printed
// by the library on its own.
#pragma once

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include <string>

namespace rfms {

// Parses `text` into `message`; throws ConfigError "SOURCE:LINE:COLUMN: what is wrong" on the
// first error. `tree`, when given, records where each field stood (for later checks to cite).
void parseTextProto(const std::string& text, google::protobuf::Message& message, const std::string& source,
                    google::protobuf::TextFormat::ParseInfoTree* tree = nullptr);

}  // namespace rfms
