#include "io/topology/psf_reader.hpp"

#include <cctype>
#include <fstream>
#include <limits>
#include <set>
#include <string_view>
#include <vector>

#include "analysis/atom_masses.hpp"
#include "analysis/scattering_elements.hpp"
#include "io/common/input_path.hpp"
#include "io/common/text_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

// The fewest bytes an atom line (eight fields and their blanks, and its newline) and a bond (two
// numbers, each with a blank) take: a declared count is believed only as far as the rest of the
// file can hold it.
constexpr uint64_t kMinAtomLineBytes = 16;
constexpr uint64_t kMinBondBytes = 4;
// GROMACS's CHARMM force fields exclude non-bonded pairs up to three bonds apart.
constexpr int kCharmmNrexcl = 3;

// CHARMM's fixed columns of the text fields: atom number, segid, resid, resname, name, each
// followed by one blank (psfres.src: I8,1X,A4,1X,A4,1X,A4,1X,A4; EXT: I10,1X,A8,...).
struct Columns {
  size_t number, text;
};
constexpr Columns kStandard{8, 4};
constexpr Columns kExtended{10, 8};

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

struct AtomFields {
  std::string segid, resid, resname, name, type, charge, mass;
};

class PsfParser {
 public:
  explicit PsfParser(const std::string& path) : path_(path), in_(path) {
    if (!in_) throw InputError(path + ": cannot open the PSF file");
  }

  analysis::Topology parse(analysis::BondList* bonds) {
    read_header();
    skip_title();
    read_atoms();
    read_bonds();
    if (bonds) *bonds = std::move(bonds_);
    return std::move(top_);
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(path_ + ": line " + std::to_string(line_no_) + ": " + problem);
  }

  // The next line; false at the end of the file.
  bool next_line() {
    bool had_newline = true;
    return text::next_line_or_fail(in_, line_, line_no_, had_newline, "not a text file (NUL byte)",
                                   [this](const std::string& problem) { fail(problem); });
  }

  // The next line that is not blank, split; false at the end of the file.
  bool next_content() {
    while (next_line()) {
      text::split_ws(line_, fields_);
      if (!fields_.empty()) return true;
    }
    return false;
  }

  void read_header() {
    if (!next_line()) fail("empty file, not a PSF file");
    text::split_ws(line_, fields_);
    if (fields_.empty() || fields_[0] != "PSF")
      fail("not a PSF file (the first line does not start with 'PSF')");
    const std::set<std::string> known = {"EXT", "CHEQ", "XPLOR", "CMAP", "DRUDE", "NAMD"};
    for (size_t k = 1; k < fields_.size(); ++k) {
      if (!known.count(fields_[k]))
        fail("unknown PSF flag '" + excerpt(fields_[k]) +
             "' (known: EXT, CHEQ, XPLOR, CMAP, DRUDE, NAMD)");
      extended_ = extended_ || fields_[k] == "EXT";
      blank_separated_ = blank_separated_ || fields_[k] == "NAMD";
    }
  }

  // "N !NAME" (CHARMM writes "!NBOND: bonds"); the count, or -1 where the line is no such header.
  long long section_count(const char* name) {
    if (fields_.size() < 2) return -1;
    std::string title = fields_[1];
    if (!title.empty() && title.back() == ':') title.pop_back();
    if (title != std::string("!") + name) return -1;
    long long n = 0;
    if (!text::parse_int(fields_[0], n) || n < 0) fail("bad count '" + excerpt(fields_[0]) + "'");
    return n;
  }

  void skip_title() {
    if (!next_content()) fail("file ends before the !NTITLE section");
    const long long n = section_count("NTITLE");
    if (n < 0) fail("expected 'N !NTITLE', found '" + excerpt(line_) + "'");
    for (long long k = 0; k < n; ++k)
      if (!next_line())
        fail("file ends inside the title (" + std::to_string(k) + " of " + std::to_string(n) +
             " lines)");
  }

  // The text fields by CHARMM's columns, then blank-separated; false where the line does not fit
  // the columns (a blank not where one belongs, or no type/charge/mass after the name).
  bool by_columns(AtomFields& f) {
    const Columns c = extended_ ? kExtended : kStandard;
    const size_t name_end = c.number + 4 * (c.text + 1);
    if (line_.size() <= name_end) return false;
    for (size_t k = 0; k < 5; ++k)
      if (line_[c.number + k * (c.text + 1)] != ' ') return false;
    long long number = 0;
    if (!text::parse_int(trimmed(line_.substr(0, c.number)), number)) return false;
    auto column = [&](size_t k) {
      return trimmed(line_.substr(c.number + 1 + k * (c.text + 1), c.text));
    };
    f.segid = column(0), f.resid = column(1), f.resname = column(2), f.name = column(3);
    text::split_ws(line_.substr(name_end), fields_);
    if (fields_.size() < 3 || f.resid.empty() || f.name.empty()) return false;
    f.type = fields_[0], f.charge = fields_[1], f.mass = fields_[2];
    return true;
  }

  // NAMD's and VMD's form: number, segid, resid, resname, name, type, charge, mass, ...
  void by_blanks(AtomFields& f) {
    text::split_ws(line_, fields_);
    if (fields_.size() < 8)
      fail("atom line has " + std::to_string(fields_.size()) +
           " fields, expected at least 8 (number, segid, resid, resname, name, type, charge, "
           "mass)");
    long long number = 0;
    if (!text::parse_int(fields_[0], number))
      fail("'" + excerpt(fields_[0]) + "' is not an atom number");
    f = {fields_[1], fields_[2], fields_[3], fields_[4], fields_[5], fields_[6], fields_[7]};
  }

  void read_atoms() {
    if (!next_content()) fail("file ends before the !NATOM section");
    const long long n = section_count("NATOM");
    if (n < 0) fail("expected 'N !NATOM', found '" + excerpt(line_) + "'");
    if (n > std::numeric_limits<int>::max() / 4) fail("atom count " + fields_[0] + " too large");
    if (text::reservable(in_, path_, static_cast<uint64_t>(n), kMinAtomLineBytes) <
        static_cast<size_t>(n))
      fail("!NATOM declares " + fields_[0] + " atoms, more than the rest of the file can hold");
    const size_t natoms = static_cast<size_t>(n);
    top_.atom_names.reserve(natoms);
    top_.residue_names.reserve(natoms);
    top_.segment_names.reserve(natoms);
    top_.types.reserve(natoms);
    top_.elements.reserve(natoms);
    top_.residue_numbers.reserve(natoms);
    top_.masses.reserve(natoms);
    top_.charges.reserve(natoms);
    AtomFields f;
    for (size_t i = 0; i < natoms; ++i) {
      if (!next_line())
        fail("file ends after " + std::to_string(i) + " of " + std::to_string(n) + " atom lines");
      if (blank_separated_ || !by_columns(f)) by_blanks(f);
      add_atom(f);
    }
  }

  void add_atom(const AtomFields& f) {
    // A resid may carry an insertion code after its number ("1H"): kept beside the number.
    size_t used = 0;
    long long resid = 0;
    while (used < f.resid.size() && (std::isdigit(static_cast<unsigned char>(f.resid[used])) ||
                                     (used == 0 && f.resid[0] == '-')))
      ++used;
    if (!text::parse_int(f.resid.substr(0, used), resid) ||
        resid < std::numeric_limits<int>::min() || resid > std::numeric_limits<int>::max())
      fail("'" + excerpt(f.resid) + "' is not a residue number");
    double charge = 0, mass = 0;
    if (!text::parse_double(f.charge, charge)) fail("'" + excerpt(f.charge) + "' is not a charge");
    if (!text::parse_double(f.mass, mass) || mass < 0)
      fail("'" + excerpt(f.mass) + "' is not a mass (u, >= 0)");
    top_.segment_names.push_back(f.segid);
    top_.residue_numbers.push_back(static_cast<int>(resid));
    top_.insertion_codes.push_back(std::string_view(f.resid).substr(used));
    top_.residue_names.push_back(f.resname);
    top_.atom_names.push_back(f.name);
    top_.types.push_back(f.type);
    top_.charges.push_back(static_cast<float>(charge));
    top_.masses.push_back(static_cast<float>(mass));
    std::string element = analysis::element_of_mass(mass);
    if (element.empty() && mass >= 1) element = analysis::guess_element(f.name, f.resname);
    top_.elements.push_back(element);
  }

  void read_bonds() {
    // A file may end after its atoms (MDAnalysis's adk_notop.psf): no bonds are known then.
    if (!next_content()) return;
    const long long n = section_count("NBOND");
    if (n < 0) fail("expected 'N !NBOND' after the atoms, found '" + excerpt(line_) + "'");
    if (text::reservable(in_, path_, static_cast<uint64_t>(n), kMinBondBytes) <
        static_cast<size_t>(n))
      fail("!NBOND declares " + fields_[0] + " bonds, more than the rest of the file can hold");
    analysis::BondList& bonds = bonds_;
    bonds.reserve(static_cast<size_t>(n));
    const long long natoms = top_.natoms();
    int half = -1;  // an atom whose partner is on the next line
    while (static_cast<long long>(bonds.size()) < n) {
      if (!next_line())
        fail("file ends after " + std::to_string(bonds.size()) + " of " + std::to_string(n) +
             " bonds");
      text::split_ws(line_, fields_);
      for (const std::string& t : fields_) {
        long long a = 0;
        if (!text::parse_int(t, a)) fail("'" + excerpt(t) + "' is not an atom number");
        if (a < 1 || a > natoms)
          fail("bond atom " + t + " is outside the atoms 1-" + std::to_string(natoms));
        if (static_cast<long long>(bonds.size()) == n)
          fail("more bond atoms than the " + std::to_string(n) + " bonds !NBOND declares");
        if (half < 0) {
          half = static_cast<int>(a - 1);
        } else {
          bonds.emplace_back(half, static_cast<int>(a - 1));
          half = -1;
        }
      }
    }
    if (half >= 0) fail("odd number of bond atoms");
    top_.molecule_index = analysis::molecules_from_bonds(top_.natoms(), bonds);
    analysis::exclusions_from_bonds(top_, bonds, kCharmmNrexcl);
  }

  std::string path_;
  std::ifstream in_;
  std::string line_;
  std::vector<std::string> fields_;
  int64_t line_no_ = 0;
  bool extended_ = false, blank_separated_ = false;
  analysis::Topology top_;
  analysis::BondList bonds_;
};

}  // namespace

analysis::Topology read_psf(const std::string& path, analysis::BondList* bonds) {
  require_input_file(path);
  analysis::Topology top = PsfParser(path).parse(bonds);
  top.title = path;
  return top;
}

}  // namespace pairhist::io
