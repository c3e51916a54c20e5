#include "drivers/job/checkpoint.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "io/common/atomic_file.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/version.hpp"

namespace pairhist {
namespace {

constexpr char kMagic[8] = {'P', 'H', 'C', 'K', 'P', 'T', '\r', '\n'};
constexpr uint32_t kFormat = 2;
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8;
// Precedes a --sphere run's centre-distance counts, where a dynamic run has its frame count.
constexpr uint64_t kCentreCountsMarker = ~uint64_t{0};

std::string number(double v) {
  if (std::isnan(v)) return "none";
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

std::string absolute(const std::string& path) {
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  return ec ? path : p.string();
}

InputStamp stamp(const std::string& role, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path + ": cannot look at the " + role + " file: " + std::strerror(errno));
  return {role, absolute(path), static_cast<uint64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

class Encoder {
 public:
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(v >> (8 * i)));
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    u64(bits);
  }
  void str(const std::string& s) {
    u64(s.size());
    bytes += s;
  }
  std::string bytes;
};

/// Reads what Encoder wrote; every read is bounds-checked, so a damaged payload that passed the
/// checksum (a bug, not the disk) still ends in an error, never in a wild read.
class Decoder {
 public:
  Decoder(const std::string& bytes, size_t begin, size_t end, const std::string& path)
      : bytes_(bytes), at_(begin), end_(end), path_(path) {}
  uint32_t u32() {
    need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(static_cast<unsigned char>(bytes_[at_++])) << (8 * i);
    return v;
  }
  uint64_t u64() {
    need(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(bytes_[at_++])) << (8 * i);
    return v;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  double f64() {
    const uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  }
  std::string str() {
    const uint64_t n = count(1);
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  /// A count of items of `item_bytes` each that must fit in what is left.
  uint64_t count(uint64_t item_bytes) {
    const uint64_t n = u64();
    if (item_bytes > 0 && n > (end_ - at_) / item_bytes) bad("a length runs past the end");
    return n;
  }
  bool at_end() const { return at_ == end_; }
  bool fits(uint64_t n) const { return n <= end_ - at_; }
  [[noreturn]] void bad(const std::string& what) const {
    throw InputError(path_ + ": not a valid pairhist checkpoint (" + what + ")");
  }

 private:
  void need(size_t n) const {
    if (end_ - at_ < n) bad("it ends early");
  }
  const std::string& bytes_;
  size_t at_, end_;
  const std::string& path_;
};

uint32_t checksum(const std::string& bytes, size_t n) {
  return static_cast<uint32_t>(
      crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), n));
}

void encode_counts(Encoder& e, const std::vector<std::vector<uint64_t>>& counts) {
  for (const auto& pair : counts)
    for (uint64_t c : pair) e.u64(c);
}

std::vector<std::vector<uint64_t>> decode_counts(Decoder& d, uint32_t npairs, uint32_t nbins) {
  if (!d.fits(uint64_t(npairs) * nbins * 8)) d.bad("it ends early");
  std::vector<std::vector<uint64_t>> counts(npairs, std::vector<uint64_t>(nbins));
  for (auto& pair : counts)
    for (uint64_t& c : pair) c = d.u64();
  return counts;
}

}  // namespace

RunIdentity run_identity(const JobOptions& o) {
  RunIdentity id;
  id.version = kVersionText;
  auto set = [&](const std::string& name, const std::string& value) {
    id.settings.emplace_back(name, value);
  };
  std::string species;
  for (const auto& s : o.species)
    species += (species.empty() ? "" : " ") + s.name + "=" + s.selection;
  // Everything that changes which frames are counted, how, and how the result is written. Not
  // here: workers, scheduler, algorithm and the like, which change the time but not the counts.
  set("trajectory", absolute(o.trajectory));
  set("--top", o.topology.empty() ? "" : absolute(o.topology));
  set("--index", o.index_file.empty() ? "" : absolute(o.index_file));
  set("--species", species);
  // Recorded only when given, so that checkpoints of runs of every pair stay as they were.
  std::string pairs;
  for (const auto& pair : o.pairs) pairs += (pairs.empty() ? "" : ",") + pair;
  if (!pairs.empty()) set("--pairs", pairs);
  set("--rmax", number(o.r_max));
  set("--nbins", std::to_string(o.nbins));
  // Recorded only for a partial last bin, so that checkpoints of whole bins stay as they were.
  if (o.r_cut > 0) set("r_cut", number(o.r_cut));
  if (o.r_min > 0) set("--rmin", number(o.r_min));  // likewise only for bins from r_min
  set("--units", o.units);
  set("--precision", o.precision == Precision::single ? "single" : "double");
  set("--first", std::to_string(o.first));
  set("--last", std::to_string(o.last));
  set("--step", std::to_string(o.step));
  set("--begin", number(o.begin_time));
  set("--end", number(o.end_time));
  set("--interval", std::to_string(o.interval));
  set("--volume", number(o.volume));
  set("--exclude", o.exclude);
  set("--norm", o.norm);
  if (!o.sphere.empty()) set("--sphere", o.sphere);
  if (!o.sphere_centre.empty()) set("--sphere-centre", o.sphere_centre);
  id.inputs.push_back(stamp("trajectory", o.trajectory));
  if (!o.topology.empty() && o.topology != o.trajectory)
    id.inputs.push_back(stamp("topology", o.topology));
  if (!o.index_file.empty()) id.inputs.push_back(stamp("index", o.index_file));
  return id;
}

std::string identity_difference(const RunIdentity& saved, const RunIdentity& now) {
  if (saved.version != now.version)
    return "the checkpoint was written by pairhist " + saved.version + ", this is " + now.version;
  for (const auto& [name, value] : now.settings) {
    std::string was = "(not recorded)";
    for (const auto& [n, v] : saved.settings)
      if (n == name) was = v;
    if (was != value)
      return name + " differs: the checkpoint's run used '" + was + "', this one '" + value + "'";
  }
  for (const auto& [name, value] : saved.settings) {  // a setting only the checkpoint's run had
    bool here = false;
    for (const auto& [n, v] : now.settings) here = here || n == name;
    if (!here) return name + " differs: the checkpoint's run used '" + value + "', this one none";
  }
  for (const InputStamp& in : now.inputs) {
    const InputStamp* before = nullptr;
    for (const InputStamp& s : saved.inputs)
      if (s.role == in.role) before = &s;
    if (!before) return "the checkpoint's run had no " + in.role + " file";
    if (before->size != in.size || before->mtime_ns != in.mtime_ns)
      return in.path + " changed since the checkpoint was written (size " +
             std::to_string(before->size) + " -> " + std::to_string(in.size) + " bytes" +
             (before->mtime_ns != in.mtime_ns ? ", modification time differs" : "") + ")";
  }
  return "";
}

std::string encode_checkpoint(const Checkpoint& c) {
  const JobState& s = c.state;
  const auto npairs = static_cast<uint32_t>(s.open_counts.size());
  const auto nbins = static_cast<uint32_t>(npairs ? s.open_counts[0].size() : 0);
  Encoder e;
  e.str(c.identity.version);
  e.u32(c.finished ? 1 : 0);
  e.u32(static_cast<uint32_t>(c.identity.settings.size()));
  for (const auto& [name, value] : c.identity.settings) {
    e.str(name);
    e.str(value);
  }
  e.u32(static_cast<uint32_t>(c.identity.inputs.size()));
  for (const InputStamp& in : c.identity.inputs) {
    e.str(in.role);
    e.str(in.path);
    e.u64(in.size);
    e.i64(in.mtime_ns);
  }
  e.u32(static_cast<uint32_t>(s.box_kind));
  e.i64(s.periodic_images);
  e.u32(npairs);
  e.u32(nbins);
  e.u64(s.frames());
  for (int64_t f : s.frame_indices) e.i64(f);
  for (double t : s.frame_times) e.f64(t);
  e.u64(s.volumes.size());
  for (double v : s.volumes) e.f64(v);
  e.u64(s.intervals.size());
  for (const IntervalBlock& b : s.intervals) {
    e.u64(b.frame_begin);
    e.u64(b.frame_end);
    encode_counts(e, b.counts);
  }
  e.u64(s.open_begin);
  encode_counts(e, s.open_counts);
  // The atoms per frame and species of a --sphere run or a dynamic species, and a dynamic
  // species' pairs per frame and pair, after everything else: a checkpoint of any other run is
  // byte for byte what it was before they existed.
  if (!s.species_counts.empty()) {
    e.u64(s.species_counts.size());
    e.u32(static_cast<uint32_t>(s.species_counts[0].size()));
    for (const auto& f : s.species_counts)
      for (int64_t n : f) e.i64(n);
    if (!s.frame_pairs.empty()) {
      e.u64(s.frame_pairs.size());
      for (const auto& f : s.frame_pairs)
        for (uint64_t n : f) e.u64(n);
    }
    // A --sphere run's centre-distance counts, after a marker that no number of frames is.
    if (!s.centre_open.empty()) {
      e.u64(kCentreCountsMarker);
      e.u32(static_cast<uint32_t>(s.centre_open.size()));
      e.u32(static_cast<uint32_t>(s.centre_open[0].size()));
      for (const auto* counts : {&s.centre_closed, &s.centre_open}) {
        e.u32(counts->empty() ? 0 : 1);
        for (const auto& c : *counts)
          for (uint64_t n : c) e.u64(n);
      }
      // Then every closed interval's own (their errors of the sphere excess): absent from
      // checkpoints written before blocks kept them, whose blocks then have none.
      e.u64(s.intervals.size());
      for (const IntervalBlock& b : s.intervals) {
        e.u32(b.centre_counts.empty() ? 0 : 1);
        for (const auto& c : b.centre_counts)
          for (uint64_t n : c) e.u64(n);
      }
    }
  }

  Encoder file;
  file.bytes.assign(kMagic, sizeof(kMagic));
  file.u32(kFormat);
  file.u32(0);
  file.u64(e.bytes.size());
  file.bytes += e.bytes;
  file.u32(checksum(file.bytes, file.bytes.size()));
  return file.bytes;
}

Checkpoint decode_checkpoint(const std::string& bytes, const std::string& path) {
  Decoder head(bytes, 0, bytes.size(), path);
  if (bytes.size() < kHeaderBytes + 4 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    head.bad("no checkpoint header");
  Decoder header(bytes, sizeof(kMagic), kHeaderBytes, path);
  const uint32_t format = header.u32();
  header.u32();
  const uint64_t payload = header.u64();
  if (format != kFormat)
    head.bad("format " + std::to_string(format) + ", this pairhist reads format " +
             std::to_string(kFormat));
  if (payload != bytes.size() - kHeaderBytes - 4)
    head.bad("it is " + std::to_string(bytes.size()) + " bytes, its header says " +
             std::to_string(payload + kHeaderBytes + 4) + ": truncated or damaged");
  const size_t body_end = bytes.size() - 4;
  Decoder tail(bytes, body_end, bytes.size(), path);
  if (tail.u32() != checksum(bytes, body_end)) head.bad("checksum mismatch: damaged");

  Decoder d(bytes, kHeaderBytes, body_end, path);
  Checkpoint c;
  c.identity.version = d.str();
  c.finished = d.u32() != 0;
  for (uint32_t n = d.u32(), i = 0; i < n; ++i) {
    std::string name = d.str();
    c.identity.settings.emplace_back(std::move(name), d.str());
  }
  for (uint32_t n = d.u32(), i = 0; i < n; ++i) {
    InputStamp in;
    in.role = d.str();
    in.path = d.str();
    in.size = d.u64();
    in.mtime_ns = d.i64();
    c.identity.inputs.push_back(std::move(in));
  }
  JobState& s = c.state;
  s.box_kind = static_cast<int32_t>(d.u32());
  s.periodic_images = static_cast<int>(d.i64());
  if (s.periodic_images < -1 || s.periodic_images > 1) d.bad("bad periodic-images flag");
  const uint32_t npairs = d.u32(), nbins = d.u32();
  const uint64_t frames = d.count(16);
  for (uint64_t f = 0; f < frames; ++f) s.frame_indices.push_back(d.i64());
  for (uint64_t f = 0; f < frames; ++f) s.frame_times.push_back(d.f64());
  const uint64_t volumes = d.count(8);
  if (volumes != 0 && volumes != frames) d.bad("volumes do not match the frames");
  for (uint64_t f = 0; f < volumes; ++f) s.volumes.push_back(d.f64());
  const uint64_t cells = uint64_t(npairs) * nbins;
  const uint64_t blocks = d.count(16 + 8 * cells);
  size_t next_frame = 0;
  for (uint64_t b = 0; b < blocks; ++b) {
    IntervalBlock block;
    block.frame_begin = d.u64();
    block.frame_end = d.u64();
    if (block.frame_begin != next_frame || block.frame_end <= block.frame_begin ||
        block.frame_end > frames)
      d.bad("interval blocks do not cover the frames in order");
    next_frame = block.frame_end;
    block.counts = decode_counts(d, npairs, nbins);
    s.intervals.push_back(std::move(block));
  }
  s.open_begin = d.u64();
  if (s.open_begin != next_frame) d.bad("the open block does not follow the closed ones");
  s.open_counts = decode_counts(d, npairs, nbins);
  if (!d.at_end()) {
    const uint64_t counted = d.u64();
    const uint32_t species = d.u32();
    if (counted != frames || species == 0) d.bad("species counts do not match the frames");
    if (frames > 0 && !d.fits(uint64_t{species} * 8 * frames)) d.bad("a length runs past the end");
    s.species_counts.assign(frames, std::vector<int64_t>(species));
    for (auto& f : s.species_counts)
      for (int64_t& n : f) n = d.i64();
    uint64_t next = d.at_end() ? 0 : d.u64();
    if (next != 0 && next != kCentreCountsMarker) {
      if (next != frames) d.bad("frame pairs do not match the frames");
      if (frames > 0 && !d.fits(uint64_t{npairs} * 8 * frames)) d.bad("a length runs past the end");
      s.frame_pairs.assign(frames, std::vector<uint64_t>(npairs));
      for (auto& f : s.frame_pairs)
        for (uint64_t& n : f) n = d.u64();
      next = 0;
    }
    if (next == kCentreCountsMarker) {
      const uint32_t centre_species = d.u32(), centre_bins = d.u32();
      if (centre_species != species || centre_bins == 0) d.bad("centre counts of other species");
      for (auto* counts : {&s.centre_closed, &s.centre_open}) {
        if (d.u32() == 0) continue;
        if (!d.fits(uint64_t{centre_species} * centre_bins * 8))
          d.bad("a length runs past the end");
        counts->assign(centre_species, std::vector<uint64_t>(centre_bins));
        for (auto& c : *counts)
          for (uint64_t& n : c) n = d.u64();
      }
      if (s.centre_open.empty()) d.bad("centre counts without the open block's");
      if (!d.at_end()) {
        if (d.u64() != s.intervals.size()) d.bad("centre counts of other interval blocks");
        for (IntervalBlock& b : s.intervals) {
          if (d.u32() == 0) continue;
          if (!d.fits(uint64_t{centre_species} * centre_bins * 8))
            d.bad("a length runs past the end");
          b.centre_counts.assign(centre_species, std::vector<uint64_t>(centre_bins));
          for (auto& c : b.centre_counts)
            for (uint64_t& n : c) n = d.u64();
        }
      }
    }
  }
  if (!d.at_end()) d.bad("bytes after the end");
  if (npairs == 0 || nbins == 0) d.bad("no histograms");
  return c;
}

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  io::write_file_durably(path, encode_checkpoint(checkpoint), "the checkpoint");
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the checkpoint: " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path + ": cannot read the checkpoint");
  return decode_checkpoint(bytes, path);
}

}  // namespace pairhist
