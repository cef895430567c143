#include "cli/hostfile.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace distbench {
namespace {

// The message of the usage_error that parsing `text` (named "hosts.txt") throws; fails the test if none.
std::string parse_error(std::string_view text) {
  try {
    parse_hostfile(text, "hosts.txt");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

std::string read_error(const std::string& path) {
  try {
    read_hostfile(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error reading " << path;
  return {};
}

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

// --- good files ----------------------------------------------------------------------------------------------

TEST(Hostfile, OpenMpiWithSlotsMaxSlotsAndDefaults) {
  const auto hf = parse_hostfile(
      "# cluster\n"
      "node1 slots=4 max_slots=8\n"
      "\n"
      "node2 slots=2   # trailing comment\n"
      "node3\n"
      "   node4   max_slots=3  \n",
      "hosts.txt");
  EXPECT_EQ(hf.format, "openmpi");
  EXPECT_FALSE(hf.plain);
  EXPECT_EQ(hf.origin, "hosts.txt");
  ASSERT_EQ(hf.hosts.size(), 4u);
  EXPECT_EQ(hf.hosts[0].host, "node1");
  EXPECT_EQ(hf.hosts[0].slots, 4);
  EXPECT_EQ(hf.hosts[0].max_slots, 8);
  EXPECT_EQ(hf.hosts[0].line, 2);
  EXPECT_EQ(hf.hosts[1].host, "node2");
  EXPECT_EQ(hf.hosts[1].slots, 2);
  EXPECT_FALSE(hf.hosts[1].max_slots.has_value());
  EXPECT_EQ(hf.hosts[1].line, 4);
  EXPECT_EQ(hf.hosts[2].slots, 1);  // a bare host name is one slot
  EXPECT_EQ(hf.hosts[2].line, 5);
  EXPECT_EQ(hf.hosts[3].host, "node4");
  EXPECT_EQ(hf.hosts[3].slots, 1);
  EXPECT_EQ(hf.hosts[3].max_slots, 3);
  EXPECT_EQ(hf.total_slots(), 8);
}

TEST(Hostfile, OpenMpiAcceptsCountAliasSpacesAroundEqualsTabsAndCrlf) {
  const auto hf = parse_hostfile("a count=3\r\nb\tslots = 2\tmax-slots= 5\r\n", "hosts.txt");
  EXPECT_EQ(hf.format, "openmpi");
  ASSERT_EQ(hf.hosts.size(), 2u);
  EXPECT_EQ(hf.hosts[0].slots, 3);
  EXPECT_EQ(hf.hosts[1].slots, 2);
  EXPECT_EQ(hf.hosts[1].max_slots, 5);
}

TEST(Hostfile, MpichWithCountsAndDefaults) {
  const auto hf = parse_hostfile("# mpich\nnode1:4\nnode2   # one\n10.0.0.7:2\nnode_4.example.org:3", "m");
  EXPECT_EQ(hf.format, "mpich");
  EXPECT_FALSE(hf.plain);
  ASSERT_EQ(hf.hosts.size(), 4u);
  EXPECT_EQ(hf.hosts[0].slots, 4);
  EXPECT_EQ(hf.hosts[1].host, "node2");
  EXPECT_EQ(hf.hosts[1].slots, 1);
  EXPECT_EQ(hf.hosts[2].host, "10.0.0.7");
  EXPECT_EQ(hf.hosts[2].slots, 2);
  EXPECT_EQ(hf.hosts[3].host, "node_4.example.org");
  EXPECT_EQ(hf.hosts[3].line, 5);  // last line without '\n'
  EXPECT_EQ(hf.total_slots(), 10);
}

TEST(Hostfile, BareNamesArePlainAndReportedAsOpenMpi) {
  const auto hf = parse_hostfile("node1\nnode2\n", "hosts.txt");
  EXPECT_TRUE(hf.plain);
  EXPECT_EQ(hf.format, "openmpi");
  EXPECT_EQ(hf.total_slots(), 2);
}

TEST(Hostfile, MaxSlotsEqualToSlotsIsFine) {
  EXPECT_EQ(parse_hostfile("n slots=4 max_slots=4\n", "h").hosts[0].max_slots, 4);
}

// --- malformed files: each message is "FILE:LINE: what; fix" -------------------------------------------------

TEST(HostfileErrors, NonNumericSlots) {
  const auto msg = parse_error("node1 slots=4\n\nnode2 slots=abc\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:3: slots=abc is not a positive integer; write e.g. 'node2 slots=4'")) << msg;
}

TEST(HostfileErrors, ZeroNegativeEmptyAndTrailingJunkSlots) {
  EXPECT_TRUE(starts_with(parse_error("node1 slots=0\n"), "hosts.txt:1: slots=0 is not a positive integer; "));
  EXPECT_TRUE(starts_with(parse_error("#\nnode1 slots=-2\n"), "hosts.txt:2: slots=-2 is not a positive integer;"));
  EXPECT_TRUE(starts_with(parse_error("node1 slots=\n"), "hosts.txt:1: slots= is not a positive integer;"));
  EXPECT_TRUE(starts_with(parse_error("node1 slots=4x\n"), "hosts.txt:1: slots=4x is not a positive integer;"));
  EXPECT_TRUE(starts_with(parse_error("node1 max_slots=0\n"), "hosts.txt:1: max_slots=0 is not a positive"));
  EXPECT_TRUE(starts_with(parse_error("node1 slots=99999999999\n"), "hosts.txt:1: slots=99999999999 is too large;"));
}

TEST(HostfileErrors, MpichBadCounts) {
  const auto msg = parse_error("node1:4\nnode2:x\n");
  EXPECT_TRUE(starts_with(msg,
                          "hosts.txt:2: 'node2:x' slot count 'x' is not a positive integer; write e.g. "
                          "'node2:4'"))
      << msg;
  EXPECT_TRUE(starts_with(parse_error("node1:0\n"), "hosts.txt:1: 'node1:0' slot count '0' is not a positive"));
  EXPECT_TRUE(starts_with(parse_error("node1:\n"), "hosts.txt:1: 'node1:' slot count '' is not a positive"));
  EXPECT_TRUE(starts_with(parse_error(":4\n"), "hosts.txt:1: missing host name; write e.g. 'node1:4'"));
  EXPECT_TRUE(starts_with(parse_error("node1:4 extra\n"), "hosts.txt:1: 'node1:4' is MPICH style, which takes"));
}

TEST(HostfileErrors, UnknownKey) {
  const auto msg = parse_error("node1 slots=2\nnode2 slot=2\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:2: unknown key 'slot'; the keys are slots (or count) and max_slots")) << msg;
}

TEST(HostfileErrors, WordThatIsNotASetting) {
  const auto msg = parse_error("node1 node2\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:1: 'node2' after host 'node1' is not a key=value setting; put one host"))
      << msg;
}

TEST(HostfileErrors, RepeatedKeyOnOneLine) {
  EXPECT_TRUE(starts_with(parse_error("n slots=2 count=3\n"), "hosts.txt:1: slots given twice ('count=3')"));
  EXPECT_TRUE(starts_with(parse_error("n max_slots=2 max_slots=3\n"), "hosts.txt:1: max_slots given twice"));
}

TEST(HostfileErrors, MaxSlotsBelowSlots) {
  const auto msg = parse_error("# a\n# b\n# c\nnode1 slots=4 max_slots=2\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:4: max_slots=2 is less than slots=4; raise max_slots or lower slots")) << msg;
}

TEST(HostfileErrors, DuplicateHostNamesTheFirstLine) {
  const auto msg = parse_error("node1 slots=2\nnode2\n\nnode1 slots=4\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:4: host 'node1' is already listed on line 1; list each host once")) << msg;
  // Host names are case-insensitive, and the MPICH form is checked too.
  EXPECT_TRUE(starts_with(parse_error("Node1:2\nnode1:2\n"), "hosts.txt:2: host 'node1' is already listed on line 1"));
}

TEST(HostfileErrors, MixedStyles) {
  const auto msg = parse_error("node1 slots=4\nnode2\nnode3:2\n");
  EXPECT_TRUE(starts_with(msg,
                          "hosts.txt:3: 'node3:2' is MPICH style but line 1 is OpenMPI style ('node1 slots=4'); "
                          "use one style per file, e.g. 'node3 slots=2'"))
      << msg;
  const auto other = parse_error("node1\nnode2:4\nnode3 slots=2\n");
  EXPECT_TRUE(starts_with(other,
                          "hosts.txt:3: 'node3 slots=2' is OpenMPI style but line 2 is MPICH style "
                          "('node2:4'); use one style per file, e.g. 'node3:2'"))
      << other;
}

TEST(HostfileErrors, BadHostNames) {
  EXPECT_TRUE(starts_with(parse_error("ok\nno$de slots=1\n"),
                          "hosts.txt:2: host name 'no$de' contains '$'; "
                          "host names use only letters, digits"));
  EXPECT_TRUE(starts_with(parse_error("user@node slots=1\n"), "hosts.txt:1: host name 'user@node' contains '@'"));
  EXPECT_TRUE(starts_with(parse_error("-node slots=1\n"), "hosts.txt:1: host name '-node' does not start with"));
}

TEST(HostfileErrors, EmptyFile) {
  for (const std::string_view text : {"", "\n\n", "# only a comment\n   # and another\n"}) {
    const auto msg = parse_error(text);
    EXPECT_TRUE(starts_with(msg, "hosts.txt: no hosts found")) << msg;
    EXPECT_TRUE(contains(msg, "; list one host per line")) << msg;
  }
}

TEST(HostfileErrors, MissingFileNamesThePathAndReason) {
  const auto msg = read_error("/nonexistent/dir/hosts.txt");
  EXPECT_TRUE(contains(msg, "'/nonexistent/dir/hosts.txt'")) << msg;
  EXPECT_TRUE(contains(msg, "No such file or directory")) << msg;
}

TEST(HostfileErrors, DirectoryIsNotARegularFile) {
  const auto dir = std::filesystem::temp_directory_path().string();
  const auto msg = read_error(dir);
  EXPECT_TRUE(contains(msg, dir)) << msg;
  EXPECT_TRUE(contains(msg, "is not a regular file (a directory)")) << msg;
}

TEST(HostfileErrors, EndlessDevicesAreRefusedBeforeReading) {
  EXPECT_EQ(read_error("/dev/zero"),
            "hostfile '/dev/zero' is not a regular file (a character device); give the path of a regular file");
  EXPECT_TRUE(contains(read_error("/dev/urandom"), "is not a regular file")) << read_error("/dev/urandom");
}

TEST(Hostfile, ReadFileUsesThePathInMessages) {
  const auto path = std::filesystem::temp_directory_path() / ("distbench_test_hostfile_" + std::to_string(::getpid()));
  {
    std::ofstream out(path);
    out << "node1 slots=2\nnode2 slots=x\n";
  }
  const auto msg = read_error(path.string());
  std::filesystem::remove(path);
  EXPECT_TRUE(starts_with(msg, path.string() + ":2: slots=x is not a positive integer")) << msg;
}

// --- summary text ----------------------------------------------------------------------------------------------

TEST(HostfileSummary, OpenMpiWithMaxSlots) {
  const auto hf = parse_hostfile("node1 slots=4 max_slots=8\nnode22.local slots=2\n", "h.txt");
  EXPECT_EQ(format_hostfile_summary(hf),
            "hostfile: h.txt\n"
            "format:   openmpi\n"
            "host          slots  max_slots\n"
            "node1             4          8\n"
            "node22.local      2          -\n"
            "total:    6 slots on 2 hosts\n");
}

TEST(HostfileSummary, MpichWithoutMaxSlotsColumn) {
  const auto hf = parse_hostfile("n1:3\n", "m");
  EXPECT_EQ(format_hostfile_summary(hf),
            "hostfile: m\n"
            "format:   mpich\n"
            "host  slots\n"
            "n1        3\n"
            "total:    3 slots on 1 host\n");
}

TEST(HostfileSummary, PlainNamesSayTheyFitBoth) {
  EXPECT_TRUE(contains(format_hostfile_summary(parse_hostfile("n1\n", "p")),
                       "format:   openmpi (bare host names: also valid for MPICH)\n"));
}

// --- the example files in hostfiles/ -------------------------------------------------------------------------

class ExampleHostfiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
    if (root == nullptr || *root == '\0')
      GTEST_SKIP() << "DISTBENCH_SOURCE_ROOT is not set, so hostfiles/ cannot be found (meson test sets it)";
    dir_ = std::filesystem::path(root) / "hostfiles";
    if (!std::filesystem::is_directory(dir_))
      GTEST_SKIP() << dir_ << " is not a directory: is DISTBENCH_SOURCE_ROOT the source tree?";
  }
  Hostfile read(const char* name) const { return read_hostfile((dir_ / name).string()); }

  std::filesystem::path dir_;
};

TEST_F(ExampleHostfiles, OpenMpi) {
  const auto hf = read("openmpi.hostfile");
  EXPECT_EQ(hf.format, "openmpi");
  EXPECT_FALSE(hf.plain);
  EXPECT_GE(hf.hosts.size(), 3u);
  EXPECT_EQ(hf.total_slots(), 15);
}

TEST_F(ExampleHostfiles, MpichDescribesTheSameCluster) {
  const auto mpich = read("mpich.hostfile");
  const auto openmpi = read("openmpi.hostfile");
  EXPECT_EQ(mpich.format, "mpich");
  ASSERT_EQ(mpich.hosts.size(), openmpi.hosts.size());
  for (std::size_t i = 0; i < mpich.hosts.size(); ++i) {
    EXPECT_EQ(mpich.hosts[i].host, openmpi.hosts[i].host);
    EXPECT_EQ(mpich.hosts[i].slots, openmpi.hosts[i].slots);
  }
}

TEST_F(ExampleHostfiles, Localhost) {
  const auto hf = read("localhost.hostfile");
  ASSERT_EQ(hf.hosts.size(), 1u);
  EXPECT_EQ(hf.hosts[0].host, "localhost");
  EXPECT_EQ(hf.total_slots(), 2);
}

TEST_F(ExampleHostfiles, ClusterNetns) {
  const auto hf = read("cluster-netns.hostfile");
  ASSERT_EQ(hf.hosts.size(), 3u);
  EXPECT_EQ(hf.hosts[0].host, "nodeA");
  EXPECT_EQ(hf.hosts[1].host, "nodeB");
  EXPECT_EQ(hf.hosts[2].host, "nodeC");
  for (const auto& h : hf.hosts) EXPECT_EQ(h.slots, 2);
  EXPECT_EQ(hf.total_slots(), 6);
}

TEST_F(ExampleHostfiles, EveryHostfileInTheDirectoryParses) {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    if (entry.path().extension() != ".hostfile") continue;
    ++seen;
    EXPECT_NO_THROW(read_hostfile(entry.path().string())) << entry.path();
  }
  EXPECT_GE(seen, 4);
}

}  // namespace
}  // namespace distbench

namespace distbench {
namespace {

// --- totals: MPI counts ranks in an int ----------------------------------------------------------------------

TEST(HostfileTotal, MpichSlotsAddingUpPastIntMaxAreRefused) {
  const auto msg = parse_error("a:2147483647\nb:1\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:2: the slots add up to 2147483648")) << msg;
  EXPECT_TRUE(contains(msg, "lower the slot counts")) << msg;
}

TEST(HostfileTotal, OpenMpiSlotsAddingUpPastIntMaxAreRefused) {
  const auto msg = parse_error("a slots=2147483647\nb slots=2147483647\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:2: the slots add up to 4294967294")) << msg;
}

TEST(HostfileTotal, ExactlyIntMaxIsFine) {
  const auto hf = parse_hostfile("a:2147483646\nb:1\n", "hosts.txt");
  EXPECT_EQ(hf.total_slots(), 2147483647);
  EXPECT_TRUE(contains(format_hostfile_summary(hf), "total:    2147483647 slots on 2 hosts"));
}

TEST(HostfileTotal, TotalOfAHandBuiltHostfileNeverOverflows) {
  Hostfile hf;
  hf.origin = "built";
  hf.hosts = {{"a", 2147483647, {}, 1}, {"b", 2147483647, {}, 2}};
  EXPECT_THROW(hf.total_slots(), Error);
}

}  // namespace
}  // namespace distbench

namespace distbench {
namespace {

using namespace std::string_literals;

// --- what messages show of untrusted text ---------------------------------------------------------------------

TEST(HostfileMessages, NulByteIsShownEscapedNotCuttingTheMessage) {
  const auto msg = parse_error("no\0de slots=2\n"s);
  EXPECT_EQ(msg,
            "hosts.txt:1: host name 'no\\x00de' contains '\\x00'; host names use only letters, digits, '-', '.' "
            "and '_' (IPv4 and IPv6 addresses are fine)");
}

TEST(HostfileMessages, Utf8CharacterIsShownWhole) {
  const auto msg = parse_error("nœud slots=2\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:1: host name 'nœud' contains 'œ';")) << msg;
}

TEST(HostfileMessages, InvalidUtf8IsEscaped) {
  const auto msg = parse_error("n\xff slots=2\n");
  EXPECT_TRUE(starts_with(msg, "hosts.txt:1: host name 'n\\xff' contains '\\xff';")) << msg;
}

TEST(HostfileMessages, LongValuesAreCutTo80Characters) {
  const auto msg = parse_error("node slots=" + std::string(100000, '9') + "\n");
  EXPECT_EQ(msg, "hosts.txt:1: slots=" + std::string(74, '9') + "... is too large; write e.g. 'node slots=4'");
  const auto key = parse_error("node " + std::string(100000, 'k') + "=1\n");
  EXPECT_LT(key.size(), 400u) << key.size();
  EXPECT_TRUE(contains(key, std::string(80, 'k') + "...'")) << key.substr(0, 200);
}

TEST(HostfileMessages, LongUtf8ValuesAreCutOnACharacterBoundary) {
  std::string word;
  for (int i = 0; i < 200; ++i) word += "é";
  const auto msg = parse_error("node " + word + "\n");
  std::string cut;
  for (int i = 0; i < 80; ++i) cut += "é";
  EXPECT_TRUE(contains(msg, "'" + cut + "...' after host 'node'")) << msg;
}

TEST(HostfileMessages, HostNameLongerThanADnsNameIsRefused) {
  const auto msg = parse_error(std::string(100000, 'a') + " slots=2\n");
  EXPECT_TRUE(contains(msg, "is 100000 bytes long, longer than the 253 a DNS name can be")) << msg.substr(0, 200);
  EXPECT_LT(msg.size(), 300u);
  EXPECT_EQ(parse_hostfile(std::string(253, 'a') + "\n", "hosts.txt").hosts[0].host.size(), 253u);
}

TEST(HostfileMessages, ControlCharactersInTheFileNameAreEscaped) {
  try {
    parse_hostfile("node slots=x\n", "a\nb");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(starts_with(e.what(), "a\\nb:1: ")) << e.what();
  }
}

// --- IPv6 addresses and line ends -----------------------------------------------------------------------------

TEST(HostfileIpv6, LoopbackWithSlotsIsOpenMpiStyle) {
  const auto hf = parse_hostfile("::1 slots=2\n", "hosts.txt");
  EXPECT_EQ(hf.format, "openmpi");
  ASSERT_EQ(hf.hosts.size(), 1u);
  EXPECT_EQ(hf.hosts[0].host, "::1");
  EXPECT_EQ(hf.hosts[0].slots, 2);
}

TEST(HostfileIpv6, BareAddressesAndZonesAreHosts) {
  const auto hf = parse_hostfile("fe80::1%eth0\n2001:db8::7 slots=4\n::ffff:10.0.0.1\n", "hosts.txt");
  ASSERT_EQ(hf.hosts.size(), 3u);
  EXPECT_EQ(hf.hosts[0].host, "fe80::1%eth0");
  EXPECT_EQ(hf.hosts[1].slots, 4);
  EXPECT_EQ(hf.hosts[2].host, "::ffff:10.0.0.1");
  EXPECT_EQ(hf.total_slots(), 6);
}

TEST(HostfileIpv6, BracketsAreRefusedWithTheBareForm) {
  EXPECT_EQ(parse_error("[::1]:2\n"),
            "hosts.txt:1: '[::1]:2' puts the host in brackets; write an IPv6 address bare, OpenMPI style, e.g. '::1 "
            "slots=4'");
}

TEST(HostfileIpv6, MpichStyleStillAppliesToNames) {
  const auto hf = parse_hostfile("node1:4\n", "hosts.txt");
  EXPECT_EQ(hf.format, "mpich");
  EXPECT_EQ(hf.hosts[0].slots, 4);
}

TEST(HostfileLines, BareCarriageReturnsEndLines) {
  const auto hf = parse_hostfile("a slots=1\rb slots=2\rc\r", "hosts.txt");
  ASSERT_EQ(hf.hosts.size(), 3u);
  EXPECT_EQ(hf.hosts[1].host, "b");
  EXPECT_EQ(hf.hosts[1].line, 2);
}

TEST(HostfileLines, CrLfIsOneLineEnd) {
  const auto hf = parse_hostfile("a\r\nb\r\n\r\nc\r\n", "hosts.txt");
  ASSERT_EQ(hf.hosts.size(), 3u);
  EXPECT_EQ(hf.hosts[2].host, "c");
  EXPECT_EQ(hf.hosts[2].line, 4);
  EXPECT_TRUE(starts_with(parse_error("a\r\nb\r\nc slots=x\r\n"), "hosts.txt:3: "))
      << parse_error("a\r\nb\r\nc slots=x\r\n");
}

}  // namespace
}  // namespace distbench
