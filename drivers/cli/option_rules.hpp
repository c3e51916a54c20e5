// The rules of option values that more than one command (or the Python run) needs, in one place,
// each failure one line naming the option, the value and the rule ("--nbins: got '0'; it takes a
// whole number of bins from 1 to 100000000"). Before these, `--nbins 0` silently meant the
// default bins, `--nbins 2000000000` ended in std::bad_alloc, `--begin nan` meant no limit, and
// `--ncpu 1000` made 128 CPU workers on 2 cores. Also here: each option is given once.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace pairhist {

/// The most bins a histogram may have (run, rdf, the Python run): each pair's histogram takes 8
/// bytes a bin, once per worker besides the result.
constexpr int64_t kMaxBins = 100000000;

/// "" when `bins` is within kMaxBins, else the limit and the memory one histogram of that many
/// bins would take, for a line beginning with what made them ("--nbins 2000000000: ...").
std::string bins_limit_problem(double bins);

/// "" when `ncpu` CPU workers are -1 (planned) or 0 to the cores this process may use, else the
/// rule with the value, for a line beginning with the option ("--ncpu must be ...").
std::string cpu_workers_problem(long long ncpu);

/// Validators for values whose text alone shows the problem (an unset time is nan, no --nbins
/// is 0): the parser reports them, one line, before the other arguments are checked together.
namespace option_rule {

/// A number, not nan or infinite (a time, a length).
CLI::Validator finite();
/// A number of bins: 1 to kMaxBins, with the memory of too many.
CLI::Validator bins();

}  // namespace option_rule

/// Makes every option and flag of `app` and of its subcommands that takes one value refuse to be
/// given twice, as gmx does (CLI11 lets a repeated flag count once, the last value of a repeated
/// option could win in other parsers): call once every command's options are added.
void refuse_repeated_options(CLI::App& app);

/// CLI11's words for an option given more often than it takes ("--nbins: At Most 1 required but
/// received 2") as pairhist says it; any other message as it is.
std::string parse_error_text(const CLI::Error& e);

}  // namespace pairhist
