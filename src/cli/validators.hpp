// Checks of option values that say in words what is wrong ("-1 is not a positive number of seconds") and show a short
// rule in --help ("SECONDS > 0", "1..64", "{rank0,avg,min,max}") instead of CLI11's range text. CLI11 puts the
// option's name in front of the message; parse_error_text writes it as the user may type it (-T/--timeout).
#pragma once

#include <CLI/CLI.hpp>

#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distbench::cli {

// A finite number above 0, of `unit` (plural: "seconds"), and at most `max` when one is given; --help shows
// "SECONDS > 0", or "0 < SECONDS <= 1e+06".
CLI::Validator positive_number(const std::string& unit, double max = std::numeric_limits<double>::infinity());
// A finite number of 0 or more, of `unit`, and at most `max`; --help shows "SECONDS >= 0" or "0 <= SECONDS <= 10".
CLI::Validator non_negative_number(const std::string& unit, double max = std::numeric_limits<double>::infinity());
// A relative amount, in percent: "5%" or "5" (the same: a bare number is a percentage in every option of distbench)
// from lo to hi percent; the option holds the number of percent. A bare number between 0 and 1 ("0.25") is refused as
// ambiguous (a fraction, 25%, in some tools; 0.25% here): write "25%" or "0.25%". --help shows "PERCENT (e.g. 5%)".
CLI::Validator percentage(double lo, double hi);
// A whole number from lo to hi, a `what` ("rank count": "1 is not a rank count from 2 to 64"); --help shows "1..64".
CLI::Validator in_range(long long lo, long long hi, const std::string& what = "whole number");
// A whole number of lo or more; --help shows "N >= 0".
CLI::Validator at_least(long long lo);
// A file path: anything but the empty string (which would otherwise read as "not given" and be ignored).
CLI::Validator non_empty_path();
// A path whose name ends in `ending` (any case; ".json"), or "-" (stdout).
CLI::Validator path_ending(std::string_view ending);
// One of `names`, or one of the `aliases`' spellings, which the option holds as the name it maps to (-a's 0..3: add
// it with ->transform(), since ->check() keeps the value as typed); --help shows "{rank0,avg,min,max}". A near miss
// (another case, a typo) is answered with "did you mean".
CLI::Validator one_of(std::vector<std::string> names, std::vector<std::pair<std::string, std::string>> aliases = {});

// Adds to every option of `app` and its subcommands, by the type it holds, what CLI11 leaves out: an unsigned one
// refuses a negative number (CLI11 would wrap -1 to 2^64-1), a number too large for it, and anything but decimal
// digits (CLI11 reads 010 as octal 8); a floating one refuses inf and nan. Call once, after every option is added.
void check_number_types(CLI::App& app);

// The help formatter that shows a checked option's rule and default ("SECONDS > 0 (default 300)") where CLI11 shows
// its type, rule and default ("FLOAT:SECONDS > 0=300"). Subcommands added after it is set on the root inherit it.
class RuleFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* option) const override;
};

}  // namespace distbench::cli
