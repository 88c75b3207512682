#include "client/shell_terminal.hpp"

#include <editline/readline.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client/operator_shell.hpp"
#include "client/signal_watcher.hpp"
#include "client/task_link.hpp"
#include "common/refusal.hpp"

namespace rfms {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kRefresh = std::chrono::milliseconds(250);

// The status line is drawn by a thread of its own, through a link session of its own (a client
// is one thread's), while the editor blocks in readline(): drawn without moving the cursor the
// operator types at (save it, write line 1, restore it), in one write so that it does not mix
// with the editor's output. Lines 2.. scroll beneath (the scroll region set at the start).
class StatusLine {
 public:
  StatusLine(const ClientOptions& options, int cols) : options_(options), cols_(cols), thread_([this] { run(); }) {}
  ~StatusLine() {
    stop_ = true;
    thread_.join();
  }
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  // How the shell's last step ended, shown on the line from its next drawing on.
  void setLastStep(const std::string& text) {
    const std::lock_guard<std::mutex> lock(mutex_);
    last_step_ = text;
  }

 private:
  std::string lastStep() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return last_step_;
  }

  void run() {
    std::unique_ptr<RfmsClient> client;
    while (!stop_) {
      std::string line;
      try {
        if (!client) client = std::make_unique<RfmsClient>(options_);
        line = statusLine(client->status(), static_cast<std::size_t>(cols_ - 1), lastStep());
      } catch (const std::exception& e) {
        client.reset();  // a new session next time
        line = std::string("RFMS ? ") + e.what();
        line.resize(std::min<std::size_t>(line.size(), static_cast<std::size_t>(cols_ - 1)));
      }
      const std::string out = "\0337\033[1;1H\033[2K\033[7m" + line + "\033[0m\0338";
      if (write(STDOUT_FILENO, out.data(), out.size()) < 0) return;
      for (auto until = Clock::now() + kRefresh; !stop_ && Clock::now() < until;)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  ClientOptions options_;
  int cols_;
  std::mutex mutex_;
  std::string last_step_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

void say(const std::string& text) {
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

// `wait`: until every move so far has ended.
void waitForMoves(RfmsClient& client, std::uint64_t last_move) {
  for (;;) {
    const ArmStatus st = client.status();
    if (st.ended_through >= last_move) {
      say(st.state == ArmState::kEmgcy ? "stopped by an emergency" : "every move has ended");
      return;
    }
    if (st.state == ArmState::kEmgcy || st.state == ArmState::kIdle) {
      say(std::string("the moves were dropped (") + nameOf(st.state) + ")");
      return;
    }
    std::this_thread::sleep_for(kRefresh);
  }
}

OperatorShell* completing = nullptr;  // readline calls back into plain functions

// Completion: the words OperatorShell offers for the word under the cursor.
char* completionEntry(const char* prefix, int state) {
  static std::vector<std::string> matches;
  static std::size_t next = 0;
  if (state == 0) {
    const std::string before(rl_line_buffer, static_cast<std::size_t>(rl_point));
    std::istringstream words(before);
    std::string first, w;
    int index = 0;
    words >> first;
    if (!first.empty()) ++index;
    while (words >> w) ++index;
    if (!before.empty() && before.back() != ' ') --index;  // the word being typed
    matches = completing->completions(first, std::max(index, 0), prefix);
    next = 0;
  }
  return next < matches.size() ? strdup(matches[next++].c_str()) : nullptr;
}

char** complete(const char* prefix, int, int) {
  rl_attempted_completion_over = 1;  // no file names
  return rl_completion_matches(prefix, completionEntry);
}

}  // namespace

// The status once a jog's step has ended: it stopped short (the supervisor says why), or the arm,
// having moved, has not moved for a tenth of a second (or never moved in half a second); at most
// a minute (a step takes a few seconds).
ArmStatus waitForStepEnd(RfmsClient& client) {
  ArmStatus last = client.status();
  const auto start = Clock::now();
  bool moved_once = false;
  for (int still = 0; last.jog_stopped.empty() && Clock::now() - start < std::chrono::minutes(1);) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const ArmStatus now = client.status();
    const bool moved = now.angles != last.angles;
    moved_once = moved_once || moved;
    still = moved ? 0 : still + 1;
    last = now;
    if (still >= 5 && (moved_once || Clock::now() - start > std::chrono::milliseconds(500))) break;
  }
  return last;
}

int runOperatorShell(RfmsClient& client, const ClientOptions& options) {
  OperatorShell shell;
  const bool tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
  try {
    client.beginTask("shell");
  } catch (const std::exception& e) {
    std::cerr << "rfms-client shell: " << e.what() << "\n";
    return 1;
  }
  int rows = 24, cols = 80;
  if (winsize w{}; tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_row > 2 && w.ws_col > 10) {
    rows = w.ws_row;
    cols = w.ws_col;
  }
  // Line 1 is the status line; everything else scrolls in lines 2..rows.
  if (tty) std::printf("\033[2J\033[2;%dr\033[%d;1H", rows, rows);
  say("rfms-client shell: 'help' lists the commands; the arm is yours until 'quit'.");
  completing = &shell;
  rl_attempted_completion_function = complete;
  std::unique_ptr<StatusLine> status;
  if (tty) status = std::make_unique<StatusLine>(options, cols);
  std::uint64_t last_move = 0;
  std::string last_step;  // how the last step ended, for the status line
  for (bool quit = false; !quit;) {
    char* text = readline("rfms> ");
    if (text == nullptr) break;  // end of input (^D)
    const std::string typed = text;
    std::free(text);
    if (!typed.empty()) add_history(typed.c_str());
    try {
      const ShellLine line = shell.interpret(typed);
      switch (line.kind) {
        case ShellLine::kNothing: break;
        case ShellLine::kQuit: quit = true; break;
        case ShellLine::kHelp: say(OperatorShell::help()); break;
        case ShellLine::kError: say("? " + line.error); break;
        case ShellLine::kStatus: say(statusLine(client.status(), 1000, last_step)); break;
        case ShellLine::kWait: waitForMoves(client, last_move); break;
        case ShellLine::kRequest: {
          // A step is told by how it ended: where the arm was before it is needed.
          const ArmStatus before = isJogStep(line.request) ? client.status() : ArmStatus{};
          const proto::TaskReply reply = client.wire().send(line.request);
          if (!reply.accepted()) {
            say("refused: " + refusalText(reply));
            break;
          }
          shell.accepted(line.request);
          if (reply.move_id() > 0) last_move = reply.move_id();
          if (isJogStep(line.request)) {
            last_step = jogStepEnd(line.request.control(), before, waitForStepEnd(client));
            say(last_step);
            if (status) status->setLastStep(last_step);
            break;
          }
          say(reply.move_id() > 0 ? "move " + std::to_string(reply.move_id()) + " queued" : "ok");
          break;
        }
      }
    } catch (const std::exception& e) {
      say(std::string("! ") + e.what());
    }
  }
  status.reset();
  completing = nullptr;
  if (tty) std::printf("\033[r\033[%d;1H\n", rows);  // the whole screen scrolls again
  try {
    client.endTask();
  } catch (const std::exception& e) {
    std::cerr << "rfms-client shell: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

int watchStatus(RfmsClient& client, double rate, double seconds) {
  const bool tty = isatty(STDOUT_FILENO);
  int cols = 100;
  if (winsize w{}; tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 10) cols = w.ws_col;
  const auto period = std::chrono::duration<double>(1.0 / rate);
  const auto start = Clock::now();
  for (auto next = start; seconds <= 0.0 || Clock::now() - start < std::chrono::duration<double>(seconds);) {
    const std::string line = statusLine(client.status(), static_cast<std::size_t>(cols - 1));
    if (tty)
      std::printf("\r\033[K%s", line.c_str());
    else
      std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    next += std::chrono::duration_cast<Clock::duration>(period);
    std::this_thread::sleep_until(next);
  }
  if (tty) std::printf("\n");
  return 0;
}

int watchSignals(const ClientOptions& options, const std::vector<std::string>& signals, double rate, double seconds) {
  std::printf("# time_s period");
  for (const std::string& name : signals) std::printf(" %s", name.c_str());
  std::printf("\n");
  std::fflush(stdout);
  SignalWatcher watcher(options, signals, rate, [](const WatchedSample& s) {
    std::printf("%.3f %llu", s.time_s, static_cast<unsigned long long>(s.period));
    for (double v : s.values) std::printf(" %.9g", v);
    std::printf("\n");
    std::fflush(stdout);
  });
  const auto start = Clock::now();
  while ((seconds <= 0.0 || Clock::now() - start < std::chrono::duration<double>(seconds)) && watcher.error().empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (!watcher.error().empty()) {
    std::cerr << "rfms-client watch: " << watcher.error() << "\n";
    return 1;
  }
  std::fprintf(stderr, "rfms-client watch: %llu samples at %.4g Hz, %llu dropped by the controller\n",
               static_cast<unsigned long long>(watcher.received()), watcher.rateHz(),
               static_cast<unsigned long long>(watcher.dropped()));
  return 0;
}

}  // namespace rfms
