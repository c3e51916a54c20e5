#include "io/scattering/scattering_writers.hpp"

#include <charconv>
#include <locale>
#include <sstream>
#include <stdexcept>

#include "io/common/atomic_file.hpp"
#include "io/common/header_text.hpp"
#include "io/results/text_writers.hpp"

namespace pairhist::io {

namespace {

std::ostringstream text_stream() {
  std::ostringstream text;
  text.imbue(std::locale::classic());  // '.' as the decimal separator whatever the host's locale
  text.precision(10);
  return text;
}

/// v as the stream above writes it (%.10g, '.' whatever the locale): to_chars is specified as
/// printf's %.10g, and formats a table's thousands of numbers several times faster.
void number(std::string& out, double v) {
  char buf[32];
  const std::to_chars_result r =
      std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 10);
  out.append(buf, r.ptr);
}

/// The rows: q, then the first n_columns columns' values, each after `sep`.
void rows(std::ostringstream& f, const QTable& table, size_t n_columns, char sep) {
  std::string text;
  text.reserve(table.q.size() * (n_columns + 1) * 18);
  for (size_t i = 0; i < table.q.size(); ++i) {
    number(text, table.q[i]);
    for (size_t c = 0; c < n_columns; ++c) {
      text += sep;
      number(text, table.columns[c].second[i]);
    }
    text += '\n';
  }
  f << text;
}

/// Comments and grace strings are single-line; species names must not break out of them.
std::string one_line(const std::string& s, char quote_replacement) {
  return header_text(s, quote_replacement);
}

void check(const QTable& t) {
  for (const auto& [name, values] : t.columns)
    if (values.size() != t.q.size())
      throw std::logic_error("q table column " + name + " does not have one value per q");
}

void comments(std::ostringstream& f, const QTable& t) {
  for (const std::string& line : t.comments) f << "# " << one_line(line, '"') << "\n";
}

}  // namespace

void write_q_table_csv(const std::string& path, const QTable& table) {
  check(table);
  std::ostringstream f = text_stream();
  comments(f, table);
  f << (table.q_unit == "A" ? "q_per_A" : "q_per_nm");
  for (const auto& column : table.columns) f << ',' << csv_field(column.first);
  f << '\n';
  rows(f, table, table.columns.size(), ',');
  write_bytes_atomically(path, f.str(), "the text output");
}

void write_q_table_xvg(const std::string& path, const QTable& table, size_t n_columns) {
  check(table);
  n_columns = std::min(n_columns, table.columns.size());
  std::ostringstream f = text_stream();
  comments(f, table);
  f << "@    title \"" << one_line(table.title, '\'') << "\"\n";
  // \cE\C is xmgrace's Angstrom sign (as GROMACS writes it).
  f << "@    xaxis  label \"q (" << (table.q_unit == "A" ? "\\cE\\C" : "nm") << "\\S-1\\N)\"\n";
  f << "@    yaxis  label \"" << one_line(table.y_label, '\'') << "\"\n";
  f << "@TYPE xy\n";
  f << "@ view 0.15, 0.15, 0.75, 0.85\n@ legend on\n@ legend box on\n@ legend loctype view\n";
  f << "@ legend 0.78, 0.8\n@ legend length 2\n";
  for (size_t c = 0; c < n_columns; ++c)
    f << "@ s" << c << " legend \"" << one_line(table.columns[c].first, '\'') << "\"\n";
  rows(f, table, n_columns, ' ');
  write_bytes_atomically(path, f.str(), "the text output");
}

}  // namespace pairhist::io
