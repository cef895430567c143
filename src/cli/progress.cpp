#include "cli/progress.hpp"

#include "core/error.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace distbench::cli {
namespace {

constexpr auto kTick = std::chrono::milliseconds(250);
constexpr auto kLiveAfter = std::chrono::seconds(1);  // a run shorter than this never shows a line

double seconds(ProgressLine::Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Columns of the terminal `out` writes to (80 when unknown): a live line longer than that would wrap, and "\r" then
// erases only its last part.
std::size_t terminal_columns(std::FILE* out) {
  winsize size{};
  if (ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace

ProgressMode parse_progress_mode(std::string_view text) {
  if (text == "auto") return ProgressMode::automatic;
  if (text == "on") return ProgressMode::on;
  if (text == "off") return ProgressMode::off;
  throw usage_error(fmt::format("--progress {} is not a mode; use auto, on or off", text));
}

ProgressLine::ProgressLine(ProgressMode mode, bool live, std::FILE* out)
    : mode_(mode), live_(live && mode != ProgressMode::off), out_(out) {
  if (mode_ != ProgressMode::off) ticker_ = std::thread([this] { tick(); });
}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    erase_live();
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void ProgressLine::step(std::size_t done, std::size_t total, const std::string& next) {
  if (mode_ == ProgressMode::off) return;
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  done_ = done;
  total_ = total;
  case_ = done < total ? next : std::string();
  case_began_ = now;
  next_plain_ = now + kPlainAfter;
  if (case_.empty()) {
    erase_live();
    return;
  }
  if (live_) {
    if (now - began_ >= kLiveAfter) draw_live(now);
  } else if (mode_ == ProgressMode::on) {
    fmt::print(out_, "progress: {}\n", status(now));
    std::fflush(out_);
  }
}

void ProgressLine::clear() {
  std::lock_guard lock(mutex_);
  erase_live();
}

void ProgressLine::tick() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kTick);
    if (stopping_ || case_.empty()) continue;
    const auto now = Clock::now();
    if (live_) {
      if (now - began_ >= kLiveAfter) draw_live(now);
    } else if (now >= next_plain_) {
      fmt::print(out_, "progress: {} and still running\n", status(now));
      std::fflush(out_);
      next_plain_ = now + kPlainEvery;
    }
  }
}

std::string ProgressLine::status(Clock::time_point now) const {
  return fmt::format("[{}/{}] {}: {:.0f} s ({:.0f} s since the start)", done_ + 1, total_, case_,
                     seconds(now - case_began_), seconds(now - began_));
}

void ProgressLine::draw_live(Clock::time_point now) {
  std::string line = status(now);
  const std::size_t columns = terminal_columns(out_);
  if (line.size() >= columns) line.resize(columns - 1);
  fmt::print(out_, "\r\033[K{}", line);
  std::fflush(out_);
  shown_ = true;
}

void ProgressLine::erase_live() {
  if (!shown_) return;
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
  shown_ = false;
}

}  // namespace distbench::cli
