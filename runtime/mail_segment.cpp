#include "runtime/mail_segment.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <new>

#include "common/error.hpp"
#include "runtime/cluster_config.hpp"
#include "runtime/mail_ring.hpp"
#include "runtime/private_directory.hpp"

namespace rfms {

namespace {

constexpr char kMagic[8] = {'R', 'F', 'M', 'S', 'M', 'A', 'I', 'L'};
constexpr std::uint32_t kVersion = 2;  // 2: every mail carries its CRC-32C

struct alignas(64) SegmentHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t layout;  // a digest of the box table's shape: another build's segment is refused
  std::uint64_t bytes;
};

struct alignas(64) DoorbellSlot {
  std::atomic<std::uint32_t> word;
};

constexpr std::size_t kDoorbellsAt = sizeof(SegmentHeader);
constexpr std::size_t kRingsAt = kDoorbellsAt + kNodeSlots * sizeof(DoorbellSlot);

std::size_t ringOffset(Box b) {
  std::size_t at = kRingsAt;
  for (int i = 0; i < static_cast<int>(b); ++i)
    at += ringBytes(depthOf(static_cast<Box>(i)), capacityOf(static_cast<Box>(i)));
  return at;
}

std::uint32_t layoutDigest() {
  std::uint32_t h = 2166136261u;
  auto mix = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ static_cast<std::uint8_t>(v >> (8 * i))) * 16777619u;
  };
  mix(kBoxCount);
  mix(sizeof(SlotHeader));
  // Where each field lies, so that a build that moved one refuses this one's segment.
  mix(offsetof(SlotHeader, sequence)), mix(offsetof(SlotHeader, period)), mix(offsetof(SlotHeader, stamp_ns));
  mix(offsetof(SlotHeader, length)), mix(offsetof(SlotHeader, check)), mix(offsetof(RingHeader, head));
  for (int i = 0; i < kBoxCount; ++i) {
    mix(static_cast<std::uint64_t>(depthOf(static_cast<Box>(i))));
    mix(capacityOf(static_cast<Box>(i)));
  }
  return h;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ConfigError("mailbox segment " + path + ": " + what);
}
[[noreturn]] void failErrno(const std::string& path, const std::string& what) {
  fail(path, what + ": " + std::strerror(errno));
}

// Populated at once: the period's first touch of a slot must not wait on a page fault.
std::byte* mapOf(int fd, const std::string& path, int protection = PROT_READ | PROT_WRITE) {
  void* p = mmap(nullptr, MailSegment::bytes(), protection, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) failErrno(path, "cannot map it");
  return static_cast<std::byte*>(p);
}

// Makes a complete segment under a private name, locked from the start so that no cleaner takes
// it for a dead run's; -1 when another node linked one into place first.
int create(const std::string& path, std::byte*& base) {
  static std::atomic<int> made{0};
  const std::string tmp = path + ".new-" + std::to_string(getpid()) + "-" + std::to_string(made++);
  const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) failErrno(path, "cannot create it");
  if (flock(fd, LOCK_SH) != 0 || ftruncate(fd, static_cast<off_t>(MailSegment::bytes())) != 0) {
    ::close(fd);
    unlink(tmp.c_str());
    failErrno(path, "cannot size it");
  }
  base = mapOf(fd, path);
  auto* h = new (base) SegmentHeader;
  std::memcpy(h->magic, kMagic, sizeof kMagic);
  h->version = kVersion;
  h->layout = layoutDigest();
  h->bytes = MailSegment::bytes();
  for (std::size_t n = 0; n < kNodeSlots; ++n) new (base + kDoorbellsAt + n * sizeof(DoorbellSlot)) DoorbellSlot{};
  for (int i = 0; i < kBoxCount; ++i)
    initRing(base + ringOffset(static_cast<Box>(i)), depthOf(static_cast<Box>(i)), capacityOf(static_cast<Box>(i)));
  std::atomic_thread_fence(std::memory_order_release);
  const bool linked = link(tmp.c_str(), path.c_str()) == 0;
  const int link_errno = errno;
  unlink(tmp.c_str());
  if (linked) return fd;
  munmap(base, MailSegment::bytes());
  ::close(fd);
  base = nullptr;
  if (link_errno != EEXIST) {
    errno = link_errno;
    failErrno(path, "cannot put it in place");
  }
  return -1;
}

// Checks a segment another node made: this user's alone, of this build's layout.
void check(int fd, const std::string& path, const std::byte* base) {
  struct stat st {};
  if (fstat(fd, &st) != 0) failErrno(path, "cannot read it");
  if (st.st_uid != geteuid()) fail(path, "it belongs to user " + std::to_string(st.st_uid) + ", not to this one");
  if ((st.st_mode & 077) != 0) fail(path, "other users may open it");
  if (static_cast<std::size_t>(st.st_size) != MailSegment::bytes())
    fail(path, "it holds " + std::to_string(st.st_size) + " bytes, not " + std::to_string(MailSegment::bytes()) +
                   ": a segment of another build (remove it, or run deploy/rfms down)");
  const auto* h = reinterpret_cast<const SegmentHeader*>(base);
  if (std::memcmp(h->magic, kMagic, sizeof kMagic) != 0 || h->version != kVersion || h->layout != layoutDigest() ||
      h->bytes != MailSegment::bytes())
    fail(path, "its layout is not this build's (remove it, or run deploy/rfms down)");
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    if (!ringHasShape(base + ringOffset(b), depthOf(b), capacityOf(b)))
      fail(path, std::string("the ring of ") + boxName(b) + " is not this build's");
  }
}

bool sameFile(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return fstat(fd, &a) == 0 && stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

std::size_t MailSegment::bytes() { return ringOffset(static_cast<Box>(kBoxCount)); }

std::string MailSegment::directory() {
  const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  return base + "/rfms-" + std::to_string(geteuid());
}

std::string MailSegment::pathFor(const std::string& run_dir) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::weakly_canonical(std::filesystem::absolute(run_dir), ec);
  if (ec) dir = std::filesystem::absolute(run_dir);
  return directory() + "/" + dir.filename().string().substr(0, 64) + "-" + digestOf(dir.string()) + ".mail";
}

MailSegment MailSegment::open(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) failErrno(path, "cannot make its directory " + dir);
  if (const std::string why = privateDirectoryProblem(dir); !why.empty()) fail(path, why);
  // A few rounds at most: each ends only when another node made or removed the file meanwhile.
  for (int round = 0; round < 100; ++round) {
    const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno != ENOENT) failErrno(path, "cannot open it");
      std::byte* base = nullptr;
      const int made = create(path, base);
      if (made >= 0) return MailSegment(path, made, base);
      continue;
    }
    // Locked, then looked at again: a dead run's segment that a cleaner removed between the open
    // and the lock is not the one in place.
    if (flock(fd, LOCK_SH) != 0 || !sameFile(fd, path)) {
      ::close(fd);
      continue;
    }
    // Mapped whole, but not touched before check() has read its size: reading past a shorter
    // file's end would be a bus error.
    std::byte* base = mapOf(fd, path);
    try {
      check(fd, path, base);
    } catch (...) {
      munmap(base, bytes());
      ::close(fd);
      throw;
    }
    return MailSegment(path, fd, base);
  }
  fail(path, "it kept changing while this node attached");
}

MailSegment::MailSegment(MailSegment&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), base_(other.base_) {
  other.fd_ = -1;
  other.base_ = nullptr;
}

MailSegment::~MailSegment() {
  if (base_ != nullptr) munmap(base_, bytes());
  if (fd_ < 0) return;
  // The last to leave (no other node holds its lock) removes the file, if it is still this one.
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0 && sameFile(fd_, path_)) unlink(path_.c_str());
  ::close(fd_);
}

void* MailSegment::ring(Box b) const { return base_ + ringOffset(b); }

void MailSegment::claimWriter(Box b) const {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = static_cast<off_t>(ringOffset(b));
  lock.l_len = static_cast<off_t>(ringBytes(depthOf(b), capacityOf(b)));
  if (fcntl(fd_, F_OFD_SETLK, &lock) == 0) return;
  if (errno == EAGAIN || errno == EACCES)
    fail(path_, std::string("another process already writes ") + boxName(b) + " (is this node running twice?)");
  failErrno(path_, std::string("cannot lock the ring of ") + boxName(b));
}

std::atomic<std::uint32_t>& MailSegment::doorbell(proto::Node reader) const {
  return reinterpret_cast<DoorbellSlot*>(base_ + kDoorbellsAt)[static_cast<std::size_t>(reader)].word;
}

std::optional<MailSegmentReader> MailSegmentReader::attach(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    failErrno(path, "cannot open it");
  }
  // Not touched before check() has read its size, as in MailSegment::open. The mapping outlives
  // the descriptor, and the file once the last node removes it.
  std::byte* base = mapOf(fd, path, PROT_READ);
  try {
    check(fd, path, base);
  } catch (...) {
    munmap(base, MailSegment::bytes());
    ::close(fd);
    throw;
  }
  ::close(fd);
  return MailSegmentReader(base);
}

MailSegmentReader::MailSegmentReader(MailSegmentReader&& other) noexcept : base_(other.base_) { other.base_ = nullptr; }

MailSegmentReader::~MailSegmentReader() {
  if (base_ != nullptr) munmap(const_cast<std::byte*>(base_), MailSegment::bytes());
}

const void* MailSegmentReader::ring(Box b) const { return base_ + ringOffset(b); }

}  // namespace rfms
