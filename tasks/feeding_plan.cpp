#include "tasks/feeding_plan.hpp"

#include <algorithm>
#include <cmath>

namespace pairhist {

FeedingPlan plan_feeding(const FeedingInputs& in) {
  FeedingPlan plan;
  plan.reader_threads = std::max(in.reader_threads, 1);
  if (in.gpus <= 0 || !(in.gpu_seconds > 0) || !(in.prepare_seconds > 0)) return plan;
  const double wanted = std::ceil(kFeedMargin * in.prepare_seconds / in.gpu_seconds);
  if (wanted <= plan.reader_threads) return plan;
  plan.feed_bound = true;
  const int free_cores = std::max(in.cores - (in.feeding_thread_copies ? 1 : 0) - in.gpus, 1);
  const int threads = static_cast<int>(
      std::min<double>({wanted, double(std::max(in.max_reader_threads, 1)), double(free_cores)}));
  plan.reader_threads = std::max(threads, plan.reader_threads);
  plan.cpu_workers = wanted >= free_cores ? 0 : std::max(free_cores - plan.reader_threads, 0);
  return plan;
}

}  // namespace pairhist
