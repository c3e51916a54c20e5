// XTC reading that keeps up with the GPUs: frames are located in order (a header read each), then
// read by positional reads and decoded on a pool of threads, concurrently, and handed out in
// order. Decoding a frame (io/xtc/xtc_decode.hpp) is the expensive part and needs only the frame's
// bytes, so frames decode independently. Reading whole frames under one lock, one thread at a
// time, into freshly faulted buffers, kept 7 of 64 cores busy at 11M atoms (issue 24).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_decode.hpp"
#include "io/xtc/xtc_scanner.hpp"

namespace pairhist::io {

constexpr int64_t kPendingFrames = 1;
/// Frames about to be delivered that hold pinned columns, when more threads decode (see Slot):
/// half the decoding threads, from kPinnedFrames to kMaxPinnedFrames. A promotion copies a frame
/// (40 ms at 10.9M atoms on the 4x H200 node) and four GPUs count one every ~4 ms: with 8 at a
/// time, promotions delivered a frame every 7 ms and bound the run once the window was decoded.
constexpr int64_t kPinnedFrames = 8;
constexpr int64_t kMaxPinnedFrames = 32;
/// The pinned frames of a reader with `threads` decoding threads.
int64_t pinned_frames_for(int threads);
/// Frames per decoding thread that may be decoding or decoded beyond the delivered ones: with
/// one, every thread that finished waited for the oldest frame (2x H200, 30 threads, W1 10.9M
/// atoms: 1.2 s of waiting in a 2.9 s run; with two 0.5 s and the run 2.6 s; four: no better).
constexpr int64_t kFramesPerDecodeThread = 2;

/// Reads an XTC file like XtcReader, with `threads` frames decoded ahead in parallel. The frames,
/// their order, the errors (message, frame, frames delivered before them) and the end of the file
/// are exactly XtcReader's. Memory holds at most kFramesPerDecodeThread x threads + 1 decoded
/// frames (those decoding or waiting, and the caller's), plus each thread's compressed frame.
/// next() is called from one thread at a time. What the decoding threads deliver: the whole frame
/// (frame.xyz), and the selected species as columns (frame.columns, FramePreparation), prepared in
/// parallel like the decoding. Without the whole frame, and with every atom in at most one
/// species, the decoder writes the columns directly.
class XtcParallelReader : public TrajectoryReader {
 public:
  /// Opens `path` (errors as XtcReader's constructor) and starts `threads` >= 1 decoding threads,
  /// of which `active` (0: all) decode until set_active_threads() says otherwise.
  XtcParallelReader(const std::string& path, int threads, FramePreparation prep = {},
                    int active = 0);
  /// Continues from a scanner that has read nothing beyond the first header (a pipe cannot be
  /// opened twice), or `frames_before` whole frames, which frame numbers then count. A
  /// `chooser` decides from the first frame on which frames are delivered (choose_frames).
  XtcParallelReader(std::unique_ptr<xtc::Scanner> scanner, int threads, FramePreparation prep = {},
                    int active = 0, int64_t frames_before = 0, FrameChooser chooser = {});
  /// Stops the threads, also when frames were left unread.
  ~XtcParallelReader() override;

  XtcParallelReader(const XtcParallelReader&) = delete;
  XtcParallelReader& operator=(const XtcParallelReader&) = delete;

  int natoms() const override { return natoms_; }
  bool next(TrajectoryFrame& frame) override;
  int64_t frames_read() const override;
  const std::string& path() const override { return path_; }
  /// Frames are chosen as the decoding threads claim them, and they begin at once: false,
  /// changing nothing, once a thread has claimed a frame (give the chooser to the constructor
  /// or to open_trajectory_threaded instead).
  bool choose_frames(FrameChooser chooser) override;
  bool chooses_frames() const override;
  /// Decoding threads that run (the others wait), and how many there are.
  int threads() const;
  int max_threads() const { return static_cast<int>(workers_.size()); }
  /// Staged frames' columns are pinned once among the next this many to deliver.
  int64_t pinned_frames() const { return pinned_frames_; }
  /// Lets `n` (1..max_threads()) threads decode from now on; any thread, any time.
  void set_active_threads(int n) override;
  /// What the frames claimed from now on deliver (e.g. species columns once the topology that
  /// selects them has loaded, while the first frames decoded meanwhile); any thread, any time.
  void set_preparation(FramePreparation prep) override;
  /// Pinning hooks are being installed on another thread, and the GPUs started (a GPU run's CUDA
  /// start: 1-2 s on 4-GPU nodes, during which 60 decoding threads sat idle): until
  /// pinning_settled(), frames are decoded into unpinned staging columns and wait there, and
  /// promotions into pinned sets begin only then. A frame next() delivers before that gets its
  /// staging columns, unpinned; given back, they serve as staging again. Call before the species.
  /// Returns true: this reader stages.
  bool await_pinning() override;
  /// The hooks are installed, or will not be: staged frames are promoted (copied into pinned
  /// sets, or handed over as they are where nothing pins).
  void pinning_settled() override;
  /// Mean wall seconds a thread spent decoding and preparing a frame (0 before the first frame):
  /// what a frame costs a core, as the threads share the machine now.
  double seconds_per_frame() const;
  /// Where the reading's time went so far: why a run was bound by reading.
  struct Waits {
    double window_seconds = 0;      // a decoding thread waited for room to claim a frame (the
                                    // oldest frame in the window not yet decoded, or not taken)
    double caller_seconds = 0;      // next() waited for its frame
    int64_t caller_promotions = 0;  // staged frames next() copied itself (no thread had)
    // Decoding threads waited for the lock under which frames are claimed in order: behind
    // the one that claims, or waits for room in the window while holding it (a full window
    // idles every thread, and window_seconds counts only the holder's wait).
    double lock_seconds = 0;
  };
  Waits waits() const;
  /// Keeps a ReadingTiming for every frame delivered from now on (a run's --reading-trace).
  void record_timings() override;
  std::vector<ReadingTiming> timings() const override;
  /// threads(), max_threads(), seconds_per_frame() and waits() at once.
  ReadingFigures reading_figures() const override;

 private:
  // One frame in flight. Frame k lives in slot k % slots_.size() (threads, or a multiple:
  // PAIRHIST_DECODE_WINDOW) until it is delivered; a thread owns
  // the slot from claiming the frame until it marks it done. The compressed bytes stay with the
  // thread (one buffer each, reused); the decoded frame's buffers circulate between the slots and
  // the caller (next() swaps them), so neither is allocated again once every slot had a frame.
  //
  // Staged frames: where pinning every slot's columns would stall the start (more than
  // pinned_frames_ threads with pinning hooks installed), a frame's columns are decoded into the
  // slot's unpinned staging set, and copied into a pinned set (free_sets_, or a new one) once the
  // frame is among the next pinned_frames_ to deliver: pinned memory then follows the frames about
  // to be counted, not the decoding threads (issue 24: 60 threads pinning 130 MB each at once
  // held 4 GPUs back for 1.5 s). Any thread promotes such a frame: a decoding thread between
  // frames, the one waiting for room to claim, or the caller waiting for it.
  struct Slot {
    // working -> [decoded -> promoting ->] ready | end | failed
    enum class State { free, working, decoded, promoting, ready, end, failed };
    State state = State::free;
    int64_t file_index = 0;  // the frame's index in the file
    bool again = false;      // deliver the frame delivered before once more (kFrameAgain)
    bool cut = false;        // locating it failed where the file ends inside it
    TrajectoryFrame frame;
    std::vector<HostColumn> staging;  // unpinned columns, between staged frames
    std::exception_ptr error;         // when failed: the InputError (or other exception) to throw
    ReadingTiming timing;
  };

  // A frame a thread claimed, and what to deliver from it.
  struct Preparation;
  struct Claim {
    Slot* slot = nullptr;
    bool choosing = false;  // a chooser picks the frame
    bool staged = false;    // columns decoded into the slot's staging set
    std::shared_ptr<const Preparation> prep;
  };
  // How a claimed frame came out.
  struct Outcome {
    Slot::State state = Slot::State::ready;
    std::exception_ptr error;
    double seconds = 0;   // decoding and preparing it (0: not decoded)
    double finished = 0;  // steady_clock seconds when it was
  };

  void work(int thread);
  // Waits for room in the window; false: stop. `lock_wait`: seconds the thread waited for
  // read_mutex_ (Waits::lock_seconds).
  bool claim_next(Claim& claim, int thread, double lock_wait);
  // Under mutex_ (unlocked while copying): promotes the earliest decoded frame among the next
  // pinned_frames_ to deliver into a pinned set; false if there is none. `by`: the decoding
  // thread, or -1 for the caller. Without pinning hooks, the staging columns are the frame's:
  // measured, not copied (the caller's promotions while pinning is awaited).
  bool promote_one(std::unique_lock<std::mutex>& lock, int by);
  // Passes over unwanted frames and locates the claimed one; under read_mutex_.
  xtc::Scanner::Status locate(const Claim& claim, xtc::RawFrame& raw, std::string& problem);
  // Fetches and decodes the located frame into its slot; any number of threads at once.
  Outcome complete(const Claim& claim, xtc::RawFrame& raw, xtc::Scanner::Status status,
                   std::string problem) const;
  void publish(const Claim& claim, const Outcome& outcome);
  // What the threads deliver, and where atoms go when decoded straight into columns (null: decode
  // the whole frame, then gather). A frame keeps the preparation current when it was claimed.
  struct Preparation {
    FramePreparation what;
    std::unique_ptr<ColumnMap> direct;
  };
  // "" or the problem
  std::string prepare(const xtc::RawFrame& raw, Slot& slot, const Preparation& prep,
                      bool staged) const;
  void stop_workers();

  std::string path_;
  int natoms_ = 0;
  int64_t pinned_frames_ = kPinnedFrames;
  // What the threads deliver (see Preparation), under mutex_.
  std::shared_ptr<const Preparation> prep_;
  // Frames are located by one thread at a time, under read_mutex_; fetched by any, without it.
  std::unique_ptr<xtc::Scanner> scanner_;
  std::mutex read_mutex_;
  int64_t next_in_file_ = 0;  // the scanner's next frame; under read_mutex_

  mutable std::mutex mutex_;  // guards everything below except `workers_`
  // Set under mutex_ while no frame is claimed beyond the delivered ones; called under
  // read_mutex_ by the thread that claimed a frame.
  FrameChooser chooser_;
  std::condition_variable claimable_;  // a worker may claim the next frame, or must stop
  std::condition_variable done_;       // a slot became ready, end or failed
  std::vector<Slot> slots_;
  int64_t next_to_read_ = 0;   // the next frame a worker claims (delivery order)
  int64_t delivered_ = 0;      // frames handed to the caller
  int64_t delivered_end_ = 0;  // file index after the last frame delivered (frames_read)
  bool input_over_ = false;    // the file ended or failed: nothing more to claim
  bool stopping_ = false;
  std::exception_ptr error_;  // sticky, once an error was thrown to the caller
  bool ended_ = false;
  int active_ = 1;             // threads 0..active_-1 claim frames
  double decode_seconds_ = 0;  // summed over the frames decoded so far (and their promotions)
  int64_t decoded_frames_ = 0;
  std::vector<std::vector<HostColumn>> free_sets_;  // pinned column sets the caller gave back
  bool pinning_awaited_ = false;                    // await_pinning() until pinning_settled()
  // Staging sets delivered as a frame's columns while pinning was awaited (their first column's
  // data): unpinned for good, so given back they serve as staging again (staging_sets_), never
  // as pinned sets, and frames passed over meanwhile do not allocate a set each.
  std::vector<const void*> unpinned_delivered_;
  std::vector<std::vector<HostColumn>> staging_sets_;
  // Whether frames may yet be pinned: awaited, or hooks installed.
  bool host_pinning_may_come() const { return pinning_awaited_ || host_pinning_installed(); }
  Waits waits_;
  bool recording_ = false;
  std::vector<ReadingTiming> timings_;

  std::vector<std::thread> workers_;
};

}  // namespace pairhist::io
