// The probe under faults: a FIFO in place of a table does not hang, running
// out of file descriptors is an I/O error that passes (the same handle
// answers once descriptors are free), invalid C arguments are refused
// without undefined behaviour, over-full bitboards are invalid, and
// max_pieces() does not trust file names.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <future>

#include "damka.h"
#include "damka/notation.hpp"
#include "damka/probe.hpp"
#include "damka/table_paths.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

const Rules& russian() { return rules_of(Variant::Russian); }

Position fen(const char* text) {
  auto p = parse_fen(russian(), text);
  EXPECT_TRUE(p.ok()) << p.message();
  return *p;
}

// Uses up every file descriptor (under a low limit) until released.
class FdExhaustion {
 public:
  FdExhaustion() {
    ::getrlimit(RLIMIT_NOFILE, &old_);
    rlimit low = old_;
    low.rlim_cur = 128;
    ::setrlimit(RLIMIT_NOFILE, &low);
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) fds_.push_back(fd);
    errno_ = errno;
  }
  ~FdExhaustion() { release(); }
  void release() {
    for (int fd : fds_) ::close(fd);
    fds_.clear();
    ::setrlimit(RLIMIT_NOFILE, &old_);
  }
  int error() const { return errno_; }

 private:
  rlimit old_{};
  std::vector<int> fds_;
  int errno_ = 0;
};

TEST(ProbeFaults, OutOfFileDescriptorsIsAnIoErrorThatPasses) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "emfile");
  std::vector<std::string> reported;
  TablebaseOptions opt;
  opt.on_error = [&](const std::string& m) { reported.push_back(m); };
  auto tb = Tablebase::open(russian(), dir, opt);
  ASSERT_TRUE(tb.ok()) << tb.message();
  const Position p = fen("W:WKa1,Kc1:BKh8");  // 2Kv1K, no capture: needs its file
  {
    FdExhaustion full;
    ASSERT_EQ(full.error(), EMFILE);
    const ProbeResult r = (*tb)->probe(p, Metric::DTW);
    EXPECT_EQ(r.status, ProbeStatus::IoError);
    EXPECT_NE(Tablebase::thread_last_problem().find("Too many open files"), std::string::npos)
        << Tablebase::thread_last_problem();
    EXPECT_EQ((*tb)->table_state(mat("2Kv1K"), Metric::DTW), TableState::Unreadable);
  }
  // Descriptors are free again: the same handle reads the table.
  const ProbeResult r = (*tb)->probe(p, Metric::DTW);
  ASSERT_TRUE(r.ok()) << probe_status_name(r.status);
  auto fresh = Tablebase::open(russian(), dir);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(r.value, (*fresh)->probe(p, Metric::DTW).value);
  EXPECT_EQ((*tb)->table_state(mat("2Kv1K"), Metric::DTW), TableState::Present);
  EXPECT_TRUE((*tb)->errors().empty());  // nothing was marked damaged
  ASSERT_FALSE(reported.empty());
  EXPECT_NE(reported.front().find("Too many open files"), std::string::npos) << reported.front();
}

TEST(ProbeFaults, CApiGivesDamkaEIoThenRecovers) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "emfile_c");
  damka_tablebase* tb = nullptr;
  ASSERT_EQ(damka_open("russian", dir.c_str(), 1 << 20, &tb), DAMKA_OK) << damka_last_error();
  damka_value v{};
  {
    FdExhaustion full;
    EXPECT_EQ(damka_probe_fen(tb, "W:WKa1,Kc1:BKh8", DAMKA_WDL, &v), DAMKA_E_IO);
    EXPECT_NE(std::strstr(damka_last_error(), "Too many open files"), nullptr) << damka_last_error();
  }
  EXPECT_EQ(damka_probe_fen(tb, "W:WKa1,Kc1:BKh8", DAMKA_WDL, &v), DAMKA_OK) << damka_last_error();
  EXPECT_STREQ(damka_status_string(DAMKA_E_IO), "i/o error");
  damka_close(tb);
}

TEST(ProbeFaults, FifoInPlaceOfATableDoesNotHang) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "fifo");
  const auto path = table_path(dir, russian(), mat("2Kv1K"), Metric::DTW);
  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  auto tb = Tablebase::open(russian(), dir);
  ASSERT_TRUE(tb.ok());
  auto result = std::async(std::launch::async, [&] { return (*tb)->probe(fen("W:WKa1,Kc1:BKh8"), Metric::DTW); });
  if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);  // unblocks the reader
    ADD_FAILURE() << "the probe blocked on a FIFO";
    result.wait();
    if (fd >= 0) ::close(fd);
    return;
  }
  EXPECT_EQ(result.get().status, ProbeStatus::Corrupt);
  ASSERT_EQ((*tb)->errors().size(), 1u);
  EXPECT_NE((*tb)->errors()[0].find("not a regular file"), std::string::npos) << (*tb)->errors()[0];
}

// Out-of-range enum arguments are passed from C (tests/probe/c_api_test.c,
// fuzz/c_api_enum_check.c under UBSan): in C++ the caller's own conversion
// would be the undefined behaviour.

TEST(ProbeFaults, MoreThanTwelvePiecesASideIsInvalid) {
  auto tb = Tablebase::open(russian(), tables(Variant::Russian, 3));
  ASSERT_TRUE(tb.ok());
  Position p;
  p.men[0] = 0x1FFFu;  // 13 white men on squares 0..12
  p.kings[1] = 1u << 31;
  p.side_to_move = Color::White;
  ASSERT_TRUE(p.is_valid());
  EXPECT_EQ((*tb)->probe(p, Metric::WDL).status, ProbeStatus::Invalid);
  EXPECT_FALSE(parse_fen(russian(), to_fen(russian(), p)).ok());  // the FEN says the same

  damka_tablebase* h = nullptr;
  ASSERT_EQ(damka_open("russian", tables(Variant::Russian, 3).c_str(), 1 << 20, &h), DAMKA_OK);
  damka_value v{};
  EXPECT_EQ(damka_probe(h, 0x1FFFu, 0, 0, 1u << 31, DAMKA_WHITE, DAMKA_WDL, &v), DAMKA_E_INVALID_POSITION);
  damka_close(h);
}

TEST(ProbeFaults, MaxPiecesDoesNotTrustFileNames) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "names");
  const auto family = table_dir(dir, russian());
  std::ofstream(family / "16Kv16K.wdl").flush();  // empty
  std::ofstream(family / "4Kv3K.wdl") << "not a table";
  std::ofstream(family / "3Kv1K.dtw") << std::string(200, 'x');
  auto tb = Tablebase::open(russian(), dir);
  ASSERT_TRUE(tb.ok());
  EXPECT_EQ((*tb)->max_pieces(), 3);
  damka_tablebase* h = nullptr;
  ASSERT_EQ(damka_open("russian", dir.c_str(), 1 << 20, &h), DAMKA_OK);
  EXPECT_EQ(damka_max_pieces(h), 3);
  damka_close(h);
}

TEST(ProbeFaults, OverlongDirectoryNameIsNamedAsSuch) {
  const std::string dir = "/tmp/" + std::string(5000, 'd');
  auto tb = Tablebase::open(russian(), dir);
  ASSERT_FALSE(tb.ok());
  EXPECT_NE(tb.message().find("too long"), std::string::npos) << tb.message().substr(5000);
  EXPECT_EQ(tb.message().find("no such directory"), std::string::npos);
  EXPECT_FALSE(Tablebase::open(russian(), "").ok());
}

}  // namespace
}  // namespace damka::probe_test
