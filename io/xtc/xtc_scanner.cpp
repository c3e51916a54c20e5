#include "io/xtc/xtc_scanner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>

#include "io/common/xdr_stream.hpp"
#include "io/memory/frame_buffers.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io::xtc {

namespace {

using xdr::be_float;
using xdr::be_int32;
using xdr::load_be64;
constexpr int32_t kMagicLarge = 2023;  // GROMACS 2023+: 64-bit compressed byte count
// Compressed-coordinate header: precision, minint[3], maxint[3], smallidx, then the byte count.
constexpr size_t kPackedHeaderBytes = 8 * 4;

}  // namespace

std::string frame_error(const std::string& path, int64_t frame, const std::string& problem) {
  std::string msg = path + ": frame " + std::to_string(frame) + ": " + problem;
  msg += frame > 0 ? " (last complete frame is " + std::to_string(frame - 1) + ")"
                   : " (no complete frame)";
  return msg;
}

void Scanner::FileCloser::operator()(std::FILE* f) const {
  if (f != nullptr) std::fclose(f);
}

Scanner::Scanner(const std::string& path) : path_(path) {
  file_.reset(std::fopen(path.c_str(), "rb"));
  if (!file_) {
    throw InputError(path + ": cannot open XTC file: " + std::strerror(errno));
  }
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  file_size_ = std::numeric_limits<uint64_t>::max();  // unknown for pipes and devices
  if (!ec && std::filesystem::is_regular_file(status)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) file_size_ = size;
    regular_ = !ec;
  }
  fd_ = fileno(file_.get());

  // Peek at magic and natoms only; read() re-uses these bytes so nothing is read twice.
  try {
    pending_size_ = read_bytes(pending_.data(), 8);
  } catch (const Problem& p) {
    throw InputError(frame_error(path, 0, p.what));
  }
  if (pending_size_ == 0) throw InputError(path + ": frame 0: empty file, not an XTC trajectory");
  if (pending_size_ >= 4) {
    const int32_t magic = be_int32(pending_.data());
    if (magic != kMagicClassic && magic != kMagicLarge) {
      throw InputError(path + ": frame 0: not an XTC file (magic number " + std::to_string(magic) +
                       ", expected 1995 or 2023)");
    }
  }
  if (pending_size_ < 8) {
    throw TruncatedFrame(path +
                         ": frame 0: truncated file inside the frame header (no complete frame)");
  }
  natoms_ = be_int32(pending_.data() + 4);
  if (natoms_ < 0) {
    throw InputError(path + ": frame 0: negative atom count " + std::to_string(natoms_));
  }
}

size_t Scanner::read_bytes(void* dst, size_t n) {
  const size_t got = xdr::read_fully(file_.get(), dst, n);
  if (got < n && std::ferror(file_.get()))
    throw Problem{"read error: " + std::string(std::strerror(errno))};
  offset_ += got;
  return got;
}

uint64_t Scanner::bytes_left_in_file(uint64_t wanted) {
  if (file_size_ == std::numeric_limits<uint64_t>::max()) return file_size_;
  if (file_size_ < offset_ || file_size_ - offset_ < wanted) {
    // The trajectory may still be growing (a running simulation); look again before judging.
    std::error_code ec;
    const auto size = std::filesystem::file_size(path_, ec);
    if (!ec) file_size_ = size;
  }
  return file_size_ >= offset_ ? file_size_ - offset_ : 0;
}

bool Scanner::read_headers(RawFrame& raw, uint64_t& data_bytes) {
  raw.fetch_bytes = 0;  // nothing of an earlier frame left to fetch
  unsigned char head[kFrameHeaderBytes];
  std::memcpy(head, pending_.data(), pending_size_);
  const size_t have = pending_size_;
  pending_size_ = 0;
  const size_t got = have + read_bytes(head + have, kFrameHeaderBytes - have);
  if (got == 0) return false;
  if (got < kFrameHeaderBytes) throw Problem{"truncated file inside the frame header", true};
  read_frame(raw, head, data_bytes);
  return true;
}

Scanner::Status Scanner::read(RawFrame& raw, std::string& problem) {
  const Status status = locate(raw, problem);
  if (status != Status::frame) return status;
  problem = fetch(raw);  // fails only where the file shrank since locate(): not a cut
  cut_ = false;
  return problem.empty() ? Status::frame : Status::error;
}

Scanner::Status Scanner::locate(RawFrame& raw, std::string& problem) {
  cut_ = false;
  try {
    uint64_t data_bytes = 0;
    if (!read_headers(raw, data_bytes)) return Status::end;
    if (!raw.compressed) {
      read_plain(raw);
    } else if (regular_) {
      raw.fetch_offset = offset_;  // the headers were read from the start: offset_ is absolute
      pass_over(data_bytes);
      raw.fetch_bytes = data_bytes;
    } else {
      stream_packed(raw, data_bytes);
    }
    return Status::frame;
  } catch (const Problem& p) {
    problem = p.what;
    cut_ = p.cut;
    return Status::error;
  }
}

std::string Scanner::fetch(RawFrame& raw) const {
  if (raw.fetch_bytes == 0) return {};
  const size_t need = static_cast<size_t>(raw.fetch_bytes);
  size_for_overwrite(raw.packed, need + kPackedPadding);
  size_t got = 0;
  while (got < need) {
    const ssize_t r =
        pread(fd_, raw.packed.data() + got, need - got, static_cast<off_t>(raw.fetch_offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return "read error: " + std::string(std::strerror(errno));
    if (r == 0) return "truncated file inside the compressed coordinates";  // it shrank
    got += static_cast<size_t>(r);
  }
  std::memset(raw.packed.data() + need, 0, kPackedPadding);
  raw.fetch_bytes = 0;
  return {};
}

void Scanner::read_plain(RawFrame& raw) {
  // Tiny systems are stored as plain XDR floats.
  unsigned char bytes[kMaxUncompressedAtoms * 3 * 4];
  const size_t values = static_cast<size_t>(natoms_) * 3;
  if (read_bytes(bytes, values * 4) < values * 4) {
    throw Problem{"truncated file inside the coordinates", true};
  }
  for (size_t k = 0; k < values; ++k) {
    raw.plain[k] = be_float(bytes + 4 * k);
    if (!std::isfinite(raw.plain[k])) throw Problem{"non-finite coordinate"};
  }
}

void Scanner::stream_packed(RawFrame& raw, uint64_t data_bytes) {
  // Storage grows with the bytes that arrive, so a pipe (size unknown) cannot make a corrupt
  // size allocate more than it delivers either.
  const size_t need = static_cast<size_t>(data_bytes);
  constexpr size_t kFirstStep = size_t{1} << 24;
  size_t got = 0;
  while (got < need) {
    const size_t want = std::min(need - got, std::max(kFirstStep, got));
    if (raw.packed.size() < got + want + kPackedPadding)
      raw.packed.resize(got + want + kPackedPadding);
    const size_t arrived = read_bytes(raw.packed.data() + got, want);
    got += arrived;
    if (arrived < want) throw Problem{"truncated file inside the compressed coordinates", true};
  }
  if (raw.packed.size() < need + kPackedPadding) raw.packed.resize(need + kPackedPadding);
  std::memset(raw.packed.data() + need, 0, kPackedPadding);
}

Scanner::Status Scanner::skip(RawFrame& raw, std::string& problem) {
  cut_ = false;
  try {
    uint64_t data_bytes = 0;
    if (!read_headers(raw, data_bytes)) return Status::end;
    pass_over(data_bytes);
    return Status::frame;
  } catch (const Problem& p) {
    problem = p.what;
    cut_ = p.cut;
    return Status::error;
  }
}

void Scanner::pass_over(uint64_t bytes) {
  if (bytes_left_in_file(bytes) < bytes)
    throw Problem{"truncated file inside the coordinates", true};
  if (file_size_ != std::numeric_limits<uint64_t>::max() && bytes <= uint64_t(INT64_MAX) &&
      fseeko(file_.get(), static_cast<off_t>(bytes), SEEK_CUR) == 0) {
    offset_ += bytes;
    return;
  }
  unsigned char sink[1 << 16];  // a pipe: read what cannot be seeked over
  while (bytes > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(bytes, sizeof(sink)));
    if (read_bytes(sink, n) < n) throw Problem{"truncated file inside the coordinates", true};
    bytes -= n;
  }
}

void Scanner::read_frame(RawFrame& raw, const unsigned char* head, uint64_t& data_bytes) {
  const int32_t magic = be_int32(head);
  if (magic != kMagicClassic && magic != kMagicLarge) {
    throw Problem{"bad magic number " + std::to_string(magic) + " (corrupt file or not an XTC)"};
  }
  const int32_t natoms = be_int32(head + 4);
  if (natoms != natoms_) {
    throw Problem{"atom count " + std::to_string(natoms) + " differs from " +
                  std::to_string(natoms_) + " in the first frame"};
  }
  raw.step = be_int32(head + 8);
  raw.time = be_float(head + 12);
  if (!std::isfinite(raw.time)) throw Problem{"non-finite time"};
  for (int k = 0; k < 9; ++k) {
    raw.box[k] = be_float(head + 16 + 4 * k);
    if (!std::isfinite(raw.box[k])) throw Problem{"non-finite box component"};
  }
  const int32_t coord_count = be_int32(head + 52);
  if (coord_count != natoms_) {
    throw Problem{"coordinate block holds " + std::to_string(coord_count) + " atoms, header says " +
                  std::to_string(natoms_)};
  }

  if (natoms_ <= kMaxUncompressedAtoms) {
    raw.compressed = false;
    data_bytes = static_cast<uint64_t>(natoms_) * 3 * 4;
    return;
  }

  raw.compressed = true;
  unsigned char packed_head[kPackedHeaderBytes + 8];
  const size_t count_bytes = magic == kMagicLarge ? 8 : 4;
  const size_t packed_head_bytes = kPackedHeaderBytes + count_bytes;
  if (read_bytes(packed_head, packed_head_bytes) < packed_head_bytes) {
    throw Problem{"truncated file inside the compressed-coordinate header", true};
  }
  raw.precision = be_float(packed_head);
  if (!std::isfinite(raw.precision) || !(raw.precision > 0)) throw Problem{"invalid precision"};
  for (int d = 0; d < 3; ++d) {
    raw.minint[d] = be_int32(packed_head + 4 + 4 * d);
    raw.maxint[d] = be_int32(packed_head + 16 + 4 * d);
  }
  raw.smallidx = be_int32(packed_head + 28);
  if (magic == kMagicLarge) {
    const uint64_t n = load_be64(packed_head + 32);
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw Problem{"negative compressed data size"};
    }
    raw.nbytes = n;
  } else {
    const int32_t n = be_int32(packed_head + 32);
    if (n < 0) throw Problem{"negative compressed data size " + std::to_string(n)};
    raw.nbytes = static_cast<uint64_t>(n);
  }
  // An atom costs at least 2 bits (an integer of at least one bit plus the run flag) and at most
  // 102 (3 x 32 + flag + run length); sizes outside that are corrupt and would otherwise drive
  // huge allocations.
  const uint64_t n_atoms = static_cast<uint64_t>(natoms_);
  if (raw.nbytes > 16 * n_atoms + 64) {
    throw Problem{"compressed data size " + std::to_string(raw.nbytes) +
                  " bytes is too large for " + std::to_string(natoms_) + " atoms"};
  }
  if (raw.nbytes * 4 + 4 < n_atoms) {
    throw Problem{"compressed data size " + std::to_string(raw.nbytes) +
                  " bytes is too small for " + std::to_string(natoms_) + " atoms"};
  }
  const uint64_t padded = (raw.nbytes + 3) & ~uint64_t{3};  // XDR opaque data is 4-byte aligned
  const uint64_t left = bytes_left_in_file(padded);
  if (padded > left) {
    throw Problem{"truncated file: compressed data needs " + std::to_string(padded) + " bytes, " +
                      std::to_string(left) + " left",
                  true};
  }
  data_bytes = padded;
}

std::vector<double> frame_times(const std::string& path, std::string& error, bool* cut) {
  Scanner scanner(path);
  RawFrame raw;
  std::vector<double> times;
  std::string problem;
  for (;;) {
    const Scanner::Status status = scanner.skip(raw, problem);
    if (status == Scanner::Status::end) break;
    if (status == Scanner::Status::error) {
      error = frame_error(path, static_cast<int64_t>(times.size()), problem);
      if (cut) *cut = scanner.cut();
      break;
    }
    times.push_back(raw.time);
  }
  return times;
}

}  // namespace pairhist::io::xtc
