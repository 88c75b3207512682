// Compiled into the client tests on its own: a program that includes the client library's header
// gets no generated code and no protobuf with it (the wire's messages stay inside the library).
#include "client/rfms_client.hpp"

#ifdef GOOGLE_PROTOBUF_VERSION
#error "client/rfms_client.hpp brings protobuf in: a program using the library would depend on the wire's messages"
#endif

namespace rfms::test {
// Something for the linker to keep, so that this file is not an empty unit.
const char* plainHeaderState() { return nameOf(ArmState::kHold); }
}  // namespace rfms::test
