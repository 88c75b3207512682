// The run's shared-memory segment (runtime/mail_segment.hpp): this user's alone, refused when it is
// not this build's, and gone when the last node of its run leaves.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "runtime/mail_segment.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;

struct RunDir {
  fs::path path = test::makeUniqueDir("rfms-segment");
  ~RunDir() {
    std::error_code ec;
    fs::remove(MailSegment::pathFor(path.string()), ec);
    fs::remove_all(path, ec);
  }
};

TEST(MailSegment, OnlyThisUserMayOpenItsDirectoryOrItself) {
  RunDir run;
  const std::string path = MailSegment::pathFor(run.path.string());
  const MailSegment segment = MailSegment::open(path);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, geteuid());
  ASSERT_EQ(stat(MailSegment::directory().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(static_cast<std::size_t>(fs::file_size(path)), MailSegment::bytes());
}

// A second user, as root can become one: the segment's directory does not let it in.
TEST(MailSegment, AnotherUserCannotOpenIt) {
  if (geteuid() != 0) FAIL() << "this case needs root, to become another user (nobody) for the attempt";
  RunDir run;
  const std::string path = MailSegment::pathFor(run.path.string());
  const MailSegment segment = MailSegment::open(path);
  const pid_t child = fork();
  if (child == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    const int fd = ::open(path.c_str(), O_RDWR);
    _exit(fd < 0 && errno == EACCES ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << (WEXITSTATUS(status) == 3 ? "could not become nobody" : "nobody opened it");
}

TEST(MailSegment, ADirectoryOtherUsersMayOpenIsRefused) {
  RunDir run;
  const fs::path dir = run.path / "open";
  fs::create_directory(dir);
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  try {
    MailSegment::open((dir / "x.mail").string());
    FAIL() << "opened";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("may be opened by other users (mode 0755; chmod 700 it)"), std::string::npos)
        << e.what();
  }
}

TEST(MailSegment, ASegmentOfAnotherBuildIsRefusedByName) {
  RunDir run;
  const std::string path = MailSegment::pathFor(run.path.string());
  fs::create_directories(MailSegment::directory());
  { std::ofstream(path) << "an older segment"; }
  chmod(path.c_str(), 0600);
  try {
    MailSegment::open(path);
    FAIL() << "opened";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("a segment of another build (remove it, or run deploy/rfms down)"),
              std::string::npos)
        << e.what();
  }
}

// Nodes of one run share it; the file is removed when the last of them leaves, and not before.
TEST(MailSegment, TheLastNodeToLeaveRemovesIt) {
  RunDir run;
  const std::string path = MailSegment::pathFor(run.path.string());
  {
    const MailSegment first = MailSegment::open(path);
    {
      const MailSegment second = MailSegment::open(path);
      EXPECT_EQ(second.ring(Box::kSMail), second.ring(Box::kSMail));
    }
    EXPECT_TRUE(fs::exists(path)) << "removed while a node still held it";
  }
  EXPECT_FALSE(fs::exists(path));
}

// Two runs never share a segment: each run directory names its own.
TEST(MailSegment, EachRunDirectoryHasASegmentOfItsOwn) {
  RunDir a, b;
  EXPECT_NE(MailSegment::pathFor(a.path.string()), MailSegment::pathFor(b.path.string()));
  EXPECT_EQ(MailSegment::pathFor(a.path.string()), MailSegment::pathFor((a.path / ".").string()));
}

}  // namespace
}  // namespace rfms
