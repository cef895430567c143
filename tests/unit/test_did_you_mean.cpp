// "Did you mean": the edit distance (optimal string alignment: insert, delete, replace, swap neighbours) and the
// choice of a close enough candidate.
#include "cli/did_you_mean.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench::cli {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndReplacements) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("allreduce", "allreduce"), 0u);
  EXPECT_EQ(edit_distance("allreduc", "allreduce"), 1u);    // one inserted
  EXPECT_EQ(edit_distance("allreducee", "allreduce"), 1u);  // one deleted
  EXPECT_EQ(edit_distance("allgether", "allgather"), 1u);   // one replaced
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);        // Levenshtein's classic
}

TEST(EditDistance, ASwapOfNeighboursIsOneEdit) {
  EXPECT_EQ(edit_distance("chekc", "check"), 1u);
  EXPECT_EQ(edit_distance("allrdeuce", "allreduce"), 1u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
  // Optimal string alignment edits no substring twice: "ca" -> "abc" is 3, not Damerau's unrestricted 2.
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(EditDistance, IsSymmetricAndCaseSensitive) {
  EXPECT_EQ(edit_distance("reduce-scatter", "reducescatter"), edit_distance("reducescatter", "reduce-scatter"));
  EXPECT_EQ(edit_distance("AVG", "avg"), 3u);
}

TEST(Closest, FindsTheLikelyTypo) {
  const std::vector<std::string> commands = {"allreduce", "reduce-scatter", "allgather", "reduce", "health"};
  EXPECT_EQ(closest("allreduc", commands), "allreduce");
  EXPECT_EQ(closest("reduce_scatter", commands), "reduce-scatter");
  EXPECT_EQ(closest("ALLGATHER", commands), "allgather");  // case is ignored
  EXPECT_EQ(closest("helth", commands), "health");
  EXPECT_EQ(closest("--maxbyte", {"-b", "--minbytes", "-e", "--maxbytes"}), "--maxbytes");
}

TEST(Closest, LeavesFarWordsAndExactMatchesAlone) {
  const std::vector<std::string> commands = {"allreduce", "list", "info"};
  EXPECT_EQ(closest("bogus", commands), std::nullopt);
  EXPECT_EQ(closest("x", commands), std::nullopt);
  EXPECT_EQ(closest("list", commands), std::nullopt);  // not a typo
  EXPECT_EQ(closest("anything", {}), std::nullopt);
  // At most a third of the letters wrong: two edits in a six-letter word pass, three do not.
  EXPECT_EQ(closest("reudcx", {"reduce"}), "reduce");
  EXPECT_EQ(closest("rxdxcx", {"reduce"}), std::nullopt);
  // A word of one or two letters is a typo only in its case.
  EXPECT_EQ(closest("2", {"0", "1"}), std::nullopt);
  EXPECT_EQ(closest("-v", {"-h", "-x"}), std::nullopt);
  EXPECT_EQ(closest("-V", {"-h", "-v"}), "-v");
}

TEST(Closest, TheFirstOfEquallyCloseCandidatesWins) { EXPECT_EQ(closest("mix", {"min", "max"}), "min"); }

TEST(DidYouMean, IsAPhraseOrNothing) {
  EXPECT_EQ(did_you_mean("chek", {"check"}), "; did you mean 'check'?");
  EXPECT_EQ(did_you_mean("zzzz", {"check"}), "");
}

}  // namespace
}  // namespace distbench::cli
