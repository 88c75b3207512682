#include "tests/support/random_task.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

namespace rfms::test {

namespace {

// Writes the task's lines. `at` lines are absolute (seconds after the task's first statement), so
// the writer keeps an estimate of the controller's clock that is never behind it: each move counts
// its segment and a margin. An `at` at the estimate then holds the script until the controller
// has caught up, which makes the next line's time exact: `sync()` before what must come at a
// known point of a move.
class Writer {
 public:
  explicit Writer(std::uint32_t seed) : rng_(seed) {}

  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  int fresh() { return ++names_; }

  // A T6 pose above the table, its probe leaning 30 degrees from vertical as the slide example's
  // does; `height` is T6's z in mm (the probe's tip is 52 mm lower, the table at -200).
  std::string pose(double height) {
    return fmt::format("rpy {:.2f} {:.2f} {:.2f} {:.2f} 150 0", uniform(200.0, 320.0), uniform(-150.0, -100.0), height,
                       uniform(-5.0, 5.0));
  }
  // A new position, with a transform of its own, at `height`: its number (position pN, transform tN).
  int place(double height) {
    const int n = fresh();
    request("transform t{} {}", n, pose(height));
    request("position p{} righty,down,flip T6 = t{}", n, n);
    return n;
  }
  std::string motion(const std::string& kind, double segment, const std::string& extra = "") {
    const std::string n = fmt::format("m{}", fresh());
    request("motion {} {} {:.2f} {:.2f}{}", n, kind, segment, std::min(0.4, segment / 2.0), extra);
    return n;
  }
  void move(const std::string& position, const std::string& motion, double seconds) {
    request("move {} {}", position, motion);
    clock_ += seconds + kMargin;
  }
  void wait() { text_ += "wait\n"; }
  void sync() { text_ += fmt::format("at {:.3f}\n", clock_); }
  // `seconds` later than the last sync (or than the estimate).
  void after(double seconds) {
    clock_ += seconds;
    sync();
  }
  void elapse(double seconds) { clock_ += seconds; }
  template <class... Args>
  void request(fmt::format_string<Args...> f, Args&&... args) {
    text_ += fmt::format(f, std::forward<Args>(args)...);
    text_ += '\n';
    ++requests_;
  }
  std::string& text() { return text_; }
  int requests() const { return requests_; }

 private:
  static constexpr double kMargin = 1.0;  // s: a move's transitions, settling and blending, at most
  std::mt19937 rng_;
  std::string text_;
  int names_ = 0, requests_ = 0;
  double clock_ = 0.0;
};

std::string position(int n) { return fmt::format("p{}", n); }

// A move to a new place (its arguments drawn in this order, so that a seed gives one text).
void moveTo(Writer& w, double height, const std::string& kind, double segment, const std::string& extra = "") {
  const int p = w.place(height);
  const std::string m = w.motion(kind, segment, extra);
  w.move(position(p), m, segment);
}

void jointMove(Writer& w) {
  moveTo(w, w.uniform(-110.0, -60.0), "joint", w.uniform(0.8, 2.0));
  w.wait();
}

void lineMove(Writer& w) {
  moveTo(w, w.uniform(-110.0, -60.0), "cartesian", w.uniform(0.8, 2.0));
  w.wait();
}

// Two or three moves of one mode queued back to back: they blend.
void blend(Writer& w) {
  const char* kind = w.pick(2) == 0 ? "joint" : "cartesian";
  const int n = 2 + w.pick(2);
  for (int i = 0; i < n; ++i) {
    const double height = w.uniform(-110.0, -60.0);
    moveTo(w, height, kind, w.uniform(0.8, 1.5));
  }
  w.wait();
}

void compliant(Writer& w) {
  static constexpr std::array<const char*, 4> kDirs{"z", "x,y", "rz", "x,z"};
  const double height = w.uniform(-110.0, -70.0), t = w.uniform(0.8, 1.5);
  const std::string extra = std::string(" compliance ") + kDirs[static_cast<std::size_t>(w.pick(4))];
  moveTo(w, height, w.pick(2) == 0 ? "joint" : "cartesian", t, extra);
  w.wait();
}

// Down onto the table under a guard, press, slide under force control, and leave.
void force(Writer& w) {
  const int n = w.fresh();
  const double x = w.uniform(200.0, 240.0), y = w.uniform(-140.0, -110.0), newtons = w.uniform(6.0, 12.0);
  w.request("transform f{}a rpy {:.2f} {:.2f} -120 0 150 0", n, x, y);
  w.request("transform f{}b rpy {:.2f} {:.2f} -170 0 150 0", n, x, y);  // into the table: z yields
  w.request("transform f{}c rpy {:.2f} {:.2f} -145 0 150 0", n, x + w.uniform(40.0, 90.0), y);
  w.request("transform f{}d rpy {:.2f} {:.2f} -110 0 150 0", n, x + 60.0, y);
  for (const char* p : {"a", "b", "c", "d"}) w.request("position f{}{} righty,down,flip T6 = f{}{}", n, p, n, p);
  const std::string tag = fmt::format("f{}", n);
  const std::string guard = fmt::format(" guard {:.1f}", w.uniform(2.0, 5.0));
  const std::string push = fmt::format(" force z {:.1f}", -newtons);
  const std::string reach = w.motion("joint", 1.5), touch = w.motion("cartesian", 2.0, guard),
                    press = w.motion("cartesian", 1.0, push), slide = w.motion("cartesian", 2.5, push),
                    leave = w.motion("cartesian", 1.0);
  w.move(tag + "a", reach, 1.5);
  w.move(tag + "b", touch, 2.0);
  w.move(tag + "b", press, 1.0);
  w.move(tag + "c", slide, 2.5);
  w.move(tag + "d", leave, 1.0);
  w.wait();
}

// The arm at rest in SETP is stopped to HOLD; a joint jogs one step (by angle) and holds; then a
// Cartesian jog runs on until a stop ends it.
void jog(Writer& w) {
  w.sync();
  w.request("stop");
  w.after(1.0);
  w.request("jog {} {} angle {:.1f}", 1 + w.pick(6), w.pick(2) == 0 ? "+" : "-", w.uniform(0.5, 3.0));
  w.after(1.5);
  w.request("jog {}{} {}", w.pick(2) == 0 ? "" : "tool ", "xyz"[w.pick(3)], w.pick(2) == 0 ? "+" : "-");
  w.after(w.uniform(0.2, 0.6));
  w.request("stop");
  w.after(0.5);
}

// A move that tracks its frame, which then moves in steps until a stop ends the move.
void track(Writer& w) {
  const int p = w.place(-90.0);
  const std::string m = w.motion("cartesian", 1.0, " track");
  w.move(position(p), m, 1.0);
  const double x = w.uniform(220.0, 260.0), y = w.uniform(-140.0, -110.0);
  for (int i = 1; i <= 6; ++i) {
    w.after(0.1);
    w.request("transform t{} rpy {:.2f} {:.2f} {:.2f} 0 150 0", p, x + 2.0 * i, y, -90.0 + 1.0 * i);
  }
  w.after(0.3);
  w.request("stop");
  w.after(1.5);  // STOP turns to HOLD once the arm is at rest
}

// A long move stopped in its middle: the arm comes to rest on the path and holds.
void stop(Writer& w) {
  const double t = w.uniform(2.0, 3.0);
  const int p = w.place(w.uniform(-100.0, -70.0));
  const std::string m = w.motion(w.pick(2) == 0 ? "joint" : "cartesian", t);
  w.sync();
  w.request("move p{} {}", p, m);
  w.after(w.uniform(0.3, 1.2));
  w.request("stop");
  w.after(1.5);  // STOP turns to HOLD once the arm is at rest
}

void forget(Writer& w) {
  const int p = w.place(-80.0);
  w.request("forget position p{}", p);
  w.request("forget transform t{}", p);
}

// Requests that must be refused and change nothing: a move out of reach, one of an unknown motion,
// forgetting what was never defined.
void refused(Writer& w) {
  const int n = w.fresh();
  w.request("transform far{} trans 2000 0 0", n);
  w.request("position far{} righty,down,flip T6 = far{}", n, n);
  w.request("move far{} m2", n);  // m2: the first move's motion, to p1
  w.request("move p1 m_unknown");
  w.request("forget motion never_defined");
}

}  // namespace

RandomTask randomTask(std::uint32_t seed, int episodes) {
  using Episode = void (*)(Writer&);
  static constexpr std::array<std::pair<const char*, Episode>, 10> kEpisodes{{{"joint", jointMove},
                                                                              {"line", lineMove},
                                                                              {"blend", blend},
                                                                              {"compliant", compliant},
                                                                              {"force", force},
                                                                              {"jog", jog},
                                                                              {"track", track},
                                                                              {"stop", stop},
                                                                              {"forget", forget},
                                                                              {"refused", refused}}};
  Writer w(seed);
  RandomTask task;
  w.text() = "units mm deg\n";
  // Every kind once, in random order, then the rest drawn at random.
  std::vector<int> order;
  for (int i = 0; i < episodes; ++i)
    order.push_back(i < static_cast<int>(kEpisodes.size()) ? i : w.pick(static_cast<int>(kEpisodes.size())));
  std::shuffle(order.begin(), order.end(), std::mt19937(seed + 1));
  jointMove(w);  // first to a pose above the table, from wherever calibration left the arm
  for (int i : order) {
    const auto& [name, episode] = kEpisodes[static_cast<std::size_t>(i)];
    episode(w);
    ++task.episodes[name];
  }
  w.request("emergency-stop");
  task.requests = w.requests();
  task.text = std::move(w.text());
  return task;
}

}  // namespace rfms::test
