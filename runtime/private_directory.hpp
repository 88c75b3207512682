// Whether a directory is this user's alone: where the cluster keeps what other users must not
// open (ipc endpoints, the mailbox segment). Configuration time only.
#pragma once

#include <string>

namespace rfms {

// Why another user may open `dir` (it is not this user's, or its mode lets others in), or "" when
// no other user may.
std::string privateDirectoryProblem(const std::string& dir);

}  // namespace rfms
