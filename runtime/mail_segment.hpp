// The cluster's mailboxes on one host, in one shared-memory segment per run: RFMS's dual-ported
// memory. A file on tmpfs (/dev/shm/rfms-UID/, a directory only this user can open; the file is
// mode 0600), named after the run directory, which holds a symbolic link `mailboxes` to it. It
// holds a header, a doorbell per node (runtime/doorbell.hpp) and a ring per box (runtime/mail_ring.hpp),
// laid out by runtime/mail_box.hpp's table; nodes of different builds refuse each other's layout.
//
// Whichever node comes first makes it, complete, under a private name, and links it into place;
// the others attach. Every node holds a shared lock on it while it runs, so that a segment nobody
// holds is known to be left from a dead run: `deploy/rfms up` removes those, and the last node to
// leave a run removes its own. Configuration time only (it throws ConfigError); the period path
// uses only what ring() and doorbell() return.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/mail_box.hpp"

namespace rfms {

class MailSegment {
 public:
  // Attaches to the run's segment, making it if it is not there yet.
  static MailSegment open(const std::string& path);
  // Where the segment of the run in `run_dir` lives, and the directory it lives in.
  static std::string pathFor(const std::string& run_dir);
  static std::string directory();

  MailSegment(MailSegment&& other) noexcept;
  MailSegment& operator=(MailSegment&&) = delete;
  MailSegment(const MailSegment&) = delete;
  ~MailSegment();  // detaches; the last node to leave removes the file

  void* ring(Box b) const;
  // Makes this process the one writer of box `b` for as long as it keeps the segment open: an
  // open-file-description write lock on the box's ring, which a second writer (a node started
  // twice, or restarted while the old one lives) cannot take. Two writers would make the same
  // sequence marks, and a reader could take half of one's mail with half of the other's.
  // ConfigError when another holds it.
  void claimWriter(Box b) const;
  std::atomic<std::uint32_t>& doorbell(proto::Node reader) const;
  const std::string& path() const { return path_; }
  static std::size_t bytes();

 private:
  MailSegment(std::string path, int fd, std::byte* base) : path_(std::move(path)), fd_(fd), base_(base) {}
  std::string path_;
  int fd_ = -1;
  std::byte* base_ = nullptr;
};

// A run's segment seen by a process outside the cluster (rfms-view): mapped read-only, so that
// nothing it does can change the cluster's mail, and without the nodes' lock, so that it never
// keeps a finished run's segment alive. Its readers only take the rings' mail (RingReader); they
// have no doorbell and no node waits for them.
class MailSegmentReader {
 public:
  // nullopt while the run has no segment yet; ConfigError for one that is not this build's.
  static std::optional<MailSegmentReader> attach(const std::string& path);

  MailSegmentReader(MailSegmentReader&& other) noexcept;
  MailSegmentReader& operator=(MailSegmentReader&&) = delete;
  MailSegmentReader(const MailSegmentReader&) = delete;
  ~MailSegmentReader();

  const void* ring(Box b) const;

 private:
  explicit MailSegmentReader(const std::byte* base) : base_(base) {}
  const std::byte* base_ = nullptr;
};

}  // namespace rfms
