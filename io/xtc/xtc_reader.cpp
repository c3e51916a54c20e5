#include "io/xtc/xtc_reader.hpp"

#include <utility>

#include "io/xtc/xtc_scanner.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

XtcReader::XtcReader(const std::string& path) : scanner_(std::make_unique<xtc::Scanner>(path)) {}
XtcReader::XtcReader(std::unique_ptr<xtc::Scanner> scanner, int64_t frames_before)
    : scanner_(std::move(scanner)), frames_read_(frames_before) {}

XtcReader::~XtcReader() = default;
XtcReader::XtcReader(XtcReader&&) noexcept = default;
XtcReader& XtcReader::operator=(XtcReader&&) noexcept = default;

int XtcReader::natoms() const {
  return scanner_->natoms();
}

const std::string& XtcReader::path() const {
  return scanner_->path();
}

bool XtcReader::choose_frames(FrameChooser chooser) {
  chooser_ = std::move(chooser);
  return true;
}

bool XtcReader::next(TrajectoryFrame& frame) {
  if (!error_.empty()) throw_frame_error(error_, cut_);
  std::string problem;
  if (chooser_) {
    const int64_t wanted = chooser_(frames_read_);
    if (wanted == kFrameAgain) return true;  // the caller's frame is the one wanted
    if (wanted < 0) return false;
    while (frames_read_ < wanted) {
      const xtc::Scanner::Status passed = scanner_->skip(raw_, problem);
      if (passed == xtc::Scanner::Status::end) return false;
      if (passed == xtc::Scanner::Status::error) {
        error_ = xtc::frame_error(path(), frames_read_, problem);
        cut_ = scanner_->cut();
        throw_frame_error(error_, cut_);
      }
      ++frames_read_;
    }
  }
  const xtc::Scanner::Status status = scanner_->read(raw_, problem);
  if (status == xtc::Scanner::Status::end) return false;
  if (status == xtc::Scanner::Status::frame) problem = xtc::decode_frame(raw_, natoms(), frame);
  if (!problem.empty()) {
    error_ = xtc::frame_error(path(), frames_read_, problem);
    // A frame read whole and failing to decode is damaged, not cut.
    cut_ = status == xtc::Scanner::Status::error && scanner_->cut();
    throw_frame_error(error_, cut_);
  }
  ++frames_read_;
  return true;
}

}  // namespace pairhist::io
