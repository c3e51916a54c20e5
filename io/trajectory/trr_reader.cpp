#include "io/trajectory/trr_reader.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr int32_t kMagic = 1993;
constexpr char kVersion[] = "GMX_trn_file";
constexpr size_t kVersionLength = sizeof(kVersion) - 1;  // 12: already a multiple of 4

// magic, string length + 1, XDR string length, the 12 version bytes, then 13 ints: ir, e, box,
// vir, pres, top, sym, x, v, f sizes, natoms, step, nre. Then t and lambda as reals.
constexpr size_t kIntHeaderBytes = 3 * 4 + kVersionLength + 13 * 4;
constexpr size_t kNatomsOffset = 3 * 4 + kVersionLength + 10 * 4;

enum Field { kIr, kE, kBox, kVir, kPres, kTop, kSym, kX, kV, kF, kNumSizes };
const char* const kFieldNames[kNumSizes] = {"ir",  "e",   "box", "vir", "pres",
                                            "top", "sym", "x",   "v",   "f"};

}  // namespace

TrrReader::TrrReader(const std::string& path) : path_(path) {
  std::string why;
  if (!file_.open(path, why)) throw InputError(path + ": cannot open TRR file: " + why);
  // Peek up to natoms only; next() re-uses these bytes so nothing is read twice.
  pending_size_ = read_bytes(pending_.data(), pending_.size());
  if (pending_size_ == 0) throw InputError(path + ": frame 0: empty file, not a TRR trajectory");
  if (pending_size_ >= 4) {
    const int32_t magic = xdr::be_int32(pending_.data());
    if (magic != kMagic) {
      throw InputError(path + ": frame 0: not a TRR file (magic number " + std::to_string(magic) +
                       ", expected 1993)");
    }
  }
  if (pending_size_ < pending_.size()) {
    throw TruncatedFrame(path +
                         ": frame 0: truncated file inside the frame header (no complete frame)");
  }
  natoms_ = xdr::be_int32(pending_.data() + kNatomsOffset);
  if (natoms_ < 0) {
    throw InputError(path + ": frame 0: negative atom count " + std::to_string(natoms_));
  }
}

void TrrReader::fail(const std::string& problem, bool cut) {
  const int64_t frame = frames_read_;
  std::string msg = path_ + ": frame " + std::to_string(frame) + ": " + problem;
  msg +=
      frame > 0 ? " (last complete frame is " + std::to_string(frame - 1) : " (no complete frame";
  // With skipped records the frame number alone does not locate the damage in the file.
  if (records_read_ != frames_read_) msg += "; file record " + std::to_string(records_read_);
  msg += ")";
  error_ = msg;
  cut_ = cut;
  throw_frame_error(msg, cut);
}

size_t TrrReader::read_bytes(void* dst, size_t n) {
  std::string io_error;
  const size_t got = file_.read(dst, n, io_error);
  if (!io_error.empty()) fail("read error: " + io_error);
  return got;
}

void TrrReader::read_exact(void* dst, size_t n, const char* what) {
  if (read_bytes(dst, n) < n) fail(std::string("truncated file inside the ") + what, true);
}

bool TrrReader::next(TrajectoryFrame& frame) {
  if (!error_.empty()) throw_frame_error(error_, cut_);

  for (;;) {
    RecordHeader header;
    if (!read_record_header(header)) return false;
    const size_t real_size = record_real_size(header);
    real_size_ = real_size;

    unsigned char tl[16];
    read_exact(tl, 2 * real_size, "frame header");
    const double time = xdr::be_real(tl, real_size);
    if (!std::isfinite(time)) fail("non-finite time");

    std::array<float, 9> box{};
    const bool has_x = read_record_data(header, frame, box);
    ++records_read_;
    if (!has_x && natoms_ > 0) continue;
    if (!has_x) frame.xyz.clear();
    frame.step = header.step;
    frame.time = time;
    frame.box = box;
    frame.precision = 0;
    ++frames_read_;
    return true;
  }
}

bool TrrReader::read_record_header(RecordHeader& header) {
  unsigned char head[kIntHeaderBytes];
  std::memcpy(head, pending_.data(), pending_size_);
  const size_t have = pending_size_;
  pending_size_ = 0;
  const size_t got = have + read_bytes(head + have, kIntHeaderBytes - have);
  if (got == 0) return false;
  if (got < kIntHeaderBytes) fail("truncated file inside the frame header", true);

  const int32_t magic = xdr::be_int32(head);
  if (magic != kMagic) {
    fail("bad magic number " + std::to_string(magic) + " (corrupt file or not a TRR)");
  }
  if (xdr::be_int32(head + 4) != static_cast<int32_t>(kVersionLength + 1) ||
      xdr::be_int32(head + 8) != static_cast<int32_t>(kVersionLength) ||
      std::memcmp(head + 12, kVersion, kVersionLength) != 0) {
    fail("bad version string (expected \"GMX_trn_file\")");
  }
  const unsigned char* ints = head + 12 + kVersionLength;
  int64_t* size = header.size;
  static_assert(sizeof(header.size) / sizeof(header.size[0]) == kNumSizes, "a size per block");
  for (int k = 0; k < kNumSizes; ++k) {
    size[k] = xdr::be_int32(ints + 4 * k);
    if (size[k] < 0) {
      fail(std::string("negative ") + kFieldNames[k] + " block size " + std::to_string(size[k]));
    }
  }
  const int32_t natoms = xdr::be_int32(ints + 40);
  if (natoms != natoms_) {
    fail("atom count " + std::to_string(natoms) + " differs from " + std::to_string(natoms_) +
         " in the first frame");
  }
  // Input records, energies, topologies and symmetry blocks were dropped from TRR long ago
  // (GROMACS cannot read them either); their layout is not defined well enough to skip them.
  for (int k : {kIr, kE, kTop, kSym}) {
    if (size[k] != 0) {
      fail(std::string("unsupported ") + kFieldNames[k] + " block of " + std::to_string(size[k]) +
           " bytes");
    }
  }
  header.step = xdr::be_int32(ints + 44);
  return true;
}

size_t TrrReader::record_real_size(const RecordHeader& header) {
  // The precision is only implicit: a block size divided by its number of reals. A record with
  // no blocks at all keeps the previous record's precision (float if none), as it cannot tell.
  const int64_t* size = header.size;
  const int64_t n3 = int64_t{natoms_} * 3;
  size_t real_size = 0;
  for (int k : {kBox, kVir, kPres, kX, kV, kF}) {
    const int64_t count = k == kBox || k == kVir || k == kPres ? 9 : n3;
    if (size[k] != 0 && count != 0) {
      real_size = size[k] == count * 4 ? 4 : size[k] == count * 8 ? 8 : 0;
      if (real_size == 0) {
        fail(std::string(kFieldNames[k]) + " block size " + std::to_string(size[k]) +
             " fits neither float nor double for " + std::to_string(count) + " values");
      }
      break;
    }
  }
  if (real_size == 0) real_size = real_size_ != 0 ? real_size_ : 4;
  for (int k : {kBox, kVir, kPres, kX, kV, kF}) {
    const int64_t count = k == kBox || k == kVir || k == kPres ? 9 : n3;
    if (size[k] != 0 && size[k] != count * static_cast<int64_t>(real_size)) {
      fail(std::string(kFieldNames[k]) + " block size " + std::to_string(size[k]) +
           " inconsistent with " + std::to_string(count) + " values of " +
           std::to_string(real_size) + " bytes (natoms " + std::to_string(natoms_) + ")");
    }
  }
  return real_size;
}

void TrrReader::read_block(int64_t bytes) {
  const size_t n = static_cast<size_t>(bytes);
  std::string io_error;
  const size_t got = file_.read_into(raw_, n, io_error);
  if (!io_error.empty()) fail("read error: " + io_error);
  if (got < n) fail("truncated file inside the record data", true);
}

bool TrrReader::read_record_data(const RecordHeader& header, TrajectoryFrame& frame,
                                 std::array<float, 9>& box) {
  const int64_t* size = header.size;
  const size_t real_size = real_size_;
  uint64_t data_bytes = 0;
  for (int k : {kBox, kVir, kPres, kX, kV, kF}) data_bytes += static_cast<uint64_t>(size[k]);
  // Checked before reading, so that a corrupt size fails at once (read_into allocates no more
  // than arrives, also from a pipe).
  const uint64_t left = file_.bytes_left(data_bytes);
  if (data_bytes > left) {
    fail("truncated file: record data needs " + std::to_string(data_bytes) + " bytes, " +
             std::to_string(left) + " left",
         true);
  }
  if (size[kBox] != 0) {
    read_block(size[kBox]);
    for (size_t k = 0; k < 9; ++k) {
      const double v = xdr::be_real(raw_.data() + k * real_size, real_size);
      box[k] = static_cast<float>(v);
      if (!std::isfinite(box[k])) fail("non-finite box component");
    }
  }
  if (size[kVir] != 0) read_block(size[kVir]);
  if (size[kPres] != 0) read_block(size[kPres]);
  const bool has_x = size[kX] != 0;
  if (has_x) {
    read_block(size[kX]);
    frame.xyz.resize(static_cast<size_t>(int64_t{natoms_} * 3));
    bool finite = true;
    for (size_t k = 0; k < frame.xyz.size(); ++k) {
      frame.xyz[k] = static_cast<float>(xdr::be_real(raw_.data() + k * real_size, real_size));
      finite = finite && std::isfinite(frame.xyz[k]);
    }
    // Double values beyond float range also end up here, as infinities.
    if (!finite) fail("non-finite coordinate");
  }
  if (size[kV] != 0) read_block(size[kV]);
  if (size[kF] != 0) read_block(size[kF]);
  return has_x;
}

}  // namespace pairhist::io
