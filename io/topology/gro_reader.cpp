#include "io/topology/gro_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "io/topology/gro_lines.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/host_cores.hpp"

namespace pairhist::io {

namespace {

using gro::parse_int;
using gro::trim;

/// The bytes of a file: mapped where it is a regular file (a 0.5 GB topology is not copied),
/// read whole otherwise (a pipe).
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path + ": cannot open GRO file: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      // Populated at once: one fault per 4 KiB page while parsing cost as much as the parsing.
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                       MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        map_ = p;
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    if (!map_) {
      char buf[1 << 16];
      ssize_t n = 0;
      while ((n = ::read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          const int err = errno;
          ::close(fd);
          throw InputError(path + ": read error: " + std::strerror(err));
        }
        copy_.append(buf, static_cast<size_t>(n));
      }
    }
    ::close(fd);
  }
  ~FileBytes() {
    if (map_) ::munmap(map_, size_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  std::string_view view() const {
    return map_ ? std::string_view(static_cast<const char*>(map_), size_) : std::string_view(copy_);
  }

 private:
  void* map_ = nullptr;
  size_t size_ = 0;
  std::string copy_;
};

/// The line starting at `pos` of `text` (without its newline or a CR before it); `next` is where
/// the next one starts, npos when `pos` is at the end.
std::string_view line_at(std::string_view text, size_t pos, size_t& next) {
  if (pos >= text.size()) {
    next = std::string_view::npos;
    return {};
  }
  const size_t nl = text.find('\n', pos);
  const size_t end = nl == std::string_view::npos ? text.size() : nl;
  next = nl == std::string_view::npos ? text.size() : nl + 1;
  std::string_view line = text.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

/// The distinct names one thread met, numbered in order of appearance. Files hold few distinct
/// names and repeat them in runs (a residue's atoms, a solvent), so the last hit is tried first
/// and a short table searched linearly; a file of many names (a protein's) uses a map.
struct ChunkNames {
  std::deque<std::string> values;  // a deque: growing moves no string, so views of them stay valid
  std::unordered_map<std::string_view, uint32_t> index;  // keys view `values`' strings
  uint32_t last = 0;

  uint32_t id(std::string_view name) {
    if (!values.empty() && values[last] == name) return last;
    constexpr size_t kLinear = 16;
    if (values.size() <= kLinear) {
      for (size_t k = 0; k < values.size(); ++k)
        if (values[k] == name) return last = static_cast<uint32_t>(k);
    } else if (const auto it = index.find(name); it != index.end()) {
      return last = it->second;
    }
    last = static_cast<uint32_t>(values.size());
    values.emplace_back(name);
    if (values.size() > kLinear) {
      if (index.empty())
        for (size_t k = 0; k + 1 < values.size(); ++k)
          index.emplace(values[k], static_cast<uint32_t>(k));
      index.emplace(values.back(), last);
    }
    return last;
  }
};

// Below this many bytes of atom lines per thread, threads cost more than they save.
constexpr size_t kBytesPerThread = size_t{4} << 20;

/// Parses the atom lines in chunks, one thread each (an 11M-atom topology is 0.5 GB of text):
/// the chunks' lines are counted first, so that each thread knows the index of its first atom.
class GroParser {
 public:
  GroParser(const std::string& path, bool coordinates)
      : path_(path), coordinates_(coordinates), bytes_(path), text_(bytes_.view()) {}

  Topology parse() {
    Topology top;
    size_t pos = 0, next = 0;
    std::string_view line = line_at(text_, pos, next);
    if (next == std::string_view::npos) fail_at(1, "empty file");
    top.title = std::string(trim(line));

    pos = next;
    line = line_at(text_, pos, next);
    if (next == std::string_view::npos) fail_at(2, "missing atom count line");
    long long count = 0;
    if (!parse_int(line, count) || count < 0 || count > 1'000'000'000LL) {
      fail_at(2, "bad atom count '" + excerpt(trim(line)) + "'");
    }
    const auto natoms = static_cast<size_t>(count);
    const size_t box_pos = parse_atoms(top, natoms, next);
    parse_box(top, box_pos, 3 + natoms);
    return top;
  }

 private:
  struct Chunk {
    size_t begin = 0, end = 0;  // byte range, starting at a line start
    size_t first_line = 0;      // index among the lines after the atom count
    size_t lines = 0;
    size_t box_pos = std::string_view::npos;      // where the box line starts, if here
    size_t error_index = std::string_view::npos;  // first bad atom line in the chunk
    std::string error;
    // The chunk's distinct atom and residue names; its atoms' ids index these until merged.
    ChunkNames atom_names, residue_names;
  };

  /// Parses atom lines 0..natoms-1 from `pos` on; returns where the line after them (the box)
  /// starts. Errors are those of a serial reader: the first bad line, else a file that ends
  /// too early.
  size_t parse_atoms(Topology& top, size_t natoms, size_t pos) {
    if (natoms == 0) return pos;
    std::vector<Chunk> chunks = split(pos);
    run_each(chunks, [&](Chunk& c) { c.lines = count_lines(c); });
    size_t available = 0;
    for (Chunk& c : chunks) {
      c.first_line = available;
      available += c.lines;
    }
    if (available == 0) fail_short(0, natoms);
    size_t next = 0;
    find_field_width(line_at(text_, pos, next), 3);
    // The count is untrusted until its lines are there: never sized beyond the lines present.
    const size_t n = std::min(natoms, available);
    atom_ids_.resize(n);
    residue_ids_.resize(n);
    top.residue_numbers.resize(n);
    if (coordinates_) top.xyz.resize(3 * n);
    run_each(chunks, [&](Chunk& c) { parse_chunk(c, top, natoms); });
    for (const Chunk& c : chunks) {
      if (c.error_index == std::string_view::npos) continue;
      fail_at(3 + c.error_index, c.error + count_hint(c.error_index));
    }
    if (available < natoms) fail_short(available, natoms);
    top.atom_names = merge_names(chunks, &Chunk::atom_names, atom_ids_, natoms);
    top.residue_names = merge_names(chunks, &Chunk::residue_names, residue_ids_, natoms);
    for (const Chunk& c : chunks)
      if (c.box_pos != std::string_view::npos) return c.box_pos;
    return text_.size();
  }

  /// One table of distinct names for the whole file: each chunk's ids are renumbered into it, in
  /// parallel (the tables are a handful of names; the ids are one per atom).
  static analysis::NameColumn merge_names(std::vector<Chunk>& chunks, ChunkNames Chunk::*names,
                                          std::vector<uint32_t>& ids, size_t natoms) {
    std::vector<std::string> distinct;
    std::unordered_map<std::string_view, uint32_t> number;  // keys view the chunks' names
    std::vector<std::vector<uint32_t>> renumber(chunks.size());
    for (size_t k = 0; k < chunks.size(); ++k) {
      for (const std::string& name : (chunks[k].*names).values) {
        const auto [it, added] = number.emplace(name, static_cast<uint32_t>(distinct.size()));
        if (added) distinct.push_back(name);
        renumber[k].push_back(it->second);
      }
    }
    run_each(chunks, [&](Chunk& c) {
      const std::vector<uint32_t>& to = renumber[static_cast<size_t>(&c - chunks.data())];
      const size_t end = std::min(c.first_line + c.lines, natoms);
      for (size_t i = c.first_line; i < end; ++i) ids[i] = to[ids[i]];
    });
    return analysis::NameColumn(std::move(distinct), std::move(ids));
  }

  std::vector<Chunk> split(size_t pos) const {
    const size_t bytes = text_.size() - pos;
    const size_t threads =
        std::clamp<size_t>(bytes / kBytesPerThread, 1, static_cast<size_t>(usable_cores()));
    std::vector<Chunk> chunks;
    size_t begin = pos;
    for (size_t t = 0; t < threads && begin < text_.size(); ++t) {
      size_t end = t + 1 == threads ? text_.size() : pos + bytes / threads * (t + 1);
      if (end < begin) end = begin;
      if (end < text_.size()) {
        const size_t nl = text_.find('\n', end > 0 ? end - 1 : 0);
        end = nl == std::string_view::npos ? text_.size() : nl + 1;
      }
      Chunk c;
      c.begin = begin;
      c.end = end;
      chunks.push_back(std::move(c));
      begin = end;
    }
    return chunks;
  }

  template <class F>
  static void run_each(std::vector<Chunk>& chunks, F&& f) {
    std::vector<std::thread> threads;
    for (size_t i = 1; i < chunks.size(); ++i) threads.emplace_back([&, i] { f(chunks[i]); });
    if (!chunks.empty()) f(chunks[0]);
    for (std::thread& t : threads) t.join();
  }

  // std::count vectorises; a memchr per 45-byte line costs more than the parsing.
  size_t count_lines(const Chunk& c) const {
    const char* begin = text_.data() + c.begin;
    const char* end = text_.data() + c.end;
    const auto newlines = static_cast<size_t>(std::count(begin, end, '\n'));
    return newlines + (end > begin && end[-1] != '\n' ? 1 : 0);
  }

  void parse_chunk(Chunk& c, Topology& top, size_t natoms) {
    size_t pos = c.begin, next = 0;
    for (size_t k = 0; k < c.lines; ++k, pos = next) {
      const size_t i = c.first_line + k;
      if (i == natoms) c.box_pos = pos;
      if (i >= natoms) return;
      std::string problem = parse_atom(line_at(text_, pos, next), i, top, c);
      if (!problem.empty()) {
        c.error_index = i;
        c.error = std::move(problem);
        return;
      }
    }
  }

  [[noreturn]] void fail_at(size_t line, const std::string& problem) const {
    throw InputError(path_ + ": line " + std::to_string(line) + ": " + problem);
  }

  [[noreturn]] void fail_short(size_t available, size_t natoms) const {
    fail_at(3 + available, "file ends after " + std::to_string(available) + " of " +
                               std::to_string(natoms) +
                               " atom lines (atom count in line 2 too large?)");
  }

  // On a parse error in atom line `index`, says whether the line is really the box line, i.e.
  // only blank lines follow it, which points at an atom count that is too large.
  std::string count_hint(size_t index) const {
    size_t pos = 0, next = 0;
    for (size_t skip = 0; skip < 3 + index; ++skip) {
      line_at(text_, pos, next);
      pos = next;
    }
    while (pos < text_.size()) {
      if (!trim(line_at(text_, pos, next)).empty()) return {};
      pos = next;
    }
    return " (this looks like the box line: atom count in line 2 too large?)";
  }

  void find_field_width(std::string_view line, size_t line_no) {
    const std::string problem = gro::field_width(line, width_);
    if (!problem.empty()) fail_at(line_no, problem);
  }

  /// Fills atom `i` from its line; the problem when the line is malformed, else empty.
  std::string parse_atom(std::string_view line, size_t i, Topology& top, Chunk& c) {
    if (std::string problem = gro::check_atom_line_length(line, width_); !problem.empty())
      return problem;
    long long resnr = 0;
    if (!parse_int(line.substr(0, 5), resnr)) {
      return "bad residue number '" + excerpt(line.substr(0, 5)) + "'";
    }
    if (coordinates_) {
      if (std::string problem = gro::parse_coordinates(line, width_, &top.xyz[3 * i]);
          !problem.empty())
        return problem;
    }
    top.residue_numbers[i] = static_cast<int>(resnr);
    residue_ids_[i] = c.residue_names.id(trim(line.substr(5, 5)));
    atom_ids_[i] = c.atom_names.id(trim(line.substr(10, 5)));
    return {};
  }

  void parse_box(Topology& top, size_t pos, size_t line_no) const {
    size_t next = 0;
    const std::string_view line = line_at(text_, pos, next);
    if (next == std::string_view::npos) fail_at(line_no, "missing box line");
    const std::string problem = gro::parse_box(line, top.box);
    if (!problem.empty()) fail_at(line_no, problem);
  }

  std::string path_;
  bool coordinates_ = true;
  std::vector<uint32_t> atom_ids_, residue_ids_;  // per atom, into its chunk's names until merged
  FileBytes bytes_;
  std::string_view text_;
  size_t width_ = 8;
};

}  // namespace

Topology read_gro(const std::string& path) {
  return GroParser(path, true).parse();
}

Topology read_gro(const std::string& path, TopologyContent content) {
  return GroParser(path, content == TopologyContent::everything).parse();
}

}  // namespace pairhist::io
