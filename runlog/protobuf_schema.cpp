#include "runlog/protobuf_schema.hpp"

#include <google/protobuf/descriptor.pb.h>

#include <set>

namespace rfms {

namespace {

void add(const google::protobuf::FileDescriptor* file, std::set<std::string>& seen,
         google::protobuf::FileDescriptorSet& out) {
  if (!seen.insert(file->name()).second) return;
  for (int i = 0; i < file->dependency_count(); ++i) add(file->dependency(i), seen, out);
  file->CopyTo(out.add_file());
}

}  // namespace

std::string descriptorSet(const google::protobuf::Descriptor* type) {
  google::protobuf::FileDescriptorSet set;
  std::set<std::string> seen;
  add(type->file(), seen, set);
  return set.SerializeAsString();
}

}  // namespace rfms
