#include "io/topology/tpr_reader.hpp"

#include "analysis/atom_masses.hpp"
#include "io/common/child_process.hpp"
#include "io/common/input_path.hpp"
#include "pairhist/errors.hpp"

#ifdef PAIRHIST_HAVE_GROMACS

#include <fcntl.h>
#include <gromacs/fileio/tpxio.h>
#include <gromacs/topology/atoms.h>
#include <gromacs/topology/block.h>
#include <gromacs/topology/index.h>
#include <gromacs/topology/topology.h>
#include <gromacs/utility/programcontext.h>
#include <gromacs/utility/smalloc.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <stdexcept>
#include <vector>

// libgromacs 2022 exports these but installs neither gromacs/utility/fatalerror.h nor
// gromacs/topology/mtop_util.h; the declarations are theirs, word for word.
using GmxErrorHandler = void (*)(const char* title, const std::string& msg, const char* file,
                                 int line);
void gmx_set_error_handler(GmxErrorHandler func);
t_atoms gmx_mtop_global_atoms(const gmx_mtop_t& mtop);

namespace pairhist::io {

namespace {

// gmx_fatal calls the error handler and then exits the process; a handler that throws returns
// control to us instead (the exception unwinds through libgromacs, which is C++).
struct GromacsFatalError {
  std::string message;
};

void throw_gromacs_fatal(const char* /*title*/, const std::string& msg, const char* /*file*/,
                         int /*line*/) {
  throw GromacsFatalError{msg};
}

/// GROMACS's messages span lines and boxes of dashes: one line of single spaces, not too long.
std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.size() > 300 ? out.substr(0, 297) + "..." : out;
}

/// Where GROMACS looks for its data files (residuetypes.dat, which analyse() needs): the
/// installation prefix found at configure time (PAIRHIST_GROMACS_PREFIX). Without a program
/// context of our own, libgromacs knows no prefix and finds nothing (and exits: it fails inside
/// code that turns exceptions into a fatal error).
class LibraryContext : public gmx::IProgramContext {
 public:
  const char* programName() const override { return "pairhist"; }
  const char* displayName() const override { return "pairhist"; }
  const char* fullBinaryPath() const override { return ""; }
  gmx::InstallationPrefixInfo installationPrefix() const override {
    return {PAIRHIST_GROMACS_PREFIX, false};
  }
  const char* commandLine() const override { return ""; }
};

const std::string kResidueTypes =
    std::string(PAIRHIST_GROMACS_PREFIX) + "/share/gromacs/top/residuetypes.dat";

/// Runs `call` with libgromacs's fatal errors and exceptions turned into InputError naming `path`.
template <class Call>
auto guarded(const std::string& path, Call&& call) -> decltype(call()) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    static const LibraryContext context;
    gmx::setProgramContext(&context);
    gmx_set_error_handler(throw_gromacs_fatal);
  });
  try {
    return call();
  } catch (const InputError&) {
    throw;
  } catch (const GromacsFatalError& e) {
    throw InputError(path + ": not a readable .tpr file: " + one_line(e.message));
  } catch (const std::length_error&) {
    throw InputError(path + ": not a readable .tpr file (its sizes are damaged)");
  } catch (const std::bad_alloc&) {
    throw InputError(path + ": not a readable .tpr file (its sizes are damaged)");
  } catch (const std::exception& e) {  // gmx::GromacsException and the standard ones
    throw InputError(path + ": not a readable .tpr file: " + one_line(e.what()));
  }
}

/// Checks what can be checked before libgromacs allocates by the header's word: the file exists,
/// has a topology, and is large enough for its atoms' coordinates and its declared body.
TpxFileHeader checked_header(const std::string& path) {
  require_input_file(path);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path + ": cannot read the file (" + ec.message() + ")");
  // libgromacs's own words for an empty file are "wrong string length 0 for string buf".
  if (size == 0) throw InputError(path + ": an empty file, not a .tpr file");
  const TpxFileHeader header = guarded(path, [&] { return readTpxHeader(path.c_str(), true); });
  if (!header.bTop) throw InputError(path + ": the .tpr file holds no topology");
  const auto coordinate_bytes = static_cast<uintmax_t>(header.natoms) * 3 * sizeof(float);
  if (header.natoms <= 0 || (header.bX && coordinate_bytes > size))
    throw InputError(path + ": damaged .tpr file (it declares " + std::to_string(header.natoms) +
                     " atoms in " + std::to_string(size) + " bytes)");
  // Since GROMACS 2020 the header ends with the body's size, and the body fills the rest of the
  // file; libgromacs reads a short body without noticing (zeros), so the size is checked here:
  // the 8 bytes just before the body must be that size (XDR, big-endian). XDR pads the body
  // to a multiple of 4 bytes, which the size leaves out (grompp wrote a 2,134,599-byte body in
  // 2,134,600 bytes for 29,360 waters and 100 ions).
  if (header.sizeOfTprBody != 0) {
    const auto body = static_cast<uintmax_t>(header.sizeOfTprBody);
    const uintmax_t padded = (body + 3) / 4 * 4;
    unsigned char stated[8] = {};
    bool matches = header.sizeOfTprBody > 0 && padded + 8 <= size;
    if (matches) {
      std::ifstream in(path, std::ios::binary);
      in.seekg(static_cast<std::streamoff>(size - padded - 8));
      matches = static_cast<bool>(in.read(reinterpret_cast<char*>(stated), 8));
      for (int k = 0; k < 8 && matches; ++k)
        matches = stated[k] == static_cast<unsigned char>(body >> (8 * (7 - k)));
    }
    if (!matches)
      throw InputError(path + ": truncated or damaged .tpr file (its header announces a body of " +
                       std::to_string(header.sizeOfTprBody) + " bytes, which the file of " +
                       std::to_string(size) + " bytes does not end with)");
  }
  return header;
}

/// What read_tpx gives, with the system's atoms as one t_atoms (as gmx's tools see them).
struct TprContents {
  gmx_mtop_t mtop;
  std::vector<float> xyz;
  matrix box{};
  t_atoms atoms{};
  bool have_atoms = false;

  ~TprContents() {
    if (have_atoms) done_atom(&atoms);
  }
};

void read_contents(const std::string& path, TprContents& tpr) {
  const TpxFileHeader header = checked_header(path);
  tpr.xyz.assign(static_cast<size_t>(header.natoms) * 3, 0.0f);
  guarded(path, [&] {
    int natoms = 0;
    read_tpx(path.c_str(), nullptr, tpr.box, &natoms,
             header.bX ? reinterpret_cast<rvec*>(tpr.xyz.data()) : nullptr, nullptr, &tpr.mtop);
    if (natoms != header.natoms)
      throw InputError(path + ": damaged .tpr file (" + std::to_string(natoms) +
                       " atoms in the topology, " + std::to_string(header.natoms) +
                       " in the header)");
    tpr.atoms = gmx_mtop_global_atoms(tpr.mtop);
    tpr.have_atoms = true;
  });
}

/// Molecule of every atom and the exclusions, from the molecule blocks: each block repeats one
/// molecule type, whose exclusion lists use indices local to the molecule.
void add_molecules(const gmx_mtop_t& mtop, analysis::Topology& top) {
  const auto natoms = static_cast<size_t>(mtop.natoms);
  top.molecule_index.reserve(natoms);
  top.exclusion_offsets.reserve(natoms + 1);
  size_t nexclusions = 0;
  for (const gmx_molblock_t& block : mtop.molblock)
    nexclusions += static_cast<size_t>(block.nmol) *
                   mtop.moltype[static_cast<size_t>(block.type)].excls.numElements();
  top.exclusion_atoms.reserve(nexclusions);
  top.exclusion_offsets.push_back(0);
  int molecule = 0, first_atom = 0;
  for (const gmx_molblock_t& block : mtop.molblock) {
    const gmx_moltype_t& type = mtop.moltype[static_cast<size_t>(block.type)];
    for (int m = 0; m < block.nmol; ++m, ++molecule, first_atom += type.atoms.nr) {
      for (int a = 0; a < type.atoms.nr; ++a) {
        top.molecule_index.push_back(molecule);
        if (a < type.excls.ssize())
          for (int excluded : type.excls[a]) top.exclusion_atoms.push_back(first_atom + excluded);
        top.exclusion_offsets.push_back(static_cast<int64_t>(top.exclusion_atoms.size()));
      }
    }
  }
}

analysis::Topology read_tpr_here(const std::string& path) {
  TprContents tpr;
  read_contents(path, tpr);
  const t_atoms& atoms = tpr.atoms;
  const auto natoms = static_cast<size_t>(atoms.nr);
  analysis::Topology top;
  top.title = tpr.mtop.name && *tpr.mtop.name ? *tpr.mtop.name : "";
  top.atom_names.reserve(natoms);
  top.residue_names.reserve(natoms);
  top.residue_numbers.reserve(natoms);
  top.elements.reserve(natoms);
  top.masses.reserve(natoms);
  top.charges.reserve(natoms);
  top.atomic_numbers.reserve(natoms);
  if (atoms.haveType && atoms.atomtype) top.types.reserve(natoms);
  for (size_t i = 0; i < natoms; ++i) {
    const t_atom& atom = atoms.atom[i];
    const t_resinfo& residue = atoms.resinfo[atom.resind];
    top.atom_names.emplace_back(*atoms.atomname[i]);
    top.residue_names.emplace_back(*residue.name);
    top.residue_numbers.push_back(residue.nr);
    if (atoms.haveType && atoms.atomtype) top.types.emplace_back(*atoms.atomtype[i]);
    // GROMACS writes -1 or 0 where the force field gives no atomic number.
    top.elements.emplace_back(analysis::element_symbol(atom.atomnumber));
    top.atomic_numbers.push_back(analysis::atomic_number(top.elements.back()));
    top.masses.push_back(static_cast<float>(atom.m));
    top.charges.push_back(static_cast<float>(atom.q));
  }
  top.xyz = std::move(tpr.xyz);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) top.box[static_cast<size_t>(3 * r + c)] = tpr.box[r][c];
  add_molecules(tpr.mtop, top);
  return top;
}

analysis::IndexGroups read_default_groups_here(const std::string& path) {
  TprContents tpr;
  read_contents(path, tpr);
  // analyse() cannot report a missing data file other than by ending the process: check first.
  if (FILE* f = std::fopen(kResidueTypes.c_str(), "r"))
    std::fclose(f);
  else
    throw InputError(path + ": cannot make the default index groups: GROMACS's " + kResidueTypes +
                     " is missing (give --index FILE.ndx)");
  analysis::IndexGroups groups;
  groups.path = path + " (default groups)";
  guarded(path, [&] {
    t_blocka* blocks = new_blocka();
    char** names = nullptr;
    analyse(&tpr.atoms, blocks, &names, FALSE, FALSE);
    for (int g = 0; g < blocks->nr; ++g) {
      groups.names.emplace_back(names[g]);
      groups.atoms.emplace_back(blocks->a + blocks->index[g], blocks->a + blocks->index[g + 1]);
      sfree(names[g]);
    }
    sfree(names);
    done_blocka(blocks);
    sfree(blocks);
  });
  return groups;
}

void write_topology(PipeWriter& out, const analysis::Topology& top) {
  for (const auto* v : {&top.atom_names, &top.residue_names, &top.elements, &top.types}) {
    out.strings(v->distinct());
    out.vector(v->ids());
  }
  out.vector(top.residue_numbers);
  out.vector(top.xyz);
  out.value(top.box);
  out.string(top.title);
  out.vector(top.molecule_index);
  out.vector(top.masses);
  out.vector(top.charges);
  out.vector(top.atomic_numbers);
  out.vector(top.exclusion_offsets);
  out.vector(top.exclusion_atoms);
}

analysis::Topology read_topology_from(PipeReader& in) {
  analysis::Topology top;
  for (auto* v : {&top.atom_names, &top.residue_names, &top.elements, &top.types}) {
    std::vector<std::string> distinct = in.strings();
    *v = analysis::NameColumn(std::move(distinct), in.vector<analysis::NameColumn::Id>());
  }
  top.residue_numbers = in.vector<int>();
  top.xyz = in.vector<float>();
  top.box = in.value<std::array<float, 9>>();
  top.title = in.string();
  top.molecule_index = in.vector<int>();
  top.masses = in.vector<float>();
  top.charges = in.vector<float>();
  top.atomic_numbers = in.vector<int>();
  top.exclusion_offsets = in.vector<int64_t>();
  top.exclusion_atoms = in.vector<int>();
  return top;
}

}  // namespace

bool tpr_supported() {
  return true;
}

// libgromacs runs in a child process: on a damaged file it may end the process (gmx_fatal,
// assertions), and after a fatal error thrown out of its file layer it keeps that file's lock,
// so that the next file it opens hangs. The child's death costs us nothing.
const ChildJobRegistration kTopologyJob("tpr-topology",
                                        [](const std::vector<std::string>& args, PipeWriter& out) {
                                          write_topology(out, read_tpr_here(args.at(0)));
                                        });
const ChildJobRegistration kGroupsJob("tpr-groups", [](const std::vector<std::string>& args,
                                                       PipeWriter& out) {
  const analysis::IndexGroups made = read_default_groups_here(args.at(0));
  out.strings(made.names);
  for (const auto& atoms : made.atoms) out.vector(atoms);
});

analysis::Topology read_tpr(const std::string& path) {
  analysis::Topology top;
  run_child_job(path, "tpr-topology", {path},
                [&](PipeReader& in) { top = read_topology_from(in); });
  return top;
}

analysis::IndexGroups read_tpr_default_groups(const std::string& path) {
  analysis::IndexGroups groups;
  run_child_job(path, "tpr-groups", {path}, [&](PipeReader& in) {
    groups.path = path + " (default groups)";
    groups.names = in.strings();
    for (size_t g = 0; g < groups.names.size(); ++g) groups.atoms.push_back(in.vector<int>());
  });
  return groups;
}

}  // namespace pairhist::io

#else  // no libgromacs

namespace pairhist::io {

namespace {

[[noreturn]] void no_gromacs(const std::string& path) {
  throw InputError(path +
                   ": cannot read .tpr files: pairhist was built without libgromacs (install "
                   "libgromacs-dev and rebuild)");
}

}  // namespace

bool tpr_supported() {
  return false;
}
analysis::Topology read_tpr(const std::string& path) {
  no_gromacs(path);
}
analysis::IndexGroups read_tpr_default_groups(const std::string& path) {
  no_gromacs(path);
}

}  // namespace pairhist::io

#endif
